// peak_labels: ImageD11's per-frame peak labelling (the rules of tools/peaks/frame_labels.hpp,
// lmlabel and cplabel) on a batch of frames' sorted lists. Every kernel but the numbering runs
// one thread per listed pixel, blocks of a frame along x and frames along y, so each thread
// knows its frame's list [first[f], first[f + 1]) without a search. A pixel finds the pixels of
// its 3x3 window by binary search of the rows above and below in its frame's list (the list is
// sorted by row then column, so they are contiguous runs), in raster order, as the CPU walks
// them: the smoothing adds its products in that order, each rounded (no fused multiply-add), so
// the float32 sums are the CPU's to the bit. The maxima are found by pointer jumping (each pixel
// points up the smoothed slope, to a maximum in a few rounds), cplabel's groups by a lock-free
// union-find that links the larger root under the smaller, so a group's root is its first
// pixel; the numbering (a block a frame) is the exclusive scan of the roots in pixel order.
// Reads the lists; writes links, labels, per-frame counts and the peaks' five sums. Every index
// stays inside its frame's list: nothing here trusts a value it has not bounded.
#include "kernel_abi.h"
#include "tile_scan.cuh"

namespace bslz4_kernels {

// The listed pixels of pixel k's 3x3 window, in raster order, and where k itself is among them.
struct PixelWindow {
    uint32_t at[9];
    unsigned n, self;
};

// The first index in [lo, hi) whose (row, col) is not below (r, c).
__device__ inline uint64_t lower_bound_rc(const uint16_t* row, const uint16_t* col, uint64_t lo, uint64_t hi, long r, long c) {
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (long(row[mid]) < r || (long(row[mid]) == r && long(col[mid]) < c))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

__device__ inline PixelWindow window_of(const uint16_t* row, const uint16_t* col, uint64_t s, uint64_t e, uint64_t k) {
    PixelWindow w;
    w.n = 0;
    const long r = row[k], c = col[k];
    if (r > 0)
        for (uint64_t p = lower_bound_rc(row, col, s, k, r - 1, c - 1); p < k && long(row[p]) == r - 1 && long(col[p]) <= c + 1; ++p)
            w.at[w.n++] = uint32_t(p - s);
    if (k > s && long(row[k - 1]) == r && long(col[k - 1]) == c - 1) w.at[w.n++] = uint32_t(k - 1 - s);
    w.self = w.n;
    w.at[w.n++] = uint32_t(k - s);
    if (k + 1 < e && long(row[k + 1]) == r && long(col[k + 1]) == c + 1) w.at[w.n++] = uint32_t(k + 1 - s);
    for (uint64_t p = lower_bound_rc(row, col, k + 1, e, r + 1, c - 1); p < e && long(row[p]) == r + 1 && long(col[p]) <= c + 1; ++p)
        w.at[w.n++] = uint32_t(p - s);
    return w;
}

// Pixel links are frame-relative: link[s + i] is a pixel of the same frame, i < n.
__device__ inline uint32_t root_of(const volatile uint32_t* link, uint32_t x) {
    for (uint32_t up = link[x]; up != x; up = link[x]) x = up;
    return x;
}

}  // namespace bslz4_kernels

#define BSLZ4_FRAME_PIXELS(k, s, e)                                                                                \
    const uint64_t s = first[blockIdx.y], e = first[blockIdx.y + 1];                                               \
    for (uint64_t k = s + uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; k < e; k += uint64_t(gridDim.x) * blockDim.x)

// Every pixel its own root, before the links are made.
extern "C" __global__ void bslz4_peaks_identity(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_IDENTITY_ARGS)) {
    BSLZ4_FRAME_PIXELS(k, s, e) link[k] = uint32_t(k - s);
}

// lmlabel, 1: the smoothed intensity, [[1,2,1],[2,4,2],[1,2,1]] / 16 over the listed pixels.
extern "C" __global__ void bslz4_peaks_smooth(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_SMOOTH_ARGS)) {
    const float m = 1.0f / 16.0f;
    BSLZ4_FRAME_PIXELS(k, s, e) {
        const bslz4_kernels::PixelWindow w = bslz4_kernels::window_of(row, col, s, e, k);
        float acc = __fmul_rn(value[k], m);
        for (unsigned i = 0; i < w.n; ++i) {
            const uint64_t p = s + w.at[i];
            const int di = int(row[p]) - int(row[k]), dj = int(col[p]) - int(col[k]);
            acc = __fadd_rn(acc, __fmul_rn(value[p], __fmul_rn(m, float(3 - (di * di + dj * dj)))));
        }
        smoothed[k] = acc;
    }
}

