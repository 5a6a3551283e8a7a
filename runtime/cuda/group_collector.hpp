// The last stage: a group's results brought to the host. Its statuses, pixel counts and list
// offsets are downloaded behind its kernels; once they are in, a fault is thrown or, when the
// call reports, its frame marked bad (in the CPU decoder's words and codes either way), the
// lists are downloaded packed and copied into the call's result arrays, and each frame with
// more pixels than the GPU's cap is listed on the host instead.
#pragma once
#include <cstddef>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/powder.hpp"
#include "bslz4/sparse_result.hpp"
#include "call_outputs.hpp"
#include "call_status.hpp"
#include "chunk_source.hpp"
#include "frame_faults.hpp"
#include "frame_format.hpp"
#include "group_slot.hpp"
#include "host_buffer.hpp"
#include "powder_spec.hpp"
#include "thread_pool.hpp"
#include "top_pixels.hpp"

namespace bslz4::cuda::detail {

class GroupCollector {
public:
    // `threads` copy the lists of a group into the call's arrays; `status` is the call's.
    GroupCollector(const FrameFormat& format, ByteView mask, Codec codec, const PowderSpec& powders,
                   bslz4::detail::ThreadPool& threads, CallStatus& status);
    // The rule the device applied, which the host applies to the frames it lists.
    void set_top_pixels(const bslz4::detail::TopPixelsRule& rule);

    // A call of `nframes` frames begins: room for its results (the caller's rows, checked, when
    // outputs.rows is given).
    void begin(std::size_t nframes, double cut, const CallOutputs& outputs);
    // Queued behind the group's kernels: its powders, statuses, counts and list offsets.
    void queue_downloads(GroupSlot& s, std::size_t first, std::size_t count);
    // Waits for the slot's pending group and takes its results (nothing when none is pending):
    // a bad frame (in `status` already, or refused by the kernels) gets 0 pixels and a zero powder.
    void finish(GroupSlot& s, ChunkSource chunks, const FrameFaults& faults);
    // Grows the host result arrays (lists, powders) for calls of up to `nframes` frames.
    void reserve(std::size_t nframes);

    SparseBatch lists(std::size_t nframes) const;
    Powder powders(std::size_t nframes) const;
    std::size_t host_frames() const { return host_frames_; }

private:
    const FrameFormat& format_;
    const PowderSpec& powder_spec_;
    bslz4::detail::ThreadPool& threads_;
    CallStatus& status_;
    bslz4::Chunk2Sparse cpu_;  // frames above cap
    bslz4::detail::TopPixelsRule top_;
    // The last call's.
    CallOutputs outputs_;
    double cut_ = 0;
    bslz4::detail::HostBuffer values_, indices_;
    ListRows rows_;  // where the call's lists go: the caller's rows, or values_ and indices_
    std::vector<std::size_t> npixels_;
    // Top pixels: the call's levels, and each frame's final cut and pixels above it (SparseBatch
    // last_cut, last_nabove).
    std::vector<double> thresholds_;
    std::vector<double> last_cut_;
    std::vector<std::size_t> last_nabove_;
    std::size_t host_frames_ = 0;
    bslz4::detail::HostBuffer powders_;  // nframes x bins
    std::uint8_t* powder_dst_ = nullptr; // the call's powders: the caller's powder_rows, or powders_
};

}  // namespace bslz4::cuda::detail
