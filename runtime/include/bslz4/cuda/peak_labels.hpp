// ImageD11's per-frame peak labelling on the GPU (the rules of its properties step:
// sparseframe's lmlabel and cplabel, and props' five sums), on a batch of frames' sparse lists
// as bslz4 sparse writes them. One object a thread: its calls are not to overlap. The CPU
// statement of the same rules, which the tests hold this to, is the tools' (tools/peaks/).
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace bslz4::cuda {

enum class PeakRule { lmlabel, cplabel };

// A batch's lists: frame f's nnz[f] pixels follow frame f - 1's, each sorted by (row, col), once;
// values as float32 (finite), frames of rows x cols (each at most 65536).
struct PeakFrames {
    std::size_t frames = 0, rows = 0, cols = 0;
    const std::uint32_t* nnz = nullptr;
    const std::uint16_t* row = nullptr;
    const std::uint16_t* col = nullptr;
    const float* value = nullptr;
};

struct PeakLabels {
    std::vector<std::int32_t> labels;   // a pixel's peak in its frame, 1.. (cplabel: 0 not above 0)
    std::vector<std::uint32_t> nlabels;  // peaks a frame
    // 5 a peak, frame by frame: pixels, sum of weights, sum row x weight, sum col x weight,
    // frame (counted from the batch's first). A weight is the value truncated to an integer,
    // clipped at wtmax when given; the sums are exact integers (ImageD11's float64 sums agree
    // while they stay below 2^53, which the caller checks).
    std::vector<std::int64_t> props;
};

// A batch's row, col and value arrays in the labeller's pinned memory (frame f's pixels from
// the sum of nnz[0..f)), for a caller that writes its lists there itself.
struct PeakStaging {
    std::uint16_t* row = nullptr;
    std::uint16_t* col = nullptr;
    float* value = nullptr;
    std::size_t pixels = 0;
};

class BSLZ4_API PeakLabeller {
public:
    // On CUDA device `device`; throws bslz4::Error (gpu_fault, bad_argument) when it cannot.
    explicit PeakLabeller(int device = 0);
    ~PeakLabeller();
    PeakLabeller(PeakLabeller&&) noexcept;
    PeakLabeller& operator=(PeakLabeller&&) noexcept;
    PeakLabeller(const PeakLabeller&) = delete;
    PeakLabeller& operator=(const PeakLabeller&) = delete;

    // Labels every frame of the batch into out (its arrays replaced). Lists out of order are
    // not detected here (the caller checks them); sizes that do not fit are bad_argument.
    void label(PeakRule rule, const PeakFrames& frames, const std::optional<double>& wtmax, PeakLabels& out);

    // label() in two steps, without its copy of the lists: stage() takes the batch's shape and
    // counts (frames.row, col and value are not read) and returns where to write its pixels;
    // label_staged() labels what was written there. The staging is the labeller's until the
    // next stage() or label().
    PeakStaging stage(const PeakFrames& frames);
    void label_staged(PeakRule rule, const std::optional<double>& wtmax, PeakLabels& out);

    // Makes the device buffers and pinned staging for batches of up to `frames` frames and
    // `pixels` listed pixels (with a peak for every `pixels_per_peak` of them) now, so that the
    // first such batch does not wait for them; larger batches still grow them. Not between
    // stage() and label_staged() (bad_argument: the staged lists would be lost); more than
    // 2^36 pixels or frames is bad_argument.
    void reserve(std::size_t frames, std::size_t pixels, std::size_t pixels_per_peak = 8);

private:
    struct State;
    std::unique_ptr<State> state_;
};

}  // namespace bslz4::cuda
