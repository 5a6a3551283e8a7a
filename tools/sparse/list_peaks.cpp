#include "sparse/list_peaks.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "bslz4/error.hpp"
#include "peaks/frame_labels.hpp"
#include "peaks/label_overlaps.hpp"
#include "peaks/peak_properties.hpp"
#include "peaks/sparse_frame.hpp"
#include "sparse/job_decoders.hpp"
#include "sparse/run_on_threads.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/peak_labels.hpp"
#endif

namespace bslz4::tool {

namespace {

// `n` intensities of `type` as ImageD11 reads them: numpy's astype(float32).
void to_float32(const std::uint8_t* bytes, PixelType type, std::size_t n, float* out) {
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        for (std::size_t k = 0; k < n; ++k) {
            T v;
            std::memcpy(&v, bytes + k * sizeof(T), sizeof(T));
            out[k] = static_cast<float>(v);
        }
    });
}

std::vector<float> as_float32(const std::vector<std::uint8_t>& bytes, PixelType type) {
    std::vector<float> out(bytes.size() / pixel_size(type));
    to_float32(bytes.data(), type, out.size(), out.data());
    return out;
}

// Pixels a helper thread must have to be worth starting for a batch (a thread started costs
// tens of microseconds, hundreds under a sandboxing kernel; the H200 host's bench lost 6 ms a
// batch starting 30 of them): the CPU labels about 5 M pixels a second a thread; when the GPU
// labels them, the lists are copied into its pinned staging and checked there, at some 250 M a
// second a thread on the H200 host while a job runs; the overlaps of consecutive frames are
// found at some 100 M a second (H200 host, dense: 4.5 ms a batch of 64 frames on one thread).
constexpr std::size_t kPixelsPerLabellingThread = 100000, kPixelsPerStagingThread = 200000, kPixelsPerPairingThread = 150000;

// One frame's peaks, 5 values a peak (its columns' values side by side), after `to`'s.
void append_peaks(const peaks::PeakColumns& columns, std::vector<std::int64_t>& to) {
    for (std::size_t p = 0; p < columns[0].size(); ++p)
        for (int c = 0; c < 5; ++c) to.push_back(columns[c][p]);
}

// What a GPU labeller makes when it is made (on its own thread while the first batches are
// read), so that the first batch does not wait for its buffers: a batch of the job's frames
// with 8,192 pixels listed a frame (the bench's dense Eiger 4M frames list 7,700) and a peak for
// 16 of them (27 there). A larger batch grows them. H200, dense 2,000-frame scan, medians of 5
// runs, with peaks / without, whole call: lmlabel 0.73 -> 0.84, cplabel 0.73 -> 0.81.
constexpr std::size_t kReservedFrames = kBatchFrames, kReservedPixelsPerFrame = 8192, kReservedPixelsPerPeak = 16;

// Below this, ImageD11's float64 sums of integer weights are exact, so the GPU's int64 sums
// are the same numbers.
constexpr double kExactSums = 9007199254740992.0;  // 2^53

}  // namespace

struct ListPeaks::Scratch {
    peaks::FrameLabeller labeller;
    peaks::PropertySums sums;
    peaks::OverlapFinder overlaps;
};

#if BSLZ4_HAVE_CUDA
struct ListPeaks::Gpu {
    cuda::PeakLabeller labeller;
    cuda::PeakLabels result;
    explicit Gpu(int device) : labeller(device) {}
};
#else
struct ListPeaks::Gpu {};
#endif

ListPeaks::ListPeaks(const peaks::PeakOptions& options, PixelType type, std::size_t rows, std::size_t cols, unsigned threads,
                     int device)
    : options_(options), type_(type), rows_(rows), cols_(cols),
      threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {
#if BSLZ4_HAVE_CUDA
    if (device >= 0) {
        gpu_ = std::make_unique<Gpu>(device);
        gpu_->labeller.reserve(kReservedFrames, kReservedFrames * kReservedPixelsPerFrame, kReservedPixelsPerPeak);
    }
#else
    if (device >= 0) throw Error(ErrorCode::bad_argument, "peaks on the GPU: this build has no GPU support");
#endif
}

ListPeaks::~ListPeaks() = default;

void ListPeaks::begin_group() { have_last_ = false; }

void ListPeaks::label(OutputRows& rows, std::size_t first_frame) {
    label_frames(rows, first_frame);
    pair_frames(rows);
}

