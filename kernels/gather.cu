// gather: chunks the caller holds in device memory (from_device), wherever they lie in its
// buffer, copied end to end into a slot's chunk buffer at the offsets the host packed, so every
// later kernel reads them as it reads uploaded chunks (with the buffer's padding past the last,
// never past the caller's allocation). One thread block a chunk: the copy is a few hundred kB a
// frame, memory bound, and 16-byte loads and stores where both ends allow them. Reads stay in
// [src + src_offset, + length) and writes in [dst + dst_offset, + length): the host checked
// both against their buffers.
#include "kernel_abi.h"

extern "C" __global__ void __launch_bounds__(bslz4_abi::kGatherThreads)
bslz4_gather_chunks(BSLZ4_KERNEL_PARAMS(BSLZ4_GATHER_ARGS)) {
    const uint32_t k = first + blockIdx.x;
    const uint8_t* from = src + src_offset[k];
    uint8_t* to = dst + dst_offset[k];
    const uint64_t n = length[k];
    uint64_t head = 0;
    // Bytes up to the first 16-byte boundary of both, when they share one alignment.
    if ((reinterpret_cast<uintptr_t>(from) & 15) == (reinterpret_cast<uintptr_t>(to) & 15)) {
        head = (16 - (reinterpret_cast<uintptr_t>(from) & 15)) & 15;
        if (head > n) head = n;
        const uint64_t words = (n - head) / 16;
        const uint4* wf = reinterpret_cast<const uint4*>(from + head);
        uint4* wt = reinterpret_cast<uint4*>(to + head);
        for (uint64_t w = threadIdx.x; w < words; w += blockDim.x) wt[w] = wf[w];
        for (uint64_t i = threadIdx.x; i < head; i += blockDim.x) to[i] = from[i];
        head += words * 16;  // the bytes after the words remain
        for (uint64_t i = head + threadIdx.x; i < n; i += blockDim.x) to[i] = from[i];
        return;
    }
    for (uint64_t i = threadIdx.x; i < n; i += blockDim.x) to[i] = from[i];
}
