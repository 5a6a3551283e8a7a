// Every CPU path (portable, AVX2, AVX-512: those this machine runs) against a dense threshold
// of the decoded frame, for every integer type, and the choice of path by BSLZ4_CPU_PATH. The
// frames are shaped to reach each branch of the plane collect: background-like values that
// leave the high planes empty, masked pixels at the type's maximum (as detector gaps are),
// every plane live, blocks that do not end on a 64-pixel word, blocks of several stripes, and
// frames of a single partial word.
#include <catch2/catch.hpp>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cpu_path.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;

namespace {

// BSLZ4_CPU_PATH set for a scope: the variable is read whenever a decoder is made.
struct ForcedPath : test::ScopedEnv {
    explicit ForcedPath(const char* value) : test::ScopedEnv("BSLZ4_CPU_PATH", value) {}
};

enum class Shape { background, uniform, zeros, saturated_gaps };

// n pixels of T: a Poisson-like background of small counts with rare bright pixels, uniform
// bits over the whole type, all zero, or a background whose masked pixels hold the maximum.
template <class T>
std::vector<std::uint8_t> frame_of(Shape shape, std::size_t n, const std::vector<std::uint8_t>& mask,
                                   std::uint32_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> v(n, T{0});
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t r = rng();
        switch (shape) {
            case Shape::zeros: break;
            case Shape::uniform: std::memcpy(&v[i], &r, sizeof(T)); break;
            case Shape::background:
            case Shape::saturated_gaps: {
                std::uint64_t x = r % 97 == 0 ? 1 + (r >> 20) % 3 : 0;
                if (r % 1009 == 0) x = (r >> 24) % 5000;
                if (std::is_signed<T>::value && r % 613 == 0) x = ~x;  // a few negatives
                std::memcpy(&v[i], &x, sizeof(T));
                if (shape == Shape::saturated_gaps && !mask[i]) v[i] = std::numeric_limits<T>::max();
            }
        }
    }
    std::vector<std::uint8_t> out(n * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

template <class T>
void require_dense_threshold(const SparseFrame& got, const std::vector<std::uint8_t>& raw,
                             const std::vector<std::uint8_t>& mask, double cut) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    std::vector<std::uint32_t> idx;
    std::vector<T> val;
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i] && static_cast<long double>(v[i]) > static_cast<long double>(cut)) {
            idx.push_back(static_cast<std::uint32_t>(i));
            val.push_back(v[i]);
        }
    REQUIRE(got.npixels == idx.size());
    REQUIRE(std::vector<std::uint32_t>(got.indices, got.indices + got.npixels) == idx);
    REQUIRE(std::vector<T>(got.values_as<T>(), got.values_as<T>() + got.npixels) == val);
}

// Gaps as a detector's: every 7th row and every 13th column masked, plus random dead pixels.
std::vector<std::uint8_t> gap_mask(std::size_t ni, std::size_t nj) {
    std::vector<std::uint8_t> m = test::random_mask(ni * nj, 11);
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j)
            if (i % 7 == 6 || j % 13 == 12) m[i * nj + j] = 0;
    return m;
}

const PixelType kIntegerTypes[] = {PixelType::u8, PixelType::u16, PixelType::u32, PixelType::u64,
                                   PixelType::i8, PixelType::i16, PixelType::i32, PixelType::i64};

}  // namespace