void ListPeaks::label_frames(OutputRows& rows, std::size_t first_frame) {
#if BSLZ4_HAVE_CUDA
    if (gpu_) return label_frames_on_gpu(rows, first_frame);
#endif
    const std::size_t frames = rows.frames(), total = rows.pixels();
    const std::vector<float> values = as_float32(rows.intensity, type_);
    std::vector<std::size_t> first(frames + 1, 0);
    for (std::size_t f = 0; f < frames; ++f) first[f + 1] = first[f] + rows.nnz[f];
    rows.labels.assign(total, 0);
    rows.nlabels.assign(frames, 0);
    const unsigned threads = static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>({threads_, frames, total / kPixelsPerLabellingThread})));
    if (scratch_.size() < threads) scratch_.resize(threads);
    std::vector<peaks::PeakColumns> props(frames);
    // Each frame checked, labelled and measured, a frame at a time a thread.
    run_on_threads(threads, threads, [&](std::size_t t) {
        Scratch& s = scratch_[t];
        for (std::size_t f = t; f < frames; f += threads) {
            const peaks::SparseFrame frame{rows.row.data() + first[f], rows.col.data() + first[f], values.data() + first[f],
                                           first[f + 1] - first[f]};
            const std::string what = "frame " + std::to_string(first_frame + f);
            peaks::check_frame(frame, rows_, cols_, what);
            std::int32_t* labels = rows.labels.data() + first[f];
            rows.nlabels[f] = s.labeller.label(options_.algorithm, frame, labels);
            s.sums.add_frame(frame, labels, rows.nlabels[f], options_.wtmax, static_cast<std::int64_t>(f), props[f], what);
        }
    });
    rows.peak_props.clear();
    for (std::size_t f = 0; f < frames; ++f) append_peaks(props[f], rows.peak_props);
}

#if BSLZ4_HAVE_CUDA
void ListPeaks::label_frames_on_gpu(OutputRows& rows, std::size_t first_frame) {
    const std::size_t frames = rows.frames(), total = rows.pixels();
    std::vector<std::size_t> first(frames + 1, 0);
    for (std::size_t f = 0; f < frames; ++f) first[f + 1] = first[f] + rows.nnz[f];
    const auto what = [&](std::size_t f) { return "frame " + std::to_string(first_frame + f); };
    cuda::PeakLabeller& gpu = gpu_->labeller;
    // The lists go straight into the labeller's pinned staging, their values as ImageD11 reads
    // them, and are checked there while in the cache: one pass, not a float copy, a check and
    // a copy into pinned memory (1.2 + 1.8 + 0.6 ms a dense batch of 64 on the H200 host).
    const cuda::PeakStaging to = gpu.stage({frames, rows_, cols_, rows.nnz.data(), nullptr, nullptr, nullptr});
    const auto staged = [&](std::size_t f) {
        return peaks::SparseFrame{to.row + first[f], to.col + first[f], to.value + first[f], first[f + 1] - first[f]};
    };
    const unsigned threads = static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>({threads_, frames, total / kPixelsPerStagingThread})));
    const std::size_t value_size = pixel_size(type_);
    run_on_threads(threads, threads, [&](std::size_t t) {
        for (std::size_t f = t; f < frames; f += threads) {
            const std::size_t at = first[f], n = first[f + 1] - at;
            if (n == 0) continue;
            std::memcpy(to.row + at, rows.row.data() + at, n * 2);
            std::memcpy(to.col + at, rows.col.data() + at, n * 2);
            to_float32(rows.intensity.data() + at * value_size, type_, n, to.value + at);
            peaks::check_frame(staged(f), rows_, cols_, what(f));
        }
    });
    cuda::PeakLabels& r = gpu_->result;
    gpu.label_staged(options_.algorithm == peaks::PeakAlgorithm::lmlabel ? cuda::PeakRule::lmlabel : cuda::PeakRule::cplabel,
                     options_.wtmax, r);
    rows.labels = std::move(r.labels);
    rows.nlabels = std::move(r.nlabels);
    // The GPU's sums as they are, but a frame whose sums ImageD11 would refuse (below 1) or
    // round (past 2^53): that one is measured again on the CPU (from the staging, which stays
    // the labeller's until its next batch), which says the one and rounds the other as
    // ImageD11 does.
    rows.peak_props.clear();
    rows.peak_props.reserve(r.props.size());
    if (scratch_.empty()) scratch_.resize(1);
    std::size_t at = 0;
    for (std::size_t f = 0; f < frames; ++f) {
        bool again = false;
        for (std::size_t p = at; p < at + rows.nlabels[f]; ++p) {
            const std::int64_t* q = r.props.data() + 5 * p;
            again = again || q[1] < 1 || std::fabs(double(q[1])) >= kExactSums || std::fabs(double(q[2])) >= kExactSums ||
                    std::fabs(double(q[3])) >= kExactSums;
        }
        if (again) {
            peaks::PeakColumns props;
            scratch_[0].sums.add_frame(staged(f), rows.labels.data() + first[f], rows.nlabels[f], options_.wtmax,
                                       static_cast<std::int64_t>(f), props, what(f));
            append_peaks(props, rows.peak_props);
        } else {
            rows.peak_props.insert(rows.peak_props.end(), r.props.begin() + std::ptrdiff_t(5 * at),
                                   r.props.begin() + std::ptrdiff_t(5 * (at + rows.nlabels[f])));
        }
        at += rows.nlabels[f];
    }
}
#endif

