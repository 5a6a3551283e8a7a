// The third stage: the kernels of one uploaded group, queued on its slot's stream. Unblock
// (on the GPU), then batch by batch: parse the LZ4 blocks (one launch for a span of batches: a
// thread a block, or a warp a block when the span has few frames), decode, integrate (with a
// matrix), and scan the tiles and write each frame's list.
#pragma once
#include <cstddef>
#include <memory>

#include "bslz4/cuda/device.hpp"
#include "call_outputs.hpp"
#include "context.hpp"
#include "driver_objects.hpp"
#include "frame_format.hpp"
#include "kernel_launch.hpp"
#include "group_slot.hpp"
#include "powder_spec.hpp"
#include "shared_matrices.hpp"
#include "top_pixels.hpp"

namespace bslz4::cuda::detail {

class GroupKernels {
public:
    // `module` holds the kernels for `info`'s device, whose context is `ctx`. `powders` is
    // read at each launch (an engine becomes an integrator after it is made).
    GroupKernels(const PrimaryContext& ctx, const Module& module, const DeviceInfo& info, const FrameFormat& format, unsigned batch,
                 std::shared_ptr<const DeviceMask> mask, const PowderSpec& powders);
    // The powder's kernels for the matrix's accumulator (the context current).
    void add_matrix(const Module& module);
    // The bytes of a slot's partial sums for add_matrix's matrix (integrate_tiles).
    std::size_t partial_bytes() const { return std::size_t{tile_frames_} * partial_per_frame_; }

    // Top pixels from the next queue on: the rule kept for the cut of each call.
    void set_top_pixels(const bslz4::detail::TopPixelsRule& rule) { top_ = rule; }
    // Copies chunks held in device memory into a slot (DeviceChunks::gather launches it).
    const Kernel<abi::GatherArgs>& gather_kernel() const { return gather_; }
    // The rule's levels for a call's cut, as the kernels take them (inactive when it is off).
    abi::TopPixels top_pixels_for(double cut) const;

    // Frames first .. first + count of the call, uploaded into `s`.
    void queue(GroupSlot& s, std::size_t first, std::size_t count, const abi::Cut& cut, bool gpu_unblock,
               const CallOutputs& outputs) const;

private:
    // queue's steps, each one kernel family on s's stream (frames counted from the call's first).
    void queue_unblock(GroupSlot& s, std::uint32_t part_first, std::uint32_t frames) const;
    void queue_parse(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames) const;
    void queue_decode(GroupSlot& s, std::uint32_t span_first, std::uint32_t first_frame, std::uint32_t frames, const abi::Cut& c,
                      bool write_dense) const;
    void queue_powder(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames) const;
    void queue_lists(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames, const abi::Cut& c,
                     const abi::TopPixels& top) const;
    void queue_top_pixels(GroupSlot& s, std::uint32_t first_frame, std::uint32_t frames, const abi::Cut& c,
                          const abi::TopPixels& top) const;

    const FrameFormat& format_;
    unsigned batch_;
    std::shared_ptr<const DeviceMask> mask_;
    const PowderSpec& powders_;
    Kernel<abi::UnblockArgs> unblock_;
    Kernel<abi::ParseArgs> parse_, parse_warp_;
    Kernel<abi::DecodeArgs> decode_;
    Kernel<abi::ScanTilesArgs> scan_;
    Kernel<abi::FrameOffsetsArgs> offsets_;
    Kernel<abi::WriteArgs> write_;
    Kernel<abi::TopLevelsArgs> top_levels_;
    Kernel<abi::TopChooseArgs> top_choose_;
    Kernel<abi::GatherArgs> gather_;
    Kernel<abi::IntegrateTilesArgs> integrate_tiles_;  // with a matrix (add_matrix)
    Kernel<abi::ReduceTilesArgs> reduce_tiles_;
    unsigned tile_shared_bytes_ = 0;
    std::uint32_t tile_frames_ = 0;        // frames a launch of integrate_tiles sums
    std::size_t partial_per_frame_ = 0;    // bytes of partial sums a frame: a sum a slot
    unsigned warps_per_decode_ = 1;
    std::size_t decode_resident_ = 1;  // decode blocks the device holds at once
    bslz4::detail::TopPixelsRule top_;
};

}  // namespace bslz4::cuda::detail
