// A copy into memory the CPU will not read again (pinned staging, which the GPU's DMA reads):
// non-temporal stores, so the destination's lines are neither read first nor left in the
// caches, halving the memory traffic of a large copy.
#pragma once
#include <cstddef>
#include <cstdint>

namespace bslz4::cuda::detail {

// Like memcpy; the stores are ordered (fenced) before it returns.
void streaming_copy(std::uint8_t* to, const std::uint8_t* from, std::size_t bytes);

}  // namespace bslz4::cuda::detail
