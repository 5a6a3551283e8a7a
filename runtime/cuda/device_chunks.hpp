// The stage that takes the place of staging and upload when the chunks are already in device
// memory (from_device: a detector or GPUDirect Storage wrote them there). The caller's pointer
// and ranges are checked against the allocation the driver says they lie in, before anything
// runs; a group's chunks are then gathered by a kernel from wherever they lie into the slot's
// chunk buffer, packed as uploaded chunks are, so the kernels that follow are the usual ones. The
// host reads a chunk back only when it must see it: a bad frame's verdict, a frame listed on the host.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/frame_status.hpp"
#include "call_status.hpp"
#include "chunk_staging.hpp"
#include "driver_objects.hpp"
#include "group_slot.hpp"
#include "kernel_launch.hpp"

namespace bslz4::cuda::detail {

class DeviceChunks {
public:
    // `base` must be device memory of device `ordinal` (the caller's context current); chunk f
    // is `lengths[f]` bytes at base + offsets[f]. Throws a bad_argument Error when base is not
    // device memory of that device, the counts differ, or (unless `report`) a chunk lies outside
    // the allocation base is in; with `report`, such chunks are returned by outside() instead.
    DeviceChunks(std::uint64_t base, const std::vector<std::uint64_t>& offsets, const std::vector<std::uint64_t>& lengths,
                 int ordinal, bool report);

    std::size_t size() const { return offsets_.size(); }
    // Frames whose chunk lies outside the allocation (reporting calls), with their messages.
    const std::vector<FrameError>& outside() const { return outside_; }
    // The chunk's length, 0 for one outside the allocation.
    std::uint64_t length(std::size_t f) const { return inside(f) ? lengths_[f] : 0; }

    // Once the slot's previous gather has finished: the group's packed offsets and lengths in
    // the slot's meta, as ChunkStaging::stage writes them (frames the call has found bad go as
    // 0 bytes, which the kernels skip).
    Staged stage(GroupSlot& s, std::size_t first, std::size_t count, const CallStatus& call) const;
    // On the slot's copy stream, after upload_meta: the group's source offsets, then one gather
    // launch a part, each part's event recorded after it, then the slot's `uploaded`.
    void gather(GroupSlot& s, std::size_t first, std::size_t count, const Kernel<abi::GatherArgs>& gather_kernel) const;
    // A copy of chunk f on the host, read back once a call (an empty view outside the allocation).
    ByteView host_copy(std::size_t f);

private:
    bool inside(std::size_t f) const { return f < inside_.size() && inside_[f]; }

    std::uint64_t base_;
    const std::vector<std::uint64_t>& offsets_;
    const std::vector<std::uint64_t>& lengths_;
    std::vector<bool> inside_;
    std::vector<FrameError> outside_;
    std::map<std::size_t, std::vector<std::uint8_t>> host_;
};

}  // namespace bslz4::cuda::detail
