// collect: turns the decode kernel's per-tile counts into each frame's list, in ascending
// pixel order and deterministic. scan: one thread block per frame does an exclusive scan of
// its tiles' counts (a frame has at most a few thousand tiles). write: one warp per tile that
// has hits copies the pixels the decode kernel staged for it to the tile's offset; a tile that
// was not staged (tile_staging.cuh) is listed from its dense pixels (16 bytes a lane), ranked
// with a warp scan. A frame with more than `cap` pixels is left to the host. With top pixels,
// a frame's list takes only the pixels above its chosen level, and only the first howmany.
// The lists of a group are packed end to end (frame_offsets), so one copy brings them home.
#include "bit_unshuffle.cuh"
#include "kernel_abi.h"
#include "pixel_cut.cuh"
#include "tile_scan.cuh"
#include "tile_staging.cuh"

extern "C" __global__ void __launch_bounds__(bslz4_abi::kScanThreads)
bslz4_scan_tiles(BSLZ4_KERNEL_PARAMS(BSLZ4_SCAN_TILES_ARGS)) {
    const uint32_t f = first_frame + blockIdx.x;
    const uint64_t total = bslz4_kernels::scan_frame_tiles(tile_count + uint64_t(f) * n_tiles, n_tiles,
                                                           tile_offset + uint64_t(f) * n_tiles);
    if (threadIdx.x == 0) npixels[f] = total;
}

// Where each frame's list starts in the group's packed lists: frames refused, or listed on
// the host (more than cap pixels), take no room. One thread: a batch has at most 64 frames,
// and the previous batch's offsets (same stream) are already there.
extern "C" __global__ void bslz4_frame_offsets(BSLZ4_KERNEL_PARAMS(BSLZ4_FRAME_OFFSETS_ARGS)) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    auto length = [&](uint32_t f) -> uint64_t {
        return status[f] == bslz4_abi::kFrameOk && npixels[f] <= cap ? npixels[f] : 0;
    };
    uint64_t at = first_frame ? frame_offset[first_frame - 1] + length(first_frame - 1) : 0;
    for (uint32_t f = first_frame; f < first_frame + n_frames; ++f) {
        frame_offset[f] = at;
        at += length(f);
    }
}

namespace bslz4_kernels {

// Which pixels a frame's list takes: above the call's cut and allowed by the mask, above the
// frame's top-pixel level too when one was chosen, and only the first `limit` of them.
struct ListRule {
    bslz4_abi::Cut cut;
    bslz4_abi::Cut level;
    bool use_level;
    uint64_t limit;