TEST_CASE("every CPU path lists what a dense threshold lists, for every integer type, shape, block and cut",
          "[cpu_paths]") {
    const auto paths = usable_cpu_paths();
    INFO("paths this machine runs: " << describe_cpu_paths());
    REQUIRE(paths.front() == CpuPath::portable);
    const std::pair<std::size_t, std::size_t> shapes[] = {{1, 5}, {3, 3}, {7, 64}, {33, 257}, {61, 211}, {3, 9000}};
    // 0: the default block; others in bytes: 8 pixels, a block that ends mid-word, and one of
    // several stripes (the plane collect works 8,192 pixels at a time).
    const std::size_t block_pixels[] = {0, 8, 8 * 37, 8 * 2500};
    const double cuts[] = {0.0, 1.0, 2.5, 10.0, 4999.0, -1.0, -3.7, -1e30, 1e30};
    for (CpuPath path : paths) {
        const ForcedPath forced(cpu_path_name(path));
        for (PixelType t : kIntegerTypes)
            for (auto [ni, nj] : shapes)
                for (Shape shape : {Shape::background, Shape::uniform, Shape::zeros, Shape::saturated_gaps})
                    for (std::size_t bp : block_pixels) {
                        const std::size_t n = ni * nj;
                        const auto mask = shape == Shape::uniform ? test::random_mask(n, 5) : gap_mask(ni, nj);
                        const auto raw = visit_pixel_type(t, [&](auto z) {
                            return frame_of<decltype(z)>(shape, n, mask, static_cast<std::uint32_t>(n + bp));
                        });
                        const auto chunk = encode_chunk(raw, pixel_size(t), {Codec::lz4, bp * pixel_size(t), 3});
                        Chunk2Sparse sparse(mask, ni, nj, t, {Codec::lz4, 1});
                        for (double cut : cuts) {
                            INFO(cpu_path_name(path) << " " << pixel_type_name(t) << " " << ni << "x" << nj << " shape "
                                                     << static_cast<int>(shape) << " block " << bp << " cut " << cut);
                            visit_pixel_type(t, [&](auto z) {
                                require_dense_threshold<decltype(z)>(sparse(chunk, cut), raw, mask, cut);
                            });
                        }
                    }
    }
}

TEST_CASE("every CPU path gives the same lists on synthetic Eiger frames of every profile", "[cpu_paths]") {
    const std::size_t ni = 1100, nj = 1040;
    const auto mask = synthetic_eiger_mask(ni, nj);
    for (PixelType t : {PixelType::u16, PixelType::u32})
        for (SyntheticProfile profile : {SyntheticProfile::dense, SyntheticProfile::sparse, SyntheticProfile::very_sparse}) {
            const auto raw = synthetic_eiger_frame(ni, nj, t, 1, profile);
            const auto chunk = encode_chunk(raw, pixel_size(t));
            for (CpuPath path : usable_cpu_paths()) {
                const ForcedPath forced(cpu_path_name(path));
                Chunk2Sparse sparse(mask, ni, nj, t, {Codec::lz4, 1});
                for (double cut : {0.0, 10.0}) {
                    INFO(cpu_path_name(path) << " " << pixel_type_name(t) << " " << synthetic_profile_name(profile)
                                             << " cut " << cut);
                    visit_pixel_type(t, [&](auto z) {
                        if constexpr (std::is_integral<decltype(z)>::value)
                            require_dense_threshold<decltype(z)>(sparse(chunk, cut), raw, mask, cut);
                    });
                }
            }
        }
}

TEST_CASE("BSLZ4_CPU_PATH picks the path, and one this CPU cannot run is an error naming what it lacks",
          "[cpu_paths]") {
    const auto paths = usable_cpu_paths();
    {
        const ForcedPath forced("auto");
        CHECK(active_cpu_path() == paths.back());
    }
    for (CpuPath p : paths) {
        const ForcedPath forced(cpu_path_name(p));
        CHECK(active_cpu_path() == p);
        CHECK_THAT(describe_cpu_paths(), Catch::StartsWith(cpu_path_name(p)));
    }
    {
        const ForcedPath forced("sse9");
        REQUIRE_THROWS_WITH(active_cpu_path(), Catch::Contains("BSLZ4_CPU_PATH=sse9") &&
                                                   Catch::Contains("auto, portable, avx2 or avx512"));
        const std::vector<std::uint8_t> mask(16, 1);
        REQUIRE_THROWS_AS(Chunk2Sparse(mask, 4, 4, PixelType::u16), Error);
    }
    for (CpuPath p : {CpuPath::avx2, CpuPath::avx512}) {
        bool usable = false;
        for (CpuPath q : paths) usable |= q == p;
        if (usable) continue;
        const ForcedPath forced(cpu_path_name(p));
        REQUIRE_THROWS_WITH(active_cpu_path(), Catch::Contains("cannot run it") && Catch::Contains("it needs"));
    }
}
