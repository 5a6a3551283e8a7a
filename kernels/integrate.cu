// integrate: powder = matrix @ frame for a batch of frames. One thread block per bin (CSR
// row): its threads take the bin's weights in a fixed stride, each keeping partial sums for
// kFramesPerPass frames at once, so a weight is read once per pass rather than once per frame,
// and a pixel's 16 values come in one contiguous load from the interleaved copy
// (interleave.cu); the partial sums are reduced in a fixed tree. No atomics: the result does
// not depend on timing, and with integer (fixed-point) weights it is exact.
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

constexpr unsigned kIntegrateThreads = 128;
using bslz4_abi::kFramesPerPass;

template <class T, class A, class W>
__device__ void integrate_bins(const T* interleaved, uint64_t pixels, uint32_t n_frames, const uint32_t* row_start,
                               const uint32_t* pixel, const W* weight, uint32_t bins, A* powder) {
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
            powder[uint64_t(f0 + threadIdx.x) * bins + b] = sum;
        }
        __syncthreads();
    }
}

}  // namespace bslz4_kernels

// bslz4_integrate_<pixel>_<acc>: f64 and f32 take float weights; i64 takes the fixed-point
// matrix's int32 weights (integer pixels only).
#define BSLZ4_INTEGRATE_ENTRY(T, name, A, acc, W)                                                                   \
    extern "C" __global__ void __launch_bounds__(bslz4_kernels::kIntegrateThreads) bslz4_integrate_##name##_##acc( \
        const T* interleaved, uint64_t pixels, uint32_t n_frames, const uint32_t* row_start, const uint32_t* pixel, \
        const W* weight, uint32_t bins, A* powder) {                                                                \
        bslz4_kernels::integrate_bins<T, A, W>(interleaved, pixels, n_frames, row_start, pixel, weight, bins,       \
                                               powder);                                                             \
    }
#define BSLZ4_INTEGRATE_FLOAT(T, name)                       \
    BSLZ4_INTEGRATE_ENTRY(T, name, double, f64, float)      \
    BSLZ4_INTEGRATE_ENTRY(T, name, float, f32, float)
#define BSLZ4_INTEGRATE_ALL(T, name) \
    BSLZ4_INTEGRATE_FLOAT(T, name)   \
    BSLZ4_INTEGRATE_ENTRY(T, name, long long, i64, int32_t)
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