// lmlabel, 2: each pixel links to the largest smoothed value of its window (ties: the first).
extern "C" __global__ void bslz4_peaks_uphill(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_UPHILL_ARGS)) {
    BSLZ4_FRAME_PIXELS(k, s, e) {
        const bslz4_kernels::PixelWindow w = bslz4_kernels::window_of(row, col, s, e, k);
        uint32_t best = w.at[0];
        for (unsigned i = 1; i < w.n; ++i)
            if (smoothed[s + w.at[i]] > smoothed[s + best]) best = w.at[i];
        link[k] = best;
    }
}

// cplabel, 1: the pixels above 0 joined with their earlier 8-neighbours above 0. A pixel not
// above 0 links to itself and joins nothing.
extern "C" __global__ void bslz4_peaks_join(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_JOIN_ARGS)) {
    BSLZ4_FRAME_PIXELS(k, s, e) {
        if (!(value[k] > 0.0f)) continue;
        volatile uint32_t* frame_link = link + s;
        const bslz4_kernels::PixelWindow w = bslz4_kernels::window_of(row, col, s, e, k);
        for (unsigned i = 0; i < w.self; ++i) {
            if (!(value[s + w.at[i]] > 0.0f)) continue;
            uint32_t a = uint32_t(k - s), b = w.at[i];
            for (;;) {
                a = bslz4_kernels::root_of(frame_link, a);
                b = bslz4_kernels::root_of(frame_link, b);
                if (a == b) break;
                if (a < b) {
                    const uint32_t t = a;
                    a = b;
                    b = t;
                }
                // a, the larger root, goes under b unless another thread moved it first.
                const uint32_t old = atomicCAS(link + s + a, a, b);
                if (old == a) break;
                a = old;
            }
        }
    }
}

// Both, after the links: each pixel's link jumped to its root; roots flagged (cplabel: above 0).
extern "C" __global__ void bslz4_peaks_roots(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_ROOTS_ARGS)) {
    BSLZ4_FRAME_PIXELS(k, s, e) {
        const volatile uint32_t* frame_link = link + s;
        const uint32_t i = uint32_t(k - s), root = bslz4_kernels::root_of(frame_link, i);
        link[k] = root;
        is_root[k] = root == i && (!above_zero_only || value[k] > 0.0f);
    }
}

// A block of kScanThreads a frame: the roots numbered in pixel order, and the frame's count.
extern "C" __global__ void __launch_bounds__(bslz4_abi::kScanThreads)
bslz4_peaks_number(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_NUMBER_ARGS)) {
    const uint64_t s = first[blockIdx.x], e = first[blockIdx.x + 1];
    const uint64_t total = bslz4_kernels::scan_frame_tiles(is_root + s, uint32_t(e - s), number + s);
    if (threadIdx.x == 0) nlabels[blockIdx.x] = uint32_t(total);
}

// Each pixel's label, its root's number + 1 (cplabel: 0 not above 0); the peaks' sums, each
// peak at peak_first[f] + label - 1, 5 values: pixels, sum w, sum row w, sum col w, frame. The
// weights are the CPU's: float32 truncated to int64, clipped at wtmax (has_wtmax). The sums are
// exact in int64; the host checks they stay below 2^53, where float64 (ImageD11's) is exact too.
extern "C" __global__ void bslz4_peaks_measure(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_MEASURE_ARGS)) {
    BSLZ4_FRAME_PIXELS(k, s, e) {
        if (above_zero_only && !(value[k] > 0.0f)) {
            labels[k] = 0;
            continue;
        }
        const uint32_t label = number[s + link[k]] + 1;
        labels[k] = int32_t(label);
        long long w = (long long)value[k];
        if (has_wtmax && double(w) > wtmax) w = (long long)wtmax;
        unsigned long long* p = props + 5 * (peak_first[blockIdx.y] + label - 1);
        atomicAdd(p, 1ull);
        atomicAdd(p + 1, (unsigned long long)w);
        atomicAdd(p + 2, (unsigned long long)(w * (long long)row[k]));
        atomicAdd(p + 3, (unsigned long long)(w * (long long)col[k]));
        p[4] = blockIdx.y;
    }
}

// One block: where each frame's peaks start (an exclusive scan of nlabels over the frames).
extern "C" __global__ void __launch_bounds__(bslz4_abi::kScanThreads)
bslz4_peaks_first(BSLZ4_KERNEL_PARAMS(BSLZ4_PEAKS_FIRST_ARGS)) {
    __shared__ uint32_t offsets[bslz4_abi::kMaxPeakFrames];
    const uint64_t total = bslz4_kernels::scan_frame_tiles(nlabels, frames, offsets);
    for (uint32_t f = threadIdx.x; f < frames; f += blockDim.x) peak_first[f] = offsets[f];
    if (threadIdx.x == 0) peak_first[frames] = total;
}

#undef BSLZ4_FRAME_PIXELS
