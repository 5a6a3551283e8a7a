#include "bench/pinned_chunks.hpp"

#if BSLZ4_HAVE_CUDA
#include <cstring>
#include <utility>

namespace bslz4::tool {

PinnedChunks pin_chunks(const std::vector<ByteView>& chunks, int device) {
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const ByteView& c : chunks) {
        offsets.push_back(total);
        lengths.push_back(c.size);
        total += c.size;
    }
    PinnedChunks pinned{cuda::PinnedHostMemory(total, device), std::move(offsets), std::move(lengths)};
    for (std::size_t f = 0; f < chunks.size(); ++f)
        std::memcpy(pinned.memory.data() + pinned.offsets[f], chunks[f].data, pinned.lengths[f]);
    return pinned;
}

}  // namespace bslz4::tool
#endif
