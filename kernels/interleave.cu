// interleave: lays a batch's dense frames side by side for the integrate kernel, 16 frames a
// pass: out[pass][pixel][frame % 16]. One thread per pixel and pass reads the pixel from each
// of the pass's frames (consecutive threads, consecutive pixels: coalesced) and writes the 16
// values as one contiguous run. Why: integrate gathers pixels in the matrix's bin order,
// scattered over the frame; from frame-major frames each gather of one pixel touches 16
// sectors of 32 bytes for 16 values, from the interleaved copy one or two sectors.
#include "kernel_abi.h"

namespace bslz4_kernels {

template <class T>
__device__ void interleave_frames(const T* dense, uint64_t dense_stride, uint32_t n_frames, uint64_t pixels, T* out) {
    using bslz4_abi::kFramesPerPass;
    using bslz4_abi::kInterleaveThreads;
    const uint64_t p = uint64_t(blockIdx.x) * kInterleaveThreads + threadIdx.x;
    if (p >= pixels) return;
    const uint32_t f0 = blockIdx.y * kFramesPerPass;
    T v[kFramesPerPass];
#pragma unroll
    for (unsigned j = 0; j < kFramesPerPass; ++j) v[j] = f0 + j < n_frames ? dense[uint64_t(f0 + j) * dense_stride + p] : T(0);
    uint4* dst = reinterpret_cast<uint4*>(out + (uint64_t(blockIdx.y) * pixels + p) * kFramesPerPass);
    uint4 words[sizeof(T)];
    memcpy(words, v, sizeof(v));
#pragma unroll
    for (unsigned q = 0; q < sizeof(T); ++q) dst[q] = words[q];
}

}  // namespace bslz4_kernels

#define BSLZ4_INTERLEAVE_ENTRY(T, name)                                                                       \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kInterleaveThreads) bslz4_interleave_##name(BSLZ4_KERNEL_PARAMS(BSLZ4_INTERLEAVE_ARGS, T)) {                  \
        bslz4_kernels::interleave_frames<T>(dense, dense_stride, n_frames, pixels, out);                     \
    }
BSLZ4_INTERLEAVE_ENTRY(uint8_t, u8)
BSLZ4_INTERLEAVE_ENTRY(uint16_t, u16)
BSLZ4_INTERLEAVE_ENTRY(uint32_t, u32)
BSLZ4_INTERLEAVE_ENTRY(int8_t, i8)
BSLZ4_INTERLEAVE_ENTRY(int16_t, i16)
BSLZ4_INTERLEAVE_ENTRY(int32_t, i32)
BSLZ4_INTERLEAVE_ENTRY(float, f32)
#undef BSLZ4_INTERLEAVE_ENTRY
