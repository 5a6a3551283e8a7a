// integrate: powder = matrix @ frame for a batch of frames. A bin (CSR row) is summed by one
// warp, or by a whole block of 4 warps when rows are long (the host picks the kernel): its
// threads take the row's weights in a fixed stride, each keeping partial sums for
// kFramesPerPass frames at once, so a weight is read once per pass rather than once per frame,
// and a pixel's 16 values come in one contiguous load from the interleaved copy
// (interleave.cu). A warp's 32 x 16 partial sums are reduced by a butterfly that halves the
// frames a lane holds at each step (16 shuffles, not 16 x 5), then, for a block, the 4 warps'
// sums are added in a fixed order. No atomics: the result does not depend on timing, and with
// integer (fixed-point) weights it is exact (acc i64, and acc f64 where those sums are exact,
// each then rounded once to double as it is written). Why two shapes: a 1D powder's rows hold
// thousands of weights (a block's 128 threads each get many), a 2D powder's (pyFAI
// integrate2d: 100,000 bins) a few dozen, where a block per row spent its time reducing.
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

using bslz4_abi::kFramesPerPass;
using bslz4_abi::kIntegrateThreads;
using bslz4_abi::kIntegrateWarps;
static_assert(kFramesPerPass == 16, "the butterfly below halves 16 frames four times");

// A bin's sum as written: itself, or (acc f64 of fixed-point sums) the exact int64 sum rounded
// once to double and scaled by sum_to_f64, 1 / the scale, a power of two: exact.
template <class O, class A>
__device__ O finished(A sum, double sum_to_f64) {
    if constexpr (std::is_same<O, A>::value) return sum;
    else return O(sum) * sum_to_f64;
}

// One step of butterfly_sum: across lanes `half` x 2 apart, a lane keeps the half of its
// 2 x half partial sums its lane bit selects and adds its partner's of that half.
template <unsigned half, class A>
__device__ inline void butterfly_step(A acc[kFramesPerPass], unsigned lane) {
    const bool upper = lane & (2 * half);
#pragma unroll
    for (unsigned j = 0; j < half; ++j) {
        const A send = upper ? acc[j] : acc[j + half];
        const A keep = upper ? acc[j + half] : acc[j];
        acc[j] = keep + __shfl_xor_sync(0xFFFFFFFFu, send, 2 * half);
    }
}

// The warp's sums of acc[0..15] over its 32 lanes: afterwards lanes 2f and 2f + 1 both hold
// frame f's, in acc[0] (the step across 16 lanes leaves frame bit 3 in lane bit 4, and so on).
template <class A>
__device__ inline void butterfly_sum(A acc[kFramesPerPass], unsigned lane) {
    butterfly_step<8>(acc, lane);
    butterfly_step<4>(acc, lane);
    butterfly_step<2>(acc, lane);
    butterfly_step<1>(acc, lane);
    acc[0] += __shfl_xor_sync(0xFFFFFFFFu, acc[0], 1);
}

// One row's sums for the pass at f0, by kRowThreads threads (a warp, or the block), each
// this lane's part of 16 frames' partial sums. A thread's steps are a chain of two dependent
// loads (the entry's pixel, then that pixel's 16 frames), so it takes kUnroll entries at a time,
// their loads all issued before any sum: the kernel waits on memory latency, not bandwidth.
template <unsigned kRowThreads, unsigned kUnroll, class T, class A, class W>
__device__ inline void sum_row_part(const uint4* pass, uint32_t k0, uint32_t k1, unsigned first, const uint32_t* pixel,
                                    const W* weight, A acc[kFramesPerPass]) {
#pragma unroll
    for (unsigned j = 0; j < kFramesPerPass; ++j) acc[j] = A(0);
    for (uint32_t k = k0 + first; k < k1; k += kUnroll * kRowThreads) {
        uint32_t p[kUnroll];
        W w[kUnroll];
#pragma unroll
        for (unsigned u = 0; u < kUnroll; ++u) {
            const bool in = k + u * kRowThreads < k1;
            p[u] = in ? __ldg(pixel + k + u * kRowThreads) : 0u;  // past the row: pixel 0, not summed
            w[u] = in ? __ldg(weight + k + u * kRowThreads) : W(0);
        }
        uint4 words[kUnroll][sizeof(T)];
#pragma unroll
        for (unsigned u = 0; u < kUnroll; ++u)
#pragma unroll
            for (unsigned q = 0; q < sizeof(T); ++q) words[u][q] = __ldg(pass + uint64_t(p[u]) * sizeof(T) + q);
#pragma unroll
        for (unsigned u = 0; u < kUnroll; ++u) {
            if (k + u * kRowThreads >= k1) break;  // (a NaN pixel times a weight of 0 is not 0)
            T v[kFramesPerPass];
            memcpy(v, words[u], sizeof(v));
            const A wu = A(w[u]);
#pragma unroll
            for (unsigned j = 0; j < kFramesPerPass; ++j) acc[j] += wu * A(v[j]);
        }
    }
}

