// PeakLabeller: the batch uploaded, kernels/peak_labels.cu run on one stream, labels, counts
// and sums brought back. Device buffers, and the pinned host buffers the copies go through,
// grow to the largest batch seen and are kept: copies from pageable memory go through the
// driver's own staging, which the labellers of a job's decoder threads share and wait for. A
// caller that makes its lists anyway writes them into the pinned staging itself (stage()).
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
    // to_device: the staged batch's rows, cols and values; starts: a part's frame starts.
    TransferBuffer to_device, starts, from_device, peak_count;
    // The batch staged: its frames, and frame f's pixels from pixel_first[f] (frames + 1 of them).
    std::size_t frames = 0;
    std::vector<std::uint64_t> pixel_first;
    bool staged = false;
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

    // Where the staged batch's arrays lie in to_device.
    std::uint16_t* staged_row() { return reinterpret_cast<std::uint16_t*>(to_device.data()); }
    std::uint16_t* staged_col() { return reinterpret_cast<std::uint16_t*>(to_device.data() + PinnedParts::aligned(pixel_first.back() * 2)); }
    float* staged_value() { return reinterpret_cast<float*>(to_device.data() + 2 * PinnedParts::aligned(pixel_first.back() * 2)); }

    void label_part(bool cp, std::size_t f0, std::size_t f1, const std::optional<double>& wtmax, PeakLabels& out);

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

PeakStaging PeakLabeller::stage(const PeakFrames& in) {
    if (in.rows > 65536 || in.cols > 65536)
        throw Error(ErrorCode::bad_argument, "peak labels: frames of " + std::to_string(in.rows) + " x " + std::to_string(in.cols) +
                                                 " do not fit uint16 rows and columns");
    State& s = *state_;
    s.staged = false;
    s.pixel_first.assign(in.frames + 1, 0);
    for (std::size_t f = 0; f < in.frames; ++f) {
        if (std::uint64_t(in.nnz[f]) > std::uint64_t(in.rows) * in.cols)
            throw Error(ErrorCode::bad_argument, "peak labels: frame " + std::to_string(f) + " lists " + std::to_string(in.nnz[f]) +
                                                     " pixels, more than its " + std::to_string(in.rows * in.cols));
        s.pixel_first[f + 1] = s.pixel_first[f] + in.nnz[f];
    }
    const std::size_t n = s.pixel_first.back();
    if (n) {
        ScopedContext scope(s.ctx);
        // The staging is rewritten (or made anew) only once the stream is done with it: a call
        // that threw part way may have left copies queued.
        check(driver().cuStreamSynchronize(s.stream.get()), "cuStreamSynchronize(peak labels, before staging a batch)");
        grow(s.to_device, PinnedParts::aligned(n * 2) * 2 + PinnedParts::aligned(n * 4), "peak labels: lists staged");
    }
    s.frames = in.frames;
    s.staged = true;
    if (!n) return PeakStaging{};
    return PeakStaging{s.staged_row(), s.staged_col(), s.staged_value(), n};
}

void PeakLabeller::reserve(std::size_t frames, std::size_t pixels, std::size_t pixels_per_peak) {
    State& s = *state_;
    constexpr std::size_t kMostReserved = std::size_t{1} << 36;  // far past any batch; the sizes below cannot wrap
    if (s.staged) throw Error(ErrorCode::bad_argument, "peak labels: reserve() between stage() and label_staged() would lose the staged lists");
    if (frames > kMostReserved || pixels > kMostReserved)
        throw Error(ErrorCode::bad_argument, "peak labels: reserve() of " + std::to_string(frames) + " frames and " +
                                                 std::to_string(pixels) + " pixels: more than 2^36");
    const std::size_t part = std::min<std::size_t>(std::max<std::size_t>(frames, 1), bslz4_abi::kMaxPeakFrames), n = pixels;
    const std::size_t peaks = n / std::max<std::size_t>(pixels_per_peak, 1);
    ScopedContext scope(s.ctx);
    check(driver().cuStreamSynchronize(s.stream.get()), "cuStreamSynchronize(peak labels, before reserving)");
    if (n) {
        grow(s.to_device, PinnedParts::aligned(n * 2) * 2 + PinnedParts::aligned(n * 4), "peak labels: lists staged");
        for (DeviceBuffer* b : {&s.row, &s.col})
            grow(*b, n * 2, "peak labels: reserved");
        for (DeviceBuffer* b : {&s.value, &s.smoothed, &s.link, &s.is_root, &s.numbers, &s.labels})
            grow(*b, n * 4, "peak labels: reserved");
        grow(s.props, std::max<std::size_t>(peaks, 1) * 5 * 8, "peak labels: sums");
        grow(s.from_device, PinnedParts::aligned(n * 4) + PinnedParts::aligned(part * 4) + peaks * 5 * 8, "peak labels: results staged");
    }
    grow(s.first_px, (part + 1) * 8, "peak labels: frame starts");
    grow(s.nlabels, part * 4, "peak labels: counts");
    grow(s.peak_first, (part + 1) * 8, "peak labels: peak starts");
    grow(s.starts, (part + 1) * 8, "peak labels: frame starts staged");
}

void PeakLabeller::label(PeakRule rule, const PeakFrames& in, const std::optional<double>& wtmax, PeakLabels& out) {
    const PeakStaging to = stage(in);
    if (to.pixels) {
        std::memcpy(to.row, in.row, to.pixels * 2);
        std::memcpy(to.col, in.col, to.pixels * 2);
        std::memcpy(to.value, in.value, to.pixels * 4);
    }
    label_staged(rule, wtmax, out);
}

