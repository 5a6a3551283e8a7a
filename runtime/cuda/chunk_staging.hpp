// The first stage: a group's chunks made ready for upload. lz4 chunks that lie in one
// PinnedHostMemory are uploaded by DMA from where they are; any others are copied into the
// slot's pinned staging by the host's threads, in pieces, so one large frame is copied by
// several threads too, with streaming stores (streaming_copy.hpp: H200 host, 9 % faster
// multi from pageable memory than memcpy). zstd chunks are decompressed into staging as lz4
// chunks of literals (zstd_restaging.hpp), wherever they lie.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "bslz4/codec.hpp"
#include "chunk_source.hpp"
#include "frame_faults.hpp"
#include "frame_format.hpp"
#include "group_slot.hpp"
#include "thread_pool.hpp"
#include "zstd_restaging.hpp"

namespace bslz4::cuda::detail {

// Where a staged group's chunks are: a pinned range `bytes` long, uploaded as one copy; the
// slot's meta holds each chunk's offset in it and its length. beside_ran: stage() ran its
// `beside` work.
struct Staged {
    const std::uint8_t* from = nullptr;
    std::size_t bytes = 0;
    bool beside_ran = false;
};

// Work on the caller's chunks that needs nothing of the staging but each chunk's offset and
// length in it (the host's walk of the block headers, which reads far-apart bytes one after
// another and so waits on memory, as the copies do not).
using BesideStaging = std::function<void()>;

// The room a chunk takes in staging: chunks start 16-byte aligned.
inline std::size_t staged_bytes(std::size_t chunk_bytes) { return (chunk_bytes + 15) / 16 * 16; }

class ChunkStaging {
public:
    // `faults` gives the verdict on a zstd chunk that does not decode.
    ChunkStaging(const FrameFormat& format, Codec codec, const FrameFaults& faults, bslz4::detail::ThreadPool& threads);

    // Once the slot's previous uploads have read its staging (the kernels of the slot's
    // previous group may still be running, so nothing on the device is touched here): writes
    // the chunks' offsets and lengths, and copies (or restages) them unless they are pinned lz4
    // chunks already. The chunks were checked (FrameFaults::before_upload) by the caller; zstd
    // chunks that do not decode are staged empty and listed in refused(). `beside`, if given,
    // runs on one of the threads while lz4 chunks are copied, once their offsets and lengths
    // are written (an lz4 chunk uploads its own bytes, so the caller's chunks are what is
    // uploaded); when nothing is copied it is left to the caller (Staged::beside_ran).
    Staged stage(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource chunks, const BesideStaging& beside = {});
    // The last stage's frames whose zstd chunks do not decode, in frame order (none for lz4).
    const std::vector<ZstdRestaging::Refusal>& refused() const { return restaging_ ? restaging_->refused() : no_refusals_; }
    // What a chunk of `chunk_bytes` uploads: itself, or a restaged zstd chunk, whatever its length.
    std::size_t uploaded_bytes(std::size_t chunk_bytes) const { return restaging_ ? restaging_->chunk_bytes() : chunk_bytes; }
    // Grows the slot's staging for `count` chunks uploading `uploaded` bytes each (the slot idle).
    void reserve(GroupSlot& s, std::size_t count, std::size_t uploaded) const;

private:
    // One piece of a chunk, copied into staging by one thread.
    struct Piece {
        std::uint8_t* to;
        const std::uint8_t* from;
        std::size_t bytes;
    };

    bslz4::detail::ThreadPool& threads_;
    std::optional<ZstdRestaging> restaging_;  // zstd calls only
    const std::vector<ZstdRestaging::Refusal> no_refusals_;
    std::vector<Piece> pieces_;  // kept between calls: no allocation a call
};

}  // namespace bslz4::cuda::detail