void ListPeaks::pair_frames(OutputRows& rows) {
    pair_within(rows);
    pair_across(rows);
}

void ListPeaks::pair_within(OutputRows& rows) {
    const std::size_t frames = rows.frames(), total = rows.pixels();
    std::vector<std::size_t> first(frames + 1, 0);
    for (std::size_t f = 0; f < frames; ++f) first[f + 1] = first[f] + rows.nnz[f];
    const auto frame_of = [&](std::size_t f) {
        return peaks::SparseFrame{rows.row.data() + first[f], rows.col.data() + first[f], nullptr, first[f + 1] - first[f]};
    };
    const unsigned threads = static_cast<unsigned>(
        std::max<std::size_t>(1, std::min<std::size_t>({threads_, frames, total / kPixelsPerPairingThread})));
    if (scratch_.size() < threads) scratch_.resize(threads);
    // The overlaps of each frame with the one before it, both listing pixels.
    std::vector<std::vector<peaks::Overlap>> pairs(frames);
    run_on_threads(threads, threads, [&](std::size_t t) {
        Scratch& s = scratch_[t];
        for (std::size_t f = t + 1; f < frames; f += threads)
            if (rows.nnz[f] && rows.nnz[f - 1])
                s.overlaps.find(frame_of(f - 1), rows.labels.data() + first[f - 1], frame_of(f), rows.labels.data() + first[f],
                                pairs[f]);
    });
    rows.peak_pairs.clear();
    for (std::size_t f = 1; f < frames; ++f)
        for (const peaks::Overlap& o : pairs[f])
            rows.peak_pairs.insert(rows.peak_pairs.end(), {std::int64_t(f) - 1, std::int64_t(f), o.first, o.second, o.pixels});
}

void ListPeaks::pair_across(OutputRows& rows) {
    const std::size_t frames = rows.frames();
    if (frames > 0 && rows.nnz[0] && have_last_) {
        if (scratch_.empty()) scratch_.resize(1);
        const peaks::SparseFrame last{last_row_.data(), last_col_.data(), nullptr, last_row_.size()};
        const peaks::SparseFrame head{rows.row.data(), rows.col.data(), nullptr, rows.nnz[0]};
        std::vector<peaks::Overlap> pairs;
        scratch_[0].overlaps.find(last, last_labels_.data(), head, rows.labels.data(), pairs);
        std::vector<std::int64_t> before;
        for (const peaks::Overlap& o : pairs) before.insert(before.end(), {-1, 0, o.first, o.second, o.pixels});
        rows.peak_pairs.insert(rows.peak_pairs.begin(), before.begin(), before.end());
    }
    // The batch's last frame, for the next batch's first; one of no pixels pairs with none, as
    // in ImageD11, where a frame of no pixels breaks the chain.
    if (frames > 0) {
        std::size_t start = 0;
        for (std::size_t f = 0; f + 1 < frames; ++f) start += rows.nnz[f];
        const std::size_t end = start + rows.nnz[frames - 1];
        have_last_ = rows.nnz[frames - 1] > 0;
        last_row_.assign(rows.row.begin() + std::ptrdiff_t(start), rows.row.begin() + std::ptrdiff_t(end));
        last_col_.assign(rows.col.begin() + std::ptrdiff_t(start), rows.col.begin() + std::ptrdiff_t(end));
        last_labels_.assign(rows.labels.begin() + std::ptrdiff_t(start), rows.labels.begin() + std::ptrdiff_t(end));
    }
}

}  // namespace bslz4::tool