void PeakLabeller::label_staged(PeakRule rule, const std::optional<double>& wtmax, PeakLabels& out) {
    State& s = *state_;
    if (!s.staged) throw Error(ErrorCode::bad_argument, "peak labels: label_staged() with no batch staged");
    s.staged = false;  // a staging is labelled once
    out.labels.resize(s.pixel_first.back());
    out.nlabels.assign(s.frames, 0);
    out.props.clear();
    if (s.pixel_first.back() == 0) return;
    ScopedContext scope(s.ctx);
    // Batches of more frames than one numbering block holds go through in parts.
    for (std::size_t f0 = 0; f0 < s.frames; f0 += bslz4_abi::kMaxPeakFrames)
        s.label_part(rule == PeakRule::cplabel, f0, std::min<std::size_t>(s.frames, f0 + bslz4_abi::kMaxPeakFrames), wtmax, out);
}

// Frames f0 to f1 of the staged batch: their labels, counts and sums into out (props appended).
void PeakLabeller::State::label_part(bool cp, std::size_t f0, std::size_t f1, const std::optional<double>& wtmax,
                                     PeakLabels& out) {
    using bslz4_abi::kPeakThreads;
    const std::size_t part = f1 - f0, p0 = pixel_first[f0], n = pixel_first[f1] - p0;
    if (n == 0) return;
    std::size_t most = 0;
    for (std::size_t f = f0; f < f1; ++f) most = std::max<std::size_t>(most, pixel_first[f + 1] - pixel_first[f]);
    const CUstream st = stream.get();
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak labels, before reusing its buffers)");
    grow(first_px, (part + 1) * 8, "peak labels: frame starts");
    grow(row, n * 2, "peak labels: rows");
    grow(col, n * 2, "peak labels: columns");
    grow(value, n * 4, "peak labels: values");
    grow(smoothed, n * 4, "peak labels: smoothed values");
    grow(link, n * 4, "peak labels: links");
    grow(is_root, n * 4, "peak labels: roots");
    grow(numbers, n * 4, "peak labels: numbers");
    grow(labels, n * 4, "peak labels: labels");
    grow(nlabels, part * 4, "peak labels: counts");
    grow(peak_first, (part + 1) * 8, "peak labels: peak starts");
    grow(starts, (part + 1) * 8, "peak labels: frame starts staged");
    std::uint64_t* part_first = reinterpret_cast<std::uint64_t*>(starts.data());
    for (std::size_t f = 0; f <= part; ++f) part_first[f] = pixel_first[f0 + f] - p0;
    check(driver().cuMemcpyHtoDAsync(first_px.get(), part_first, (part + 1) * 8, st), "cuMemcpyHtoDAsync(peak frame starts)");
    check(driver().cuMemcpyHtoDAsync(row.get(), staged_row() + p0, n * 2, st), "cuMemcpyHtoDAsync(peak rows)");
    check(driver().cuMemcpyHtoDAsync(col.get(), staged_col() + p0, n * 2, st), "cuMemcpyHtoDAsync(peak columns)");
    check(driver().cuMemcpyHtoDAsync(value.get(), staged_value() + p0, n * 4, st), "cuMemcpyHtoDAsync(peak values)");

    const unsigned blocks = static_cast<unsigned>(std::min<std::size_t>((most + kPeakThreads - 1) / kPeakThreads, 4096));
    const Grid per_pixel{blocks, static_cast<unsigned>(part), kPeakThreads, 0};
    queue_labels(cp, per_pixel, part);
    // The sums and their staging are sized by the peaks counted, not by the worst case of a
    // peak a pixel: the bench's dense frames list about 27 pixels a peak, and pinning 40 bytes
    // a listed pixel (some 20 MB for a batch of 64 of them) held up a job's first batch.
    PinnedParts count_part(peak_count);
    std::uint64_t peaks = 0;
    const std::uint8_t* count = download(peak_first.get() + part * 8, count_part, 8, st, "cuMemcpyDtoHAsync(peak count)");
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak count)");
    std::memcpy(&peaks, count, 8);
    if (peaks > n) throw Error(ErrorCode::gpu_fault, "peak labels: the GPU counted more peaks than pixels");
    grow(props, std::max<std::size_t>(peaks, 1) * 5 * 8, "peak labels: sums");
    grow(from_device, PinnedParts::aligned(n * 4) + PinnedParts::aligned(part * 4) + peaks * 5 * 8, "peak labels: results staged");
    PinnedParts down(from_device);
    check(driver().cuMemsetD8Async(props.get(), 0, peaks * 5 * 8, st), "cuMemsetD8Async(peak sums)");
    queue_measure(cp, per_pixel, wtmax);
    const std::uint8_t* got_labels = download(labels.get(), down, n * 4, st, "cuMemcpyDtoHAsync(peak labels)");
    const std::uint8_t* got_counts = download(nlabels.get(), down, part * 4, st, "cuMemcpyDtoHAsync(peak counts)");
    const std::uint8_t* got_sums = download(props.get(), down, peaks * 5 * 8, st, "cuMemcpyDtoHAsync(peak sums)");
    check(driver().cuStreamSynchronize(st), "cuStreamSynchronize(peak labels)");
    std::memcpy(out.labels.data() + p0, got_labels, n * 4);
    std::memcpy(out.nlabels.data() + f0, got_counts, part * 4);
    const std::size_t at = out.props.size();
    out.props.resize(at + peaks * 5);
    if (peaks) std::memcpy(out.props.data() + at, got_sums, peaks * 5 * 8);
    if (f0)
        for (std::size_t k = at + 4; k < out.props.size(); k += 5) out.props[k] += std::int64_t(f0);
}

}  // namespace bslz4::cuda
