// The ranges of every live bslz4::cuda::PinnedHostMemory, so from_buffer can tell that a
// buffer is page-locked without asking the driver about arbitrary (pageable) pointers, which
// it answers with an error.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bslz4::cuda::detail {

void register_pinned(const std::uint8_t* data, std::size_t size);
void unregister_pinned(const std::uint8_t* data);
// True when [lo, hi) lies inside one registered range.
bool is_pinned_range(const std::uint8_t* lo, const std::uint8_t* hi);

}  // namespace bslz4::cuda::detail