// T pixel, A the sums' type, W weight (float, or int64 fixed point), O the powder's type.
// kRowThreads: 32 (a warp a row, kIntegrateWarps rows a block) or kIntegrateThreads.
template <unsigned kRowThreads, unsigned kUnroll, class T, class A, class W, class O>
__device__ void integrate_bins(const T* interleaved, uint64_t pixels, uint32_t n_frames, const uint32_t* row_start,
                               const uint32_t* pixel, const W* weight, uint32_t bins, O* powder, double sum_to_f64) {
    constexpr bool kWholeBlock = kRowThreads == kIntegrateThreads;
    __shared__ A partial[kIntegrateWarps][kFramesPerPass];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t b = kWholeBlock ? blockIdx.x : blockIdx.x * kIntegrateWarps + warp;
    if (!kWholeBlock && b >= bins) return;  // the whole warp: no barrier in this shape
    const uint32_t k0 = row_start[b], k1 = row_start[b + 1];
    const unsigned frame = (lane >> 1) & (kFramesPerPass - 1);  // the frame butterfly_sum leaves in this lane
    for (uint32_t f0 = 0; f0 < n_frames; f0 += kFramesPerPass) {
        const uint4* pass = reinterpret_cast<const uint4*>(interleaved + uint64_t(f0 / kFramesPerPass) * pixels * kFramesPerPass);
        A acc[kFramesPerPass];
        sum_row_part<kRowThreads, kUnroll, T>(pass, k0, k1, kWholeBlock ? threadIdx.x : lane, pixel, weight, acc);
        butterfly_sum(acc, lane);
        if (!kWholeBlock) {
            if (!(lane & 1) && f0 + frame < n_frames) powder[uint64_t(f0 + frame) * bins + b] = finished<O>(acc[0], sum_to_f64);
            continue;
        }
        if (!(lane & 1)) partial[warp][frame] = acc[0];
        __syncthreads();
        if (threadIdx.x < kFramesPerPass && f0 + threadIdx.x < n_frames) {
            A sum = A(0);
            for (unsigned w = 0; w < kIntegrateWarps; ++w) sum += partial[w][threadIdx.x];
            powder[uint64_t(f0 + threadIdx.x) * bins + b] = finished<O>(sum, sum_to_f64);
        }
        __syncthreads();
    }
}

}  // namespace bslz4_kernels

// bslz4_integrate_<pixel>_<acc>_<shape>: f64 and f32 take float weights; i64 takes the
// fixed-point matrix's int64 weights, and so does f64_fixed, acc f64 of exact fixed-point sums
// (integer pixels only). sum_to_f64 is read by f64_fixed alone. Shape warp: a warp a row, one
// block every 4 rows, an entry a step; shape block: a block a row, 4 entries a step (a 1D
// powder's thousands of weights a row). Each shape its own kernel, so that each gets its own
// registers (H200, u16, 64 frames: 2,000 bins 405 -> 325 us with 4 entries a step; 1,500 x 72
// bins, warp shape, 421 -> 444 us with 4, its occupancy falling from 47 to 36 %, none gained with 2).
#define BSLZ4_INTEGRATE_SHAPE(T, name, A, W, O, acc, shape, kRowThreads, kUnroll)                                   \
    extern "C" __global__ void __launch_bounds__(bslz4_kernels::kIntegrateThreads) bslz4_integrate_##name##_##acc##_##shape(BSLZ4_KERNEL_PARAMS(BSLZ4_INTEGRATE_ARGS, T, W, O)) {                     \
        bslz4_kernels::integrate_bins<kRowThreads, kUnroll, T, A, W, O>(interleaved, pixels, n_frames, row_start,    \
                                                                        pixel, weight, bins, powder, sum_to_f64);   \
    }
#define BSLZ4_INTEGRATE_ENTRY(T, name, A, W, O, acc)             \
    BSLZ4_INTEGRATE_SHAPE(T, name, A, W, O, acc, warp, 32, 1) \
    BSLZ4_INTEGRATE_SHAPE(T, name, A, W, O, acc, block, bslz4_kernels::kIntegrateThreads, 4)
#define BSLZ4_INTEGRATE_FLOAT(T, name)                           \
    BSLZ4_INTEGRATE_ENTRY(T, name, double, float, double, f64) \
    BSLZ4_INTEGRATE_ENTRY(T, name, float, float, float, f32)
#define BSLZ4_INTEGRATE_ALL(T, name)                                         \
    BSLZ4_INTEGRATE_FLOAT(T, name)                                           \
    BSLZ4_INTEGRATE_ENTRY(T, name, long long, long long, long long, i64)   \
    BSLZ4_INTEGRATE_ENTRY(T, name, long long, long long, double, f64_fixed)
BSLZ4_INTEGRATE_ALL(uint8_t, u8)
BSLZ4_INTEGRATE_ALL(uint16_t, u16)
BSLZ4_INTEGRATE_ALL(uint32_t, u32)
BSLZ4_INTEGRATE_ALL(int8_t, i8)
BSLZ4_INTEGRATE_ALL(int16_t, i16)
BSLZ4_INTEGRATE_ALL(int32_t, i32)
BSLZ4_INTEGRATE_FLOAT(float, f32)
#undef BSLZ4_INTEGRATE_ALL
#undef BSLZ4_INTEGRATE_FLOAT
#undef BSLZ4_INTEGRATE_ENTRY
#undef BSLZ4_INTEGRATE_SHAPE
