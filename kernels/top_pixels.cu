// top pixels (the seed's howmany / thresholds) on the device, between the collect scan and the
// write. levels: one warp a tile, as the write kernel, counts the tile's listed pixels (above
// the cut, allowed by the mask) above each level, from the tile's staging slots or its dense
// pixels, whichever the write kernel would read; only frames with more than howmany pixels
// above the cut do this. choose: one block a frame sums those counts over the tiles, picks the
// first level fewer than howmany pixels pass (else the last), and rescans the tiles' counts
// at that level into the tile offsets, so the write kernel lists the frame's first howmany
// pixels above it in pixel order. The counts are per tile, not per frame, because the write
// kernel needs each tile's start at the chosen level; a frame's lists never leave the device.
#include "kernel_abi.h"
#include "pixel_cut.cuh"
#include "tile_scan.cuh"
#include "tile_staging.cuh"

namespace bslz4_kernels {

// A frame's counts at each level: level_count[(local * n_levels + level) * n_tiles + tile].
__device__ inline uint64_t level_at(uint32_t local, uint32_t n_levels, uint32_t level, uint32_t n_tiles) {
    return (uint64_t(local) * n_levels + level) * n_tiles;
}

template <class T>
__device__ void count_levels(const T* dense, uint32_t first_frame, const bslz4_abi::FrameGeometry& g, const uint8_t* mask,
                             const bslz4_abi::Cut& cut, const bslz4_abi::TopPixels& top, const uint32_t* tile_count,
                             const uint64_t* npixels, const uint32_t* status, const T* stage_values,
                             uint32_t* level_count) {
    using namespace bslz4_abi;
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = blockIdx.x * kWarpsPerCta + warp;
    if (tile >= g.n_tiles) return;
    const uint32_t local = blockIdx.y, f = first_frame + local;
    if (status[f] != kFrameOk || npixels[f] <= top.howmany) return;  // bslz4_top_choose reads no counts of it
    const uint32_t count = tile_count[uint64_t(f) * g.n_tiles + tile];
    uint32_t above[kMaxTopLevels] = {};
    auto tally = [&](T v) {
#pragma unroll
        for (unsigned l = 0; l < kMaxTopLevels; ++l)
            if (l < top.n_levels) above[l] += above_cut(v, top.levels[l]);
    };
    if (count != 0 && tile_is_staged(g, tile, count)) {
        const uint64_t stage = tile_stage_at(g, local, tile);
        for (unsigned k = lane; k < count; k += 32) tally(stage_values[stage + k]);
    } else if (count != 0) {
        const T* frame = dense + uint64_t(local) * g.dense_stride;
        const uint64_t first = tile < g.n_blocks ? uint64_t(tile) * g.block_elems : g.frame_pixels - g.tail_elems;
        const uint64_t end = tile < g.n_blocks ? min(g.frame_pixels - g.tail_elems, first + g.block_elems) : g.frame_pixels;
        for (uint64_t i = first + lane; i < end; i += 32) {
            const T v = frame[i];
            if (mask[i] && above_cut(v, cut)) tally(v);
        }
    }
#pragma unroll
    for (unsigned l = 0; l < kMaxTopLevels; ++l) {
        if (l >= top.n_levels) break;
        uint32_t sum = above[l];
        for (unsigned s = 16; s > 0; s >>= 1) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, s);
        if (lane == 0) level_count[level_at(local, top.n_levels, l, g.n_tiles) + tile] = sum;
    }
}

}  // namespace bslz4_kernels

#define BSLZ4_TOP_LEVELS_ENTRY(T, name)                                                                                \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kWarpsPerCta * 32)                                         \
        bslz4_top_levels_##name(BSLZ4_KERNEL_PARAMS(BSLZ4_TOP_LEVELS_ARGS, T)) {                                                               \
        bslz4_kernels::count_levels<T>(dense, first_frame, g, mask, cut, top, tile_count, npixels, status,             \
                                       stage_values, level_count);                                                     \
    }
BSLZ4_TOP_LEVELS_ENTRY(uint8_t, u8)
BSLZ4_TOP_LEVELS_ENTRY(uint16_t, u16)
BSLZ4_TOP_LEVELS_ENTRY(uint32_t, u32)
BSLZ4_TOP_LEVELS_ENTRY(int8_t, i8)
BSLZ4_TOP_LEVELS_ENTRY(int16_t, i16)
BSLZ4_TOP_LEVELS_ENTRY(int32_t, i32)
BSLZ4_TOP_LEVELS_ENTRY(float, f32)
#undef BSLZ4_TOP_LEVELS_ENTRY

// npixels[f] becomes the length of the frame's list (at most howmany); frame_level[f] the level
// chosen (kNoLevel: the call's cut kept) and nabove[f] the pixels above the frame's final cut
// before the list was cut to howmany (the seed's last_nabove). A refused frame: kNoLevel and 0.
extern "C" __global__ void __launch_bounds__(bslz4_abi::kScanThreads)
bslz4_top_choose(BSLZ4_KERNEL_PARAMS(BSLZ4_TOP_CHOOSE_ARGS)) {
    using namespace bslz4_abi;
    __shared__ unsigned long long sums[kMaxTopLevels];
    const uint32_t local = blockIdx.x, f = first_frame + local;
    const unsigned t = threadIdx.x;
    const uint64_t n = npixels[f];
    if (status[f] != kFrameOk || n <= top.howmany || top.n_levels == 0) {
        if (t == 0) {
            frame_level[f] = kNoLevel;
            nabove[f] = status[f] == kFrameOk ? n : 0;
            if (status[f] == kFrameOk && n > top.howmany) npixels[f] = top.howmany;  // no levels: the first howmany
        }
        return;
    }
    if (t < kMaxTopLevels) sums[t] = 0;
    __syncthreads();
    uint64_t mine[kMaxTopLevels] = {};
    for (uint32_t tile = t; tile < n_tiles; tile += blockDim.x)
#pragma unroll
        for (unsigned l = 0; l < kMaxTopLevels; ++l)
            if (l < top.n_levels) mine[l] += level_count[bslz4_kernels::level_at(local, top.n_levels, l, n_tiles) + tile];
#pragma unroll
    for (unsigned l = 0; l < kMaxTopLevels; ++l)
        if (l < top.n_levels && mine[l]) atomicAdd(&sums[l], static_cast<unsigned long long>(mine[l]));
    __syncthreads();
    uint32_t chosen = top.n_levels - 1;
    for (uint32_t l = 0; l < top.n_levels; ++l)
        if (sums[l] < top.howmany) {
            chosen = l;
            break;
        }
    const uint64_t above = sums[chosen];
    bslz4_kernels::scan_frame_tiles(level_count + bslz4_kernels::level_at(local, top.n_levels, chosen, n_tiles), n_tiles,
                                    tile_offset + uint64_t(f) * n_tiles);
    if (t == 0) {
        npixels[f] = above < top.howmany ? above : top.howmany;
        frame_level[f] = int32_t(chosen);
        nabove[f] = above;
    }
}
