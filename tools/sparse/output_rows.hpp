// A batch's rows as bslz4 sparse hands them from stage to stage: made on a decoder's thread,
// labelled (peaks), filtered (spots), appended by the writer (hdf5/sparse_output.hpp). A value
// type of its own, so the middle stages need not include the writer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/error.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::tool {

// A batch's rows as the output stores them, owned: made on the decoding thread from the
// decoder's views (which its next call overwrites), appended on the writer's.
struct OutputRows {
    std::vector<std::uint16_t> row, col;
    std::vector<std::uint8_t> intensity;  // pixels of the scan's type
    std::vector<std::uint32_t> nnz;       // per frame
    std::vector<FrameError> bad;          // for bad_frames; FrameError::frame is the input dataset's frame
    // With OutputInfo::peaks_algorithm (list_peaks.hpp fills them): labels a pixel, nlabels a
    // frame, 5 values a peak and 5 an overlap, their frames numbered from the batch's first (-1:
    // the frame before it).
    std::vector<std::int32_t> labels;
    std::vector<std::uint32_t> nlabels;
    std::vector<std::int64_t> peak_props, peak_pairs;
    std::size_t frames() const { return nnz.size(); }
    std::size_t pixels() const { return row.size(); }
    // Appends one frame's list (a frame of nj columns). Its powder goes to the file from the
    // decoder (hdf5/group_powders.hpp), not through here.
    void add(const SparseFrame& frame, std::size_t nj);
    // Appends a frame that could not be decoded: nnz 0 and its row of bad_frames (`frame`
    // numbered in the input dataset).
    void add_bad(std::size_t frame, ErrorCode code, const std::string& message);
};

}  // namespace bslz4::tool
