// A call's chunks copied side by side into one block of pinned host memory, with each chunk's
// offset and length there: what from_buffer takes to upload them by DMA straight from that
// memory, no staging copy (the bench's figures "from pinned host memory").
#pragma once
#if BSLZ4_HAVE_CUDA
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/cuda/host_memory.hpp"

namespace bslz4::tool {

struct PinnedChunks {
    cuda::PinnedHostMemory memory;
    std::vector<std::uint64_t> offsets, lengths;
    ByteView base() const { return {memory.data(), memory.size()}; }
};

PinnedChunks pin_chunks(const std::vector<ByteView>& chunks, int device);

}  // namespace bslz4::tool
#endif
