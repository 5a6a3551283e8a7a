// Why a frame is refused, in the CPU decoder's words wherever it has them (so the GPU's errors
// are the CPU's, message for message): the checks made on the host before a group is uploaded,
// and the text for a fault the kernels report.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "bslz4/byte_view.hpp"
#include "chunk_source.hpp"
#include "frame_format.hpp"

namespace bslz4::cuda::detail {

class FrameFaults {
public:
    explicit FrameFaults(const FrameFormat& format) : format_(format) {}

    // Refuses, before upload, a block size the GPU does not decode and a chunk longer than any
    // chunk of one frame (so no lying length sizes an allocation). A chunk the CPU rejects too
    // gets the CPU's message.
    void check_before_upload(std::size_t first, std::size_t count, ChunkSource chunks) const;
    // Frame `bad` of the group from `first` is refused on the host, for `why`, before the
    // kernels could look at the frames ahead of it: the error names the group's first frame the
    // CPU rejects, as the CPU would, else `bad`.
    [[noreturn]] void refuse(std::size_t first, std::size_t bad, const std::string& why, ChunkSource chunks) const;
    // The message for a frame whose kernels set `status`.
    std::string describe(std::uint32_t status, ByteView chunk) const;

private:
    // The CPU decoder's verdict on a chunk: "" when it decodes, else its exact message.
    std::string cpu_rejection(ByteView chunk) const;

    const FrameFormat& format_;
};

}  // namespace bslz4::cuda::detail
