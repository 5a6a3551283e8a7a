// The bitshuffle transform written bit by bit, straight from the format's definition: slow,
// obviously right, and independent of the fast code it checks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace bslz4::test {

// planes -> elements: element i, byte j, bit k = bit (i % 8) of plane (j*8+k) byte (i / 8).
inline std::vector<std::uint8_t> reference_unshuffle(const std::vector<std::uint8_t>& planes, std::size_t n, std::size_t es) {
    std::vector<std::uint8_t> out(n * es, 0);
    const std::size_t nb = n / 8;
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < es; ++j)
            for (std::size_t k = 0; k < 8; ++k) {
                const unsigned bit = (planes[(j * 8 + k) * nb + i / 8] >> (i % 8)) & 1u;
                out[i * es + j] = static_cast<std::uint8_t>(out[i * es + j] | (bit << k));
            }
    return out;
}

}  // namespace bslz4::test
