// The chunk format's integers are big-endian; these read and write them byte by byte, so the
// code is right on any host.
#pragma once
#include <cstdint>

namespace bslz4::detail {

inline std::uint32_t load_be32(const std::uint8_t* p) {
    return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}
inline std::uint64_t load_be64(const std::uint8_t* p) {
    return (std::uint64_t{load_be32(p)} << 32) | load_be32(p + 4);
}
inline void store_be32(std::uint8_t* p, std::uint32_t v) {
    for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<std::uint8_t>(v);
}
inline void store_be64(std::uint8_t* p, std::uint64_t v) {
    store_be32(p, static_cast<std::uint32_t>(v >> 32));
    store_be32(p + 4, static_cast<std::uint32_t>(v));
}

}  // namespace bslz4::detail
