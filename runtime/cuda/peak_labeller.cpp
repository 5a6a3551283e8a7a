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
#include "kernel_launch.hpp"

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
    std::shared_ptr<const Module> module;
    Stream stream;
    Kernel<bslz4_abi::PeaksIdentityArgs> identity;
    Kernel<bslz4_abi::PeaksSmoothArgs> smooth;
    Kernel<bslz4_abi::PeaksUphillArgs> uphill;
    Kernel<bslz4_abi::PeaksJoinArgs> join;
    Kernel<bslz4_abi::PeaksRootsArgs> roots;
    Kernel<bslz4_abi::PeaksNumberArgs> number;
    Kernel<bslz4_abi::PeaksFirstArgs> first;
    Kernel<bslz4_abi::PeaksMeasureArgs> measure;
    DeviceBuffer first_px, row, col, value, smoothed, link, is_root, numbers, labels, nlabels, peak_first, props;
    TransferBuffer to_device, from_device, peak_count;
    explicit State(int device) : ctx(device), info(device_info(device)) {
        ScopedContext scope(ctx);
        peak_count = TransferBuffer(8, "peak labels: peak count");
        module = shared_kernels(ctx.ordinal(), info.sm, info.name);
        stream = make_stream();
        identity = {*module, "bslz4_peaks_identity"};
        smooth = {*module, "bslz4_peaks_smooth"};
        uphill = {*module, "bslz4_peaks_uphill"};
        join = {*module, "bslz4_peaks_join"};
        roots = {*module, "bslz4_peaks_roots"};
        number = {*module, "bslz4_peaks_number"};
        first = {*module, "bslz4_peaks_first"};
        measure = {*module, "bslz4_peaks_measure"};
    }

    // The kernels that give each listed pixel its peak's number: links (cp: 8-connected
    // neighbours joined; else each pixel to its steepest neighbour uphill), roots, numbering.
    void queue_labels(bool cp, Grid per_pixel, std::size_t frames) const {
        const CUstream st = stream.get();
        if (cp) {
            bslz4_abi::PeaksIdentityArgs start{};
            start.first = first_px.as<const std::uint64_t>();
            start.link = link.as<std::uint32_t>();
            launch(identity, per_pixel, st, start);
            bslz4_abi::PeaksJoinArgs a{};
            a.first = first_px.as<const std::uint64_t>();
            a.row = row.as<const std::uint16_t>();
            a.col = col.as<const std::uint16_t>();
            a.value = value.as<const float>();
            a.link = link.as<std::uint32_t>();
            launch(join, per_pixel, st, a);
        } else {
            bslz4_abi::PeaksSmoothArgs a{};
            a.first = first_px.as<const std::uint64_t>();
            a.row = row.as<const std::uint16_t>();
            a.col = col.as<const std::uint16_t>();
            a.value = value.as<const float>();
            a.smoothed = smoothed.as<float>();
            launch(smooth, per_pixel, st, a);
            bslz4_abi::PeaksUphillArgs up{};
            up.first = first_px.as<const std::uint64_t>();
            up.row = row.as<const std::uint16_t>();
            up.col = col.as<const std::uint16_t>();
            up.smoothed = smoothed.as<const float>();
            up.link = link.as<std::uint32_t>();
            launch(uphill, per_pixel, st, up);
        }
        bslz4_abi::PeaksRootsArgs r{};
        r.first = first_px.as<const std::uint64_t>();
        r.value = value.as<const float>();
        r.above_zero_only = cp ? 1 : 0;
        r.link = link.as<std::uint32_t>();
        r.is_root = is_root.as<std::uint32_t>();
        launch(roots, per_pixel, st, r);
        bslz4_abi::PeaksNumberArgs numbering{};
        numbering.first = first_px.as<const std::uint64_t>();
        numbering.is_root = is_root.as<const std::uint32_t>();
        numbering.number = numbers.as<std::uint32_t>();
        numbering.nlabels = nlabels.as<std::uint32_t>();
        launch(number, Grid{static_cast<unsigned>(frames), 1, bslz4_abi::kScanThreads, 0}, st, numbering);
        bslz4_abi::PeaksFirstArgs starts{};
        starts.nlabels = nlabels.as<const std::uint32_t>();
        starts.frames = static_cast<std::uint32_t>(frames);
        starts.peak_first = peak_first.as<std::uint64_t>();
        launch(first, Grid{1, 1, bslz4_abi::kScanThreads, 0}, st, starts);
    }

    // Each peak's five sums (peaks numbered by queue_labels; props zeroed before).
    void queue_measure(bool cp, Grid per_pixel, const std::optional<double>& wtmax) const {
        bslz4_abi::PeaksMeasureArgs m{};
        m.first = first_px.as<const std::uint64_t>();
        m.row = row.as<const std::uint16_t>();
        m.col = col.as<const std::uint16_t>();
        m.value = value.as<const float>();
        m.above_zero_only = cp ? 1 : 0;
        m.link = link.as<const std::uint32_t>();
        m.number = numbers.as<const std::uint32_t>();
        m.peak_first = peak_first.as<const std::uint64_t>();
        m.has_wtmax = wtmax ? 1 : 0;
        m.wtmax = wtmax ? *wtmax : 0.0;
        m.labels = labels.as<std::int32_t>();
        m.props = props.as<unsigned long long>();
        launch(measure, per_pixel, stream.get(), m);
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
    grow(s.to_device, PinnedParts::aligned((frames + 1) * 8) + PinnedParts::aligned(n * 2) * 2 + PinnedParts::aligned(n * 4),
         "peak labels: lists staged");
    PinnedParts up(s.to_device);
    upload(s.first_px.get(), up, first.data(), (frames + 1) * 8, st, "cuMemcpyHtoDAsync(peak frame starts)");
    upload(s.row.get(), up, in.row, n * 2, st, "cuMemcpyHtoDAsync(peak rows)");
    upload(s.col.get(), up, in.col, n * 2, st, "cuMemcpyHtoDAsync(peak columns)");
    upload(s.value.get(), up, in.value, n * 4, st, "cuMemcpyHtoDAsync(peak values)");

    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((most + kPeakThreads - 1) / kPeakThreads, 4096));
    const Grid per_pixel{blocks, static_cast<unsigned>(frames), kPeakThreads, 0};
    const bool cp = rule == PeakRule::cplabel;
    s.queue_labels(cp, per_pixel, frames);
    // The sums and their staging are sized by the peaks counted, not by the worst case of a
    // peak a pixel: the bench's dense frames list about 27 pixels a peak, and pinning 40 bytes
    // a listed pixel (some 20 MB for a batch of 64 of them) held up a job's first batch.
    PinnedParts count_part(s.peak_count);
    std::uint64_t peaks = 0;
    const std::uint8_t* count = download(s.peak_first.get() + frames * 8, count_part, 8, st, "cuMemcpyDtoHAsync(peak count)");
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak count)");
    std::memcpy(&peaks, count, 8);
    if (peaks > n) throw Error(ErrorCode::gpu_fault, "peak labels: the GPU counted more peaks than pixels");
    grow(s.props, std::max<std::size_t>(peaks, 1) * 5 * 8, "peak labels: sums");
    grow(s.from_device, PinnedParts::aligned(n * 4) + PinnedParts::aligned(frames * 4) + peaks * 5 * 8, "peak labels: results staged");
    PinnedParts down(s.from_device);
    check(driver().cuMemsetD8Async(s.props.get(), 0, peaks * 5 * 8, st), "cuMemsetD8Async(peak sums)");
    s.queue_measure(cp, per_pixel, wtmax);
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
