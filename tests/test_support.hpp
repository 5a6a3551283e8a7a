// Shared by the test files: random frames of every type, chunk surgery, paths to data.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "bslz4/pixel_type.hpp"

namespace bslz4::test {

// Every pixel type the CPU classes take.
inline constexpr PixelType kAllTypes[] = {PixelType::u8,  PixelType::u16, PixelType::u32, PixelType::u64, PixelType::i8,
                                          PixelType::i16, PixelType::i32, PixelType::i64, PixelType::f32, PixelType::f64};

// Random pixels of type T; floats include NaN, infinities, -0.0 and subnormals.
template <class T>
std::vector<std::uint8_t> random_pixels(std::size_t n, std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = rng();
        if constexpr (std::is_floating_point<T>::value) {
            switch (r % 16) {
                case 0: v[i] = std::numeric_limits<T>::quiet_NaN(); break;
                case 1: v[i] = std::numeric_limits<T>::infinity(); break;
                case 2: v[i] = -std::numeric_limits<T>::infinity(); break;
                case 3: v[i] = static_cast<T>(-0.0); break;
                case 4: v[i] = std::numeric_limits<T>::denorm_min(); break;
                default: v[i] = static_cast<T>((static_cast<double>(r >> 11) * 0x1.0p-53 - 0.3) * 200.0);
            }
        } else {
            // Mostly small values (as a detector), some spanning the whole type.
            std::uint64_t bits = (r % 4 == 0) ? (r >> 8) : ((r >> 8) % 40);
            if (std::is_signed<T>::value && (r & 2)) bits = ~bits;  // negatives
            std::memcpy(&v[i], &bits, sizeof(T));
        }
    }
    std::vector<std::uint8_t> out(n * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

// The same for a pixel type chosen at run time.
inline std::vector<std::uint8_t> random_pixels_for(PixelType t, std::size_t n, std::uint32_t seed) {
    return visit_pixel_type(t, [&](auto zero) { return random_pixels<decltype(zero)>(n, seed); });
}

inline std::vector<std::uint8_t> random_mask(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<std::uint8_t> m(n);
    for (auto& x : m) x = static_cast<std::uint8_t>(rng() % 5 == 0 ? 0 : 1 + rng() % 255);
    return m;
}

inline void put_be32(std::vector<std::uint8_t>& b, std::size_t at, std::uint32_t v) {
    for (int i = 3; i >= 0; --i, v >>= 8) b[at + i] = static_cast<std::uint8_t>(v);
}
inline void put_be64(std::vector<std::uint8_t>& b, std::size_t at, std::uint64_t v) {
    put_be32(b, at, static_cast<std::uint32_t>(v >> 32));
    put_be32(b, at + 4, static_cast<std::uint32_t>(v));
}

// Sets an environment variable for a scope (unset: value null), restoring it after.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value)
            ::setenv(name, value, 1);
        else
            ::unsetenv(name);
    }
    ~ScopedEnv() {
        if (had_)
            ::setenv(name_.c_str(), old_.c_str(), 1);
        else
            ::unsetenv(name_.c_str());
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    std::string name_, old_;
    bool had_ = false;
};

inline std::string env_or(const char* name, const std::string& fallback) {
    const char* v = std::getenv(name);
    return v ? v : fallback;
}

}  // namespace bslz4::test
