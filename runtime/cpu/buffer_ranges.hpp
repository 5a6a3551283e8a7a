// from_buffer's argument check, shared by the CPU and GPU classes: as many offsets as lengths,
// and every chunk inside the buffer (an error names the first frame that is not).
#pragma once
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4::detail {

void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths);

}  // namespace bslz4::detail
