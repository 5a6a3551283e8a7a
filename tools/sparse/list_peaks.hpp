// bslz4 sparse --peaks: the peaks of each frame's list, labelled in the job's pass (the rules of
// ImageD11's properties step, tools/peaks/), into the batch's OutputRows: each pixel's label,
// each frame's peaks with their five properties, and the overlaps of each frame with the one
// before it (both listing pixels; the first frame of a batch with the last of the batch before,
// in the same group). On a GPU (kernels/peak_labels.cu through bslz4::cuda::PeakLabeller) the
// labels and sums are made there, the lists checked and the overlaps found on the host; else the
// frames of a batch are labelled on several threads, the job's collector thread and helpers
// started for the batch.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bslz4/pixel_type.hpp"
#include "sparse/output_rows.hpp"
#include "peaks/scan_peaks.hpp"

namespace bslz4::tool {

class ListPeaks {
public:
    // Frames of rows x cols pixels of `type`; threads 0: as many as the machine has cores;
    // device >= 0: labels and sums on that GPU.
    ListPeaks(const peaks::PeakOptions& options, PixelType type, std::size_t rows, std::size_t cols, unsigned threads,
              int device = -1);
    ~ListPeaks();
    ListPeaks(const ListPeaks&) = delete;
    ListPeaks& operator=(const ListPeaks&) = delete;

    // A new output group starts: its first frame pairs with none before it.
    void begin_group();
    // Fills rows.labels, nlabels, peak_props and peak_pairs for its frames. `first_frame` (the
    // input's number of the batch's first frame) names a frame in errors.
    void label(OutputRows& rows, std::size_t first_frame);
    // label() in steps: each frame's labels and properties (rows.labels, nlabels, peak_props)
    // and the overlaps of the batch's frames with each other (rows.peak_pairs), which depend on
    // the batch alone and may run on any thread, each object one batch at a time; then, in the
    // batches' order, the overlaps of its first frame with the last of the batch before.
    void label_frames(OutputRows& rows, std::size_t first_frame);
    void pair_within(OutputRows& rows);
    void pair_across(OutputRows& rows);
    // Both pairings, in the batches' order.
    void pair_frames(OutputRows& rows);

private:
    void label_frames_on_gpu(OutputRows& rows, std::size_t first_frame);  // with BSLZ4_HAVE_CUDA
    struct Scratch;
    struct Gpu;
    peaks::PeakOptions options_;
    PixelType type_;
    std::size_t rows_, cols_;
    unsigned threads_;
    // The last listed frame of the batch before, while in the same group: its pixels and labels.
    std::vector<std::uint16_t> last_row_, last_col_;
    std::vector<std::int32_t> last_labels_;
    bool have_last_ = false;
    std::vector<Scratch> scratch_;
    std::unique_ptr<Gpu> gpu_;
};

}  // namespace bslz4::tool
