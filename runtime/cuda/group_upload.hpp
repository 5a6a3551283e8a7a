// The second stage: a staged group goes to its slot's device buffers on the slot's stream,
// with its chunk offsets and lengths, where each frame's LZ4 sequences will go, and (when the
// host walks the block headers) every block's offset.
#pragma once
#include <cstddef>

#include "call_status.hpp"
#include "chunk_source.hpp"
#include "chunk_staging.hpp"
#include "frame_faults.hpp"
#include "frame_format.hpp"
#include "group_slot.hpp"

namespace bslz4::cuda::detail {

class GroupUpload {
public:
    // memory_budget: a quarter of it bounds the LZ4 sequences of one parse launch.
    GroupUpload(const FrameFormat& format, unsigned batch, std::size_t memory_budget)
        : format_(format), batch_(batch), memory_budget_(memory_budget) {}

    // On the slot's upload stream, once `previous` (the call's previous group, if any) is
    // uploaded: the chunks' offsets and lengths, and a run of length / kInputBytesPerSequence
    // + 2 sequence slots a frame, the runs of one parse launch end to end (kernel_abi.h says
    // why that is always room enough). Sets the slot's parts and parse span (a parse launch
    // stays inside a part).
    void upload_meta(GroupSlot& s, const Staged& in, std::size_t count, const GroupSlot* previous) const;
    // The host walks the block headers of each chunk as uploaded (`uploaded`: a zstd chunk
    // restaged, an lz4 chunk's own bytes wherever they lie; the slot's meta holds their offsets
    // in the upload) into the slot's meta: the block and tail offsets and the statuses, OK or (a
    // bad layout) a fault the kernels skip the frame for, the frame marked bad in `status` with
    // the CPU decoder's verdict on the caller's chunk (`chunks`) when the call reports, else
    // refused (thrown) as the CPU decoder would. Touches neither the device nor what the slot's
    // previous group downloads, so it may run before that group is finished.
    void walk_headers(GroupSlot& s, std::size_t first, std::size_t count, ChunkSource uploaded, ChunkSource chunks,
                      const FrameFaults& faults, CallStatus& status) const;
    // Uploads what walk_headers wrote, on the slot's upload stream.
    void upload_walked(GroupSlot& s, std::size_t count) const;
    // The chunks, part by part, each part's event recorded after it; then the slot's
    // `uploaded`. Chunks not laid out in frame order go as one part.
    void upload_chunks(GroupSlot& s, const Staged& in, std::size_t count) const;
    // Grows the slot's device chunks and LZ4 sequences for `count` staged chunks of
    // `chunk_bytes` (the slot idle).
    void reserve(GroupSlot& s, std::size_t count, std::size_t chunk_bytes) const;

private:
    // A group's parts (frames a part), its parse span (batches a parse launch takes) and the
    // bytes of one span's sequences, from its frames' sequence slots seq_first[0 .. count].
    struct ParsePlan {
        std::size_t part_frames;
        unsigned parse_span;
        std::size_t span_bytes;
    };
    ParsePlan plan(const std::uint64_t* seq_first, std::size_t count) const;

    const FrameFormat& format_;
    unsigned batch_;
    std::size_t memory_budget_;
};

}  // namespace bslz4::cuda::detail