    template <class T>
    __device__ bool passes_levels(T v) const {
        return !use_level || above_cut(v, level);
    }
    template <class T>
    __device__ bool listed(T v, uint8_t mask) const {
        return mask != 0 && above_cut(v, cut) && passes_levels(v);
    }
};

// Lists a run of pixels in order: each lane takes `per_lane` consecutive pixels, the lanes'
// counts are scanned across the warp, and each lane writes its hits at its place.
template <class T, unsigned kPerLane>
__device__ inline void list_run(const T* frame, const uint8_t* mask, uint64_t first, const ListRule& rule,
                                uint64_t& at, T* out_v, uint32_t* out_i, unsigned lane) {
    T v[kPerLane];
    if (kPerLane * sizeof(T) == 16) {
        const uint4 raw = *reinterpret_cast<const uint4*>(frame + first + lane * kPerLane);
        memcpy(v, &raw, 16);
    } else {
#pragma unroll
        for (unsigned e = 0; e < kPerLane; ++e) v[e] = frame[first + lane * kPerLane + e];
    }
    unsigned hit_bits = 0;
#pragma unroll
    for (unsigned e = 0; e < kPerLane; ++e)
        hit_bits |= unsigned(rule.listed(v[e], mask[first + lane * kPerLane + e])) << e;
    const unsigned mine = __popc(hit_bits);
    unsigned before = mine;
    for (unsigned s = 1; s < 32; s <<= 1) {
        const unsigned up = __shfl_up_sync(0xFFFFFFFFu, before, s);
        if (lane >= s) before += up;
    }
    const unsigned total = __shfl_sync(0xFFFFFFFFu, before, 31);
    uint64_t pos = at + before - mine;
#pragma unroll
    for (unsigned e = 0; e < kPerLane; ++e)
        if (hit_bits >> e & 1) {
            if (pos < rule.limit) {
                out_v[pos] = v[e];
                out_i[pos] = uint32_t(first + lane * kPerLane + e);
            }
            ++pos;
        }
    at += total;
}

template <class T>
__device__ void write_tiles(const T* dense, uint32_t first_frame, const bslz4_abi::FrameGeometry& g, const uint8_t* mask,
                            bslz4_abi::Cut cut, const uint32_t* tile_count, const uint32_t* tile_offset,
                            const uint64_t* npixels, const uint32_t* status, uint64_t cap,
                            const uint64_t* frame_offset, const T* stage_values, const uint32_t* stage_indices,
                            const bslz4_abi::TopPixels& top, const int32_t* frame_level, const uint32_t* level_count,
                            T* values, uint32_t* indices) {
    using namespace bslz4_abi;
    constexpr unsigned kPerLane = 16 / sizeof(T);  // one 16-byte load a lane
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = blockIdx.x * kWarpsPerCta + warp;
    if (tile >= g.n_tiles) return;
    const uint32_t local = blockIdx.y, f = first_frame + local;
    const uint64_t t = uint64_t(f) * g.n_tiles + tile;
    // Refused frames, frames listed on the host, and tiles with nothing to list: no work.
    if (tile_count[t] == 0 || status[f] != kFrameOk || npixels[f] > cap) return;
    const int32_t chosen = top.active ? frame_level[f] : kNoLevel;
    // With a level chosen, the tile's offset counts the pixels above it (bslz4_top_choose).
    if (chosen != kNoLevel && level_count[(uint64_t(local) * top.n_levels + chosen) * g.n_tiles + tile] == 0) return;
    const ListRule rule{cut, top.levels[chosen == kNoLevel ? 0 : chosen], chosen != kNoLevel, npixels[f]};
    uint64_t at = tile_offset[t];
    if (at >= rule.limit) return;  // past the frame's first howmany
    const T* frame = dense + uint64_t(local) * g.dense_stride;
    const uint64_t first = tile < g.n_blocks ? uint64_t(tile) * g.block_elems : g.frame_pixels - g.tail_elems;
    const uint64_t end = tile < g.n_blocks ? min(g.frame_pixels - g.tail_elems, first + g.block_elems) : g.frame_pixels;
    T* out_v = values + frame_offset[f];
    uint32_t* out_i = indices + frame_offset[f];
    if (tile_is_staged(g, tile, tile_count[t])) {
        const uint64_t stage = tile_stage_at(g, local, tile);
        for (unsigned k0 = 0; k0 < tile_count[t]; k0 += 32) {
            const unsigned k = k0 + lane;
            const bool in = k < tile_count[t];
            const T v = in ? stage_values[stage + k] : T(0);
            const bool hit = in && rule.passes_levels(v);
            const unsigned ballot = __ballot_sync(0xFFFFFFFFu, hit);
            const uint64_t pos = at + __popc(ballot & ((1u << lane) - 1));
            if (hit && pos < rule.limit) {
                out_v[pos] = v;
                out_i[pos] = stage_indices[stage + k];
            }
            at += __popc(ballot);
        }
        return;
    }
    uint64_t base = first;
    for (; base + 32 * kPerLane <= end; base += 32 * kPerLane)
        list_run<T, kPerLane>(frame, mask, base, rule, at, out_v, out_i, lane);
    for (; base < end; base += 32)  // a short block's end, or the tail
        if (base + 32 <= end)
            list_run<T, 1>(frame, mask, base, rule, at, out_v, out_i, lane);
        else {
            const uint64_t i = base + lane;
            const bool in = i < end;
            const T v = in ? frame[i] : T(0);
            const bool hit = in && rule.listed(v, mask[i]);
            const unsigned ballot = __ballot_sync(0xFFFFFFFFu, hit);
            const uint64_t pos = at + __popc(ballot & ((1u << lane) - 1));
            if (hit && pos < rule.limit) {
                out_v[pos] = v;
                out_i[pos] = uint32_t(i);
            }
            at += __popc(ballot);
        }
}

}  // namespace bslz4_kernels

#define BSLZ4_WRITE_ENTRY(T, name)                                                                                   \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kWarpsPerCta * 32)                                       \
        bslz4_write_##name(BSLZ4_KERNEL_PARAMS(BSLZ4_WRITE_ARGS, T)) {                                                           \
        bslz4_kernels::write_tiles<T>(dense, first_frame, g, mask, cut, tile_count, tile_offset, npixels, status,   \
                                      cap, frame_offset, stage_values, stage_indices, top, frame_level, level_count, \
                                      values, indices);                                                              \
    }
BSLZ4_WRITE_ENTRY(uint8_t, u8)
BSLZ4_WRITE_ENTRY(uint16_t, u16)
BSLZ4_WRITE_ENTRY(uint32_t, u32)
BSLZ4_WRITE_ENTRY(int8_t, i8)
BSLZ4_WRITE_ENTRY(int16_t, i16)
BSLZ4_WRITE_ENTRY(int32_t, i32)
BSLZ4_WRITE_ENTRY(float, f32)
#undef BSLZ4_WRITE_ENTRY
