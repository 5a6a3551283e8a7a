// One thread block's exclusive scan of a frame's per-tile counts (a frame has at most a few
// thousand tiles, so one block of kScanThreads does it in one sweep): where each tile's pixels
// start in the frame's list, and the frame's total. Shared by the collect scan and the top-pixel
// choice, which scans the counts at the level it chose.
#pragma once
#include "kernel_abi.h"

namespace bslz4_kernels {

// Every thread of the block calls it; returns the total to every thread.
__device__ inline uint64_t scan_frame_tiles(const uint32_t* counts, uint32_t n_tiles, uint32_t* offsets) {
    using bslz4_abi::kScanThreads;
    __shared__ uint64_t warp_sums[kScanThreads / 32];
    __shared__ uint64_t total;
    const unsigned t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const uint32_t per = (n_tiles + kScanThreads - 1) / kScanThreads;
    const uint32_t begin = min(n_tiles, t * per), end = min(n_tiles, begin + per);
    uint64_t mine = 0;
    for (uint32_t i = begin; i < end; ++i) mine += counts[i];
    // Inclusive scan of the threads' sums: within warps, then over the warp totals.
    uint64_t incl = mine;
    for (unsigned s = 1; s < 32; s <<= 1) {
        const uint64_t up = __shfl_up_sync(0xFFFFFFFFu, incl, s);
        if (lane >= s) incl += up;
    }
    if (lane == 31) warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        uint64_t w = warp_sums[lane];
        for (unsigned s = 1; s < 32; s <<= 1) {
            const uint64_t up = __shfl_up_sync(0xFFFFFFFFu, w, s);
            if (lane >= s) w += up;
        }
        warp_sums[lane] = w;
    }
    __syncthreads();
    uint64_t run = incl - mine + (warp ? warp_sums[warp - 1] : 0);
    for (uint32_t i = begin; i < end; ++i) {
        offsets[i] = uint32_t(run);
        run += counts[i];
    }
    if (t == kScanThreads - 1) total = run;
    __syncthreads();
    const uint64_t result = total;
    __syncthreads();  // the block may scan again
    return result;
}

}  // namespace bslz4_kernels
