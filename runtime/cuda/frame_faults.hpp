// Why a frame is refused, in the CPU decoder's words and codes wherever it has them (so the
// GPU's errors are the CPU's, message for message and code for code): the checks made on the
// host before a group is uploaded, and the verdict for a fault the kernels report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/error.hpp"
#include "chunk_source.hpp"
#include "frame_format.hpp"

namespace bslz4::cuda::detail {

// A chunk's verdict: ErrorCode::ok, or the code and message (without "frame F: ") of its fault.
struct Verdict {
    ErrorCode code = ErrorCode::ok;
    std::string message;
    bool ok() const { return code == ErrorCode::ok; }
};

// The GPU's fault code (kernel_abi.h: the low byte of a frame's status) as an ErrorCode: the
// code a frame gets when the kernels alone name its fault.
ErrorCode fault_code(std::uint32_t status);

class FrameFaults {
public:
    // `codec`: the call's chunks' (the CPU decoder's verdicts use it).
    FrameFaults(const FrameFormat& format, Codec codec) : format_(format), codec_(codec) {}

    // Whether the GPU may take `chunk`: not with a block size it does not decode, nor, an lz4
    // chunk, when it is longer than any chunk of one frame (so no lying length sizes an
    // allocation; a zstd chunk is only read on the host, and what it uploads is set by the
    // frame: zstd_restaging.hpp). A chunk the CPU rejects too gets the CPU's verdict.
    Verdict before_upload(ByteView chunk) const;
    // before_upload for the group's frames, throwing (refuse) at the first refused.
    void check_before_upload(std::size_t first, std::size_t count, ChunkSource chunks) const;
    // Frame `bad` of the group from `first` is refused on the host, for `why`, before the
    // kernels could look at the frames ahead of it: the error names the group's first frame the
    // CPU rejects, as the CPU would, else `bad`.
    [[noreturn]] void refuse(std::size_t first, std::size_t bad, const Verdict& why, ChunkSource chunks) const;
    // The verdict on a frame whose kernels set `status`: the CPU's, else (the CPU accepts the
    // chunk) ErrorCode::gpu_fault, naming the GPU's fault.
    Verdict describe(std::uint32_t status, ByteView chunk) const;
    // The CPU decoder's verdict on a chunk, with its exact message and code.
    Verdict cpu_verdict(ByteView chunk) const;

private:
    const FrameFormat& format_;
    Codec codec_;
};

// "frame F: " + the verdict's message, as a call's error and a bad frame's message say it.
std::string frame_message(std::size_t frame, const Verdict& v);

}  // namespace bslz4::cuda::detail
