// integrate: powder = matrix @ frame for a batch of frames. One thread block per bin (CSR
// row): its threads take the bin's weights in a fixed stride, each keeping partial sums for
// kFramesPerPass frames at once, so a weight is read once per pass rather than once per frame,
// and a pixel's 16 values come in one contiguous load from the interleaved copy
// (interleave.cu); the partial sums are reduced in a fixed tree. No atomics: the result does
// not depend on timing, and with integer (fixed-point) weights it is exact (acc i64, and acc
// f64 where those sums are exact, each then rounded once to double as it is written).
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

constexpr unsigned kIntegrateThreads = 128;
using bslz4_abi::kFramesPerPass;

// A bin's sum as written: itself, or (acc f64 of fixed-point sums) the exact int64 sum rounded
// once to double and scaled by sum_to_f64, 1 / the scale, a power of two: exact.
template <class O, class A>
__device__ O finished(A sum, double sum_to_f64) {
    if constexpr (std::is_same<O, A>::value) return sum;
    else return O(sum) * sum_to_f64;
}

// T pixel, A the sums' type, W weight (float, or int64 fixed point), O the powder's type.
template <class T, class A, class W, class O>
__device__ void integrate_bins(const T* interleaved, uint64_t pixels, uint32_t n_frames, const uint32_t* row_start,
                               const uint32_t* pixel, const W* weight, uint32_t bins, O* powder, double sum_to_f64) {
    __shared__ A partial[kIntegrateThreads / 32][kFramesPerPass];  // 4 warps x 16 frames
    const uint32_t b = blockIdx.x;
    const uint32_t k0 = row_start[b], k1 = row_start[b + 1];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (uint32_t f0 = 0; f0 < n_frames; f0 += kFramesPerPass) {
        A acc[kFramesPerPass];
#pragma unroll
        for (unsigned j = 0; j < kFramesPerPass; ++j) acc[j] = A(0);
        const uint4* pass = reinterpret_cast<const uint4*>(interleaved + uint64_t(f0 / kFramesPerPass) * pixels * kFramesPerPass);
        for (uint32_t k = k0 + threadIdx.x; k < k1; k += kIntegrateThreads) {
            const uint32_t p = __ldg(pixel + k);
            const A w = A(__ldg(weight + k));
            uint4 words[sizeof(T)];
#pragma unroll
            for (unsigned q = 0; q < sizeof(T); ++q) words[q] = __ldg(pass + uint64_t(p) * sizeof(T) + q);
            T v[kFramesPerPass];
            memcpy(v, words, sizeof(v));
#pragma unroll
            for (unsigned j = 0; j < kFramesPerPass; ++j) acc[j] += w * A(v[j]);
        }
#pragma unroll
        for (unsigned j = 0; j < kFramesPerPass; ++j) {
            for (unsigned s = 16; s > 0; s >>= 1) acc[j] += __shfl_down_sync(0xFFFFFFFFu, acc[j], s);
            if (lane == 0) partial[warp][j] = acc[j];
        }
        __syncthreads();
        if (threadIdx.x < kFramesPerPass && f0 + threadIdx.x < n_frames) {
            A sum = A(0);
            for (unsigned w = 0; w < kIntegrateThreads / 32; ++w) sum += partial[w][threadIdx.x];
            powder[uint64_t(f0 + threadIdx.x) * bins + b] = finished<O>(sum, sum_to_f64);
        }
        __syncthreads();
    }
}

}  // namespace bslz4_kernels

// bslz4_integrate_<pixel>_<acc>: f64 and f32 take float weights; i64 takes the fixed-point
// matrix's int64 weights, and so does f64_fixed, acc f64 of exact fixed-point sums (integer
// pixels only). sum_to_f64 is read by f64_fixed alone.
#define BSLZ4_INTEGRATE_ENTRY(T, name, A, W, O, acc)                                                                 \
    extern "C" __global__ void __launch_bounds__(bslz4_kernels::kIntegrateThreads) bslz4_integrate_##name##_##acc( \
        const T* interleaved, uint64_t pixels, uint32_t n_frames, const uint32_t* row_start, const uint32_t* pixel, \
        const W* weight, uint32_t bins, O* powder, double sum_to_f64) {                                             \
        bslz4_kernels::integrate_bins<T, A, W, O>(interleaved, pixels, n_frames, row_start, pixel, weight, bins,    \
                                                  powder, sum_to_f64);                                              \
    }
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
