// PeakLabeller: the batch uploaded, kernels/peak_labels.cu run on one stream, labels, counts
// and sums brought back. Device buffers, and the pinned host buffers the copies go through,
// grow to the largest batch seen and are kept: copies from pageable memory go through the
// driver's own staging, which the labellers of a job's decoder threads share and wait for.
#include "bslz4/cuda/peak_labels.hpp"

#include <algorithm>
#include <cstring>

#include "bslz4/cuda/device.hpp"
#include "bslz4/error.hpp"
#include "context.hpp"
#include "driver_objects.hpp"
#include "kernel_abi.h"
#include "kernel_image.hpp"
#include "launch.hpp"

namespace bslz4::cuda {

using namespace detail;

namespace {

// A device buffer of at least `bytes`, made anew only when it must grow.
void grow(DeviceBuffer& b, std::size_t bytes, const char* what) {
    if (b.size() < bytes) b = DeviceBuffer(std::max<std::size_t>(bytes, b.size() + b.size() / 2), what);
}

// A pinned host buffer of at least `bytes`, made anew only when it must grow.
void grow(TransferBuffer& b, std::size_t bytes, const char* what) {
    if (b.size() < bytes) b = TransferBuffer(std::max<std::size_t>(bytes, b.size() + b.size() / 2), what);
}

// Host arrays laid end to end in one pinned buffer, each from a 256-byte boundary.
class PinnedParts {
public:
    static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
    explicit PinnedParts(TransferBuffer& b) : b_(b) {}
    std::uint8_t* next(std::size_t bytes) {
        std::uint8_t* p = b_.data() + used_;
        used_ += aligned(bytes);
        return p;
    }

private:
    TransferBuffer& b_;
    std::size_t used_ = 0;
};

void upload(CUdeviceptr to, PinnedParts& staging, const void* from, std::size_t bytes, CUstream st, const char* what) {
    if (!bytes) return;
    std::uint8_t* pinned = staging.next(bytes);
    std::memcpy(pinned, from, bytes);
    check(driver().cuMemcpyHtoDAsync(to, pinned, bytes, st), what);
}
std::uint8_t* download(CUdeviceptr from, PinnedParts& staging, std::size_t bytes, CUstream st, const char* what) {
    std::uint8_t* pinned = staging.next(bytes);
    if (bytes) check(driver().cuMemcpyDtoHAsync(pinned, from, bytes, st), what);
    return pinned;
}

}  // namespace

struct PeakLabeller::State {
    PrimaryContext ctx;
    DeviceInfo info;
    Module module;
    Stream stream;
    CUfunction identity, smooth, uphill, join, roots, number, first, measure;
    DeviceBuffer first_px, row, col, value, smoothed, link, is_root, numbers, labels, nlabels, peak_first, props;
    TransferBuffer to_device, from_device;
    explicit State(int device) : ctx(device), info(device_info(device)) {
        ScopedContext scope(ctx);
        module = load_kernels(info.sm, info.name);
        stream = make_stream();
        identity = kernel(module, "bslz4_peaks_identity");
        smooth = kernel(module, "bslz4_peaks_smooth");
        uphill = kernel(module, "bslz4_peaks_uphill");
        join = kernel(module, "bslz4_peaks_join");
        roots = kernel(module, "bslz4_peaks_roots");
        number = kernel(module, "bslz4_peaks_number");
        first = kernel(module, "bslz4_peaks_first");
        measure = kernel(module, "bslz4_peaks_measure");
    }
};

PeakLabeller::PeakLabeller(int device) : state_(std::make_unique<State>(device)) {}
PeakLabeller::~PeakLabeller() = default;
PeakLabeller::PeakLabeller(PeakLabeller&&) noexcept = default;
PeakLabeller& PeakLabeller::operator=(PeakLabeller&&) noexcept = default;

void PeakLabeller::label(PeakRule rule, const PeakFrames& in, const std::optional<double>& wtmax, PeakLabels& out) {
    using bslz4_abi::kMaxPeakFrames;
    using bslz4_abi::kPeakThreads;
    if (in.rows > 65536 || in.cols > 65536)
        throw Error(ErrorCode::bad_argument, "peak labels: frames of " + std::to_string(in.rows) + " x " + std::to_string(in.cols) +
                                                 " do not fit uint16 rows and columns");
    // Batches of more frames than one numbering block holds go through in parts.
    if (in.frames > kMaxPeakFrames) {
        PeakLabels part;
        out = PeakLabels{};
        std::size_t pixels = 0;
        for (std::size_t f0 = 0; f0 < in.frames; f0 += kMaxPeakFrames) {
            PeakFrames p = in;
            p.frames = std::min<std::size_t>(kMaxPeakFrames, in.frames - f0);
            p.nnz = in.nnz + f0;
            p.row = in.row + pixels;
            p.col = in.col + pixels;
            p.value = in.value + pixels;
            label(rule, p, wtmax, part);
            for (std::size_t k = 4; k < part.props.size(); k += 5) part.props[k] += std::int64_t(f0);
            out.labels.insert(out.labels.end(), part.labels.begin(), part.labels.end());
            out.nlabels.insert(out.nlabels.end(), part.nlabels.begin(), part.nlabels.end());
            out.props.insert(out.props.end(), part.props.begin(), part.props.end());
            for (std::size_t f = 0; f < p.frames; ++f) pixels += p.nnz[f];
        }
        return;
    }
    State& s = *state_;
    const std::size_t frames = in.frames;
    std::vector<std::uint64_t> first(frames + 1, 0);
    std::size_t most = 0;
    for (std::size_t f = 0; f < frames; ++f) {
        if (std::uint64_t(in.nnz[f]) > std::uint64_t(in.rows) * in.cols)
            throw Error(ErrorCode::bad_argument, "peak labels: frame " + std::to_string(f) + " lists " + std::to_string(in.nnz[f]) +
                                                     " pixels, more than its " + std::to_string(in.rows * in.cols));
        first[f + 1] = first[f] + in.nnz[f];
        most = std::max<std::size_t>(most, in.nnz[f]);
    }
    const std::size_t n = first[frames];
    out.labels.assign(n, 0);
    out.nlabels.assign(frames, 0);
    out.props.clear();
    if (n == 0) return;
    ScopedContext scope(s.ctx);
    CUstream st = s.stream.get();
    // Buffers are reused (or made anew) only once the stream is done with them: a call that
    // threw part way may have left copies and kernels queued.
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak labels, before reusing its buffers)");
    grow(s.first_px, (frames + 1) * 8, "peak labels: frame starts");
    grow(s.row, n * 2, "peak labels: rows");
    grow(s.col, n * 2, "peak labels: columns");
    grow(s.value, n * 4, "peak labels: values");
    grow(s.smoothed, n * 4, "peak labels: smoothed values");
    grow(s.link, n * 4, "peak labels: links");
    grow(s.is_root, n * 4, "peak labels: roots");
    grow(s.numbers, n * 4, "peak labels: numbers");
    grow(s.labels, n * 4, "peak labels: labels");
    grow(s.nlabels, frames * 4, "peak labels: counts");
    grow(s.peak_first, (frames + 1) * 8, "peak labels: peak starts");
    grow(s.props, n * 5 * 8, "peak labels: sums");  // at most a peak a pixel
    grow(s.to_device, PinnedParts::aligned((frames + 1) * 8) + PinnedParts::aligned(n * 2) * 2 + PinnedParts::aligned(n * 4),
         "peak labels: lists staged");
    PinnedParts up(s.to_device);
    upload(s.first_px.get(), up, first.data(), (frames + 1) * 8, st, "cuMemcpyHtoDAsync(peak frame starts)");
    upload(s.row.get(), up, in.row, n * 2, st, "cuMemcpyHtoDAsync(peak rows)");
    upload(s.col.get(), up, in.col, n * 2, st, "cuMemcpyHtoDAsync(peak columns)");
    upload(s.value.get(), up, in.value, n * 4, st, "cuMemcpyHtoDAsync(peak values)");

    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((most + kPeakThreads - 1) / kPeakThreads, 4096));
    const Grid per_pixel{blocks, static_cast<unsigned>(frames), kPeakThreads, 0};
    const CUdeviceptr fp = s.first_px.get(), row = s.row.get(), col = s.col.get(), value = s.value.get(), link = s.link.get();
    const int cp = rule == PeakRule::cplabel ? 1 : 0;
    if (cp) {
        launch(s.identity, "cuLaunchKernel(bslz4_peaks_identity)", per_pixel, st, fp, link);
        launch(s.join, "cuLaunchKernel(bslz4_peaks_join)", per_pixel, st, fp, row, col, value, link);
    } else {
        launch(s.smooth, "cuLaunchKernel(bslz4_peaks_smooth)", per_pixel, st, fp, row, col, value, s.smoothed.get());
        launch(s.uphill, "cuLaunchKernel(bslz4_peaks_uphill)", per_pixel, st, fp, row, col, s.smoothed.get(), link);
    }
    launch(s.roots, "cuLaunchKernel(bslz4_peaks_roots)", per_pixel, st, fp, value, cp, link, s.is_root.get());
    launch(s.number, "cuLaunchKernel(bslz4_peaks_number)", Grid{static_cast<unsigned>(frames), 1, bslz4_abi::kScanThreads, 0}, st,
           fp, s.is_root.get(), s.numbers.get(), s.nlabels.get());
    launch(s.first, "cuLaunchKernel(bslz4_peaks_first)", Grid{1, 1, bslz4_abi::kScanThreads, 0}, st, s.nlabels.get(),
           static_cast<std::uint32_t>(frames), s.peak_first.get());
    grow(s.from_device, PinnedParts::aligned(8) + PinnedParts::aligned(n * 4) + PinnedParts::aligned(frames * 4) + n * 5 * 8,
         "peak labels: results staged");
    PinnedParts down(s.from_device);
    std::uint64_t peaks = 0;
    const std::uint8_t* count = download(s.peak_first.get() + frames * 8, down, 8, st, "cuMemcpyDtoHAsync(peak count)");
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak count)");
    std::memcpy(&peaks, count, 8);
    if (peaks > n) throw Error(ErrorCode::gpu_fault, "peak labels: the GPU counted more peaks than pixels");
    check(driver().cuMemsetD8Async(s.props.get(), 0, peaks * 5 * 8, st), "cuMemsetD8Async(peak sums)");
    const int has_wtmax = wtmax ? 1 : 0;
    const double clip = wtmax ? *wtmax : 0.0;
    launch(s.measure, "cuLaunchKernel(bslz4_peaks_measure)", per_pixel, st, fp, row, col, value, cp, link, s.numbers.get(),
           s.peak_first.get(), has_wtmax, clip, s.labels.get(), s.props.get());
    out.props.resize(peaks * 5);
    const std::uint8_t* labels = download(s.labels.get(), down, n * 4, st, "cuMemcpyDtoHAsync(peak labels)");
    const std::uint8_t* counts = download(s.nlabels.get(), down, frames * 4, st, "cuMemcpyDtoHAsync(peak counts)");
    const std::uint8_t* sums = download(s.props.get(), down, peaks * 5 * 8, st, "cuMemcpyDtoHAsync(peak sums)");
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak labels)");
    std::memcpy(out.labels.data(), labels, n * 4);
    std::memcpy(out.nlabels.data(), counts, frames * 4);
    if (peaks) std::memcpy(out.props.data(), sums, peaks * 5 * 8);
}

}  // namespace bslz4::cuda
