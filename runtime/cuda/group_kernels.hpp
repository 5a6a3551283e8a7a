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
    // The interleave and integrate kernels for the matrix's accumulator (the context current).
    void add_matrix(const Module& module);

    // Top pixels from the next queue on: the rule kept for the cut of each call.
    void set_top_pixels(const bslz4::detail::TopPixelsRule& rule) { top_ = rule; }
    // Copies chunks held in device memory into a slot (DeviceChunks::gather launches it).
    CUfunction gather_kernel() const { return gather_; }
    // The rule's levels for a call's cut, as the kernels take them (inactive when it is off).
    abi::TopPixels top_pixels_for(double cut) const;

    // Frames first .. first + count of the call, uploaded into `s`.
    void queue(GroupSlot& s, std::size_t first, std::size_t count, const abi::Cut& cut, bool gpu_unblock,
               const CallOutputs& outputs) const;

private:
    const FrameFormat& format_;
    unsigned batch_;
    std::shared_ptr<const DeviceMask> mask_;
    const PowderSpec& powders_;
    CUfunction unblock_, parse_, parse_warp_, decode_, scan_, offsets_, write_, top_levels_, top_choose_, gather_;
    CUfunction interleave_ = nullptr, integrate_ = nullptr;
    unsigned warps_per_decode_ = 1;
    std::size_t decode_resident_ = 1;  // decode blocks the device holds at once
    bslz4::detail::TopPixelsRule top_;
};

}  // namespace bslz4::cuda::detail
