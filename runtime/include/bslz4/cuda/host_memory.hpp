// Page-locked (pinned) host memory for chunks, and the copy bandwidths the benchmark reports
// as ceilings. When from_buffer's chunks lie in one PinnedHostMemory they go to the GPU by DMA
// straight from there; other chunks are first staged through the object's own pinned buffers.
// Where the driver refuses to pin (a host short of lockable memory), these are pageable memory
// instead, after a one-time warning (bslz4/log.hpp; stderr by default): slower copies, the same results.
// The memory is pinned for every device's context (portable), not only `device`'s: GPU
// objects on any device take it by DMA, so one buffer can feed several GPUs. From 2 MB on it is
// mapped on transparent huge pages and registered with the driver (quicker to make than
// cuMemHostAlloc's), and, as cuMemHostAlloc's, not copied into a forked child.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <memory>

namespace bslz4::cuda {

class BSLZ4_API PinnedHostMemory {
public:
    PinnedHostMemory(std::size_t bytes, int device = 0);
    ~PinnedHostMemory();
    PinnedHostMemory(PinnedHostMemory&&) noexcept;
    PinnedHostMemory& operator=(PinnedHostMemory&&) noexcept;
    std::uint8_t* data() const;
    std::size_t size() const;
    // False where the driver refused to pin and this is pageable memory (see above).
    bool pinned() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

// device_to_pinned and device_to_pageable: the way results come back (powders, lists).
enum class Copy { device_to_device, pinned_to_device, pageable_to_device, device_to_pinned, device_to_pageable };

// Measured bandwidth in GB/s of `bytes`-sized copies (median of several; device to device
// counts the bytes read plus the bytes written). Where the driver refuses to pin `bytes`,
// Copy::pinned_to_device (and device_to_pinned) throws bslz4::Error (out_of_memory): there is no pinned rate to give,
// and a pageable one under that name would mislead.
BSLZ4_API double copy_bandwidth(Copy kind, std::size_t bytes, int device = 0);

}  // namespace bslz4::cuda
