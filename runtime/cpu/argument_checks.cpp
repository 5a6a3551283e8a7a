#include "argument_checks.hpp"

#include <string>

#include "bslz4/error.hpp"

namespace bslz4 {

namespace detail {

void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths) {
    if (offsets.size() != lengths.size())
        throw Error("from_buffer: " + std::to_string(offsets.size()) + " offsets but " + std::to_string(lengths.size()) +
                    " lengths");
    for (std::size_t f = 0; f < offsets.size(); ++f)
        if (offsets[f] > base.size || lengths[f] > base.size - offsets[f])
            throw Error("frame " + std::to_string(f) + ": bytes " + std::to_string(offsets[f]) + " + " +
                        std::to_string(lengths[f]) + " lie outside the " + std::to_string(base.size) + "-byte buffer");
}

void check_frame_mask(ByteView mask, std::size_t ni, std::size_t nj) {
    if (ni == 0 || nj == 0) throw Error("frame shape " + std::to_string(ni) + " x " + std::to_string(nj) + " is empty");
    if (ni * nj > 0xFFFFFFFFull) throw Error("frame of " + std::to_string(ni * nj) + " pixels does not fit 32-bit indices");
    if (mask.size != ni * nj)
        throw Error("mask has " + std::to_string(mask.size) + " bytes, the frame " + std::to_string(ni) + " x " +
                    std::to_string(nj) + " needs " + std::to_string(ni * nj));
}

}  // namespace detail

}  // namespace bslz4
