// The argument checks the CPU and GPU classes share, so both refuse alike.
#pragma once
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4::detail {

// from_buffer: as many offsets as lengths, every chunk inside the buffer (an error names the
// first frame that is not).
void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths);

// A frame shape that is not empty and fits 32-bit indices, and a mask of ni*nj bytes.
void check_frame_mask(ByteView mask, std::size_t ni, std::size_t nj);

}  // namespace bslz4::detail
