// The first stage: a group's chunks made ready for upload. Chunks that lie in one
// PinnedHostMemory are uploaded by DMA from where they are; any others are copied into the
// slot's pinned staging by the host's threads, in pieces, so one large frame is copied by
// several threads too, with streaming stores (streaming_copy.hpp: H200 host, 9 % faster
// multi from pageable memory than memcpy).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "chunk_source.hpp"
#include "group_slot.hpp"
#include "thread_pool.hpp"

namespace bslz4::cuda::detail {

// Where a staged group's chunks are: a pinned range `bytes` long, uploaded as one copy; the
// slot's meta holds each chunk's offset in it and its length.
struct Staged {
    const std::uint8_t* from = nullptr;
    std::size_t bytes = 0;
};

// The room a chunk takes in staging: chunks start 16-byte aligned.
inline std::size_t staged_bytes(std::size_t chunk_bytes) { return (chunk_bytes + 15) / 16 * 16; }

class ChunkStaging {
public:
    explicit ChunkStaging(bslz4::detail::ThreadPool& threads) : threads_(threads) {}

    // Once the slot's previous uploads have read its staging (the kernels of the slot's
    // previous group may still be running, so nothing on the device is touched here): writes
    // the chunks' offsets and lengths, and copies them unless they are pinned already. The
    // chunks were checked (FrameFaults::before_upload) by the caller.
    Staged stage(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource chunks);
    // Grows the slot's staging for `count` chunks of `chunk_bytes` (the slot idle).
    void reserve(GroupSlot& s, std::size_t count, std::size_t chunk_bytes) const;

private:
    // One piece of a chunk, copied into staging by one thread.
    struct Piece {
        std::uint8_t* to;
        const std::uint8_t* from;
        std::size_t bytes;
    };

    bslz4::detail::ThreadPool& threads_;
    std::vector<Piece> pieces_;  // kept between calls: no allocation a call
};

}  // namespace bslz4::cuda::detail
