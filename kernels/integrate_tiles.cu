// integrate_tiles: powders = matrix @ frames, read from the batch's dense frames as they are.
// One thread block takes one tile of 32 x 32 pixels. It copies the tile's matrix entries into
// its shared memory once (when they fit), then, a pass of frames at a time (16, or 8 of 4-byte
// pixels: 32 kB), loads the pass's tile of each frame beside them, rows of the tile side by
// side (coalesced), and sums the tile's slots (tile_matrix.hpp: a slot is the tile's entries of
// one bin): 4 threads a slot, each 4 frames, so that an entry's two loads serve 4 sums. Each
// slot's sums go to partial[slot][frame]; reduce_tiles then adds each bin's slots in tile order.
// Shaped so because pixels near one another fall in few bins: a tile of an Eiger 4M frame has
// about 55 slots (2,000 radial bins), so the frames are read once, in order, where summing bin by
// bin gathers each pixel of every frame from wherever the matrix points. The entries are staged
// because a warp's 8 slots read 8 places at once: from global memory, 8 cache lines a load.
// No atomics: the sums do not depend on timing, and with integer weights (acc i64, and f64 of
// exact fixed-point sums) they are exact.
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

using bslz4_abi::kReduceWarps;
using bslz4_abi::kTilePixels;
using bslz4_abi::kTileSide;
using bslz4_abi::kTileStagedEntries;
using bslz4_abi::kTileThreads;

// A bin's sum as written: itself, or (acc f64 of fixed-point sums) the exact int64 sum rounded
// once to double and scaled by sum_to_f64, 1 / the scale, a power of two: exact.
template <class O, class A>
__device__ O finished(A sum, double sum_to_f64) {
    if constexpr (std::is_same<O, A>::value) return sum;
    else return O(sum) * sum_to_f64;
}

// Frames a thread sums, sharing each entry's loads among them.
constexpr unsigned kThreadFrames = 4;

// The pass's frames f0.. of the tile into shared memory, kVec pixels a load (8 bytes where the
// frame's rows keep 8-byte alignment, an Eiger 4M frame's 2,068 u16 pixels among them; one pixel
// otherwise). A thread's loads are issued 8 at a time before it stores any: the kernel would
// otherwise wait on each load's latency in turn.
template <class T, unsigned kVec>
__device__ inline void load_tile(const T* dense, uint64_t dense_stride, uint32_t rows, uint32_t cols, uint32_t r0, uint32_t c0,
                                 uint32_t f0, uint32_t n_frames, T* tile) {
    struct alignas(sizeof(T) * kVec) Pixels {
        T v[kVec];
    };
    constexpr unsigned kPass = bslz4_abi::tile_pass_frames(sizeof(T)), kStride = bslz4_abi::tile_row_stride(sizeof(T));
    constexpr unsigned kRowLoads = kTileSide / kVec, kRowsAtOnce = kTileThreads / kRowLoads;
    // The pass's kPass x kTileSide rows of the tile, kRowsAtOnce a round of loads.
    constexpr unsigned kLoads = kPass * kTileSide / kRowsAtOnce, kBatch = kLoads < 8 ? kLoads : 8;
    static_assert(kTileThreads % kRowLoads == 0 && (kPass * kTileSide) % kRowsAtOnce == 0 && kLoads % kBatch == 0, "whole batches");
    const unsigned col = (threadIdx.x % kRowLoads) * kVec, row0 = threadIdx.x / kRowLoads;
    const bool col_in = c0 + col < cols;  // kVec > 1: cols is a multiple of kVec, so all or none
#pragma unroll
    for (unsigned b = 0; b < kLoads; b += kBatch) {
        Pixels v[kBatch];
#pragma unroll
        for (unsigned u = 0; u < kBatch; ++u) {
            const unsigned g = row0 + (b + u) * kRowsAtOnce, j = g / kTileSide, row = g % kTileSide;
            if (col_in && r0 + row < rows && f0 + j < n_frames)
                v[u] = *reinterpret_cast<const Pixels*>(dense + uint64_t(f0 + j) * dense_stride + uint64_t(r0 + row) * cols + c0 + col);
            else
                v[u] = Pixels{};
        }
#pragma unroll
        for (unsigned u = 0; u < kBatch; ++u) {
            const unsigned g = row0 + (b + u) * kRowsAtOnce, j = g / kTileSide, row = g % kTileSide;
            *reinterpret_cast<Pixels*>(tile + j * kStride + row * kTileSide + col) = v[u];
        }
    }
}

template <class T, class A, class W>
__device__ void integrate_tile(const T* dense, uint64_t dense_stride, uint32_t rows, uint32_t cols, uint32_t tiles_x,
                               uint32_t n_frames, const uint32_t* tile_slot_first, const uint32_t* slot_entry_first,
                               const uint16_t* entry_pixel, const W* entry_weight, A* partial) {
    constexpr unsigned kPass = bslz4_abi::tile_pass_frames(sizeof(T)), kStride = bslz4_abi::tile_row_stride(sizeof(T));
    constexpr unsigned kSlotThreads = kPass / kThreadFrames;  // a slot's threads: thread q sums frames q, q + kSlotThreads, ...
    extern __shared__ __align__(16) uint8_t shared[];
    T* tile = reinterpret_cast<T*>(shared);
    W* staged_weight = reinterpret_cast<W*>(shared + kPass * kStride * sizeof(T));
    uint16_t* staged_pixel = reinterpret_cast<uint16_t*>(staged_weight + kTileStagedEntries);
    const uint32_t s0 = tile_slot_first[blockIdx.x], s1 = tile_slot_first[blockIdx.x + 1];
    if (s0 == s1) return;  // no entries here (a module gap): the whole block leaves
    const uint32_t r0 = blockIdx.x / tiles_x * kTileSide, c0 = blockIdx.x % tiles_x * kTileSide;
    const uint32_t items = (s1 - s0) * kSlotThreads;
    // Frames start kDenseAlign bytes apart; their rows then keep 8-byte alignment when a row does.
    const bool wide = (uint64_t(cols) * sizeof(T)) % 8 == 0 && (dense_stride * sizeof(T)) % 8 == 0;
    // The tile's entries, into shared memory when they fit (a tile of an Eiger 4M frame whose
    // pixels are split between two bins has 2,048); else read where they are.
    const uint32_t e_first = slot_entry_first[s0], e_end = slot_entry_first[s1];
    const bool staged = e_end - e_first <= kTileStagedEntries;
    if (staged)
        for (uint32_t e = e_first + threadIdx.x; e < e_end; e += kTileThreads) {
            staged_weight[e - e_first] = entry_weight[e];
            staged_pixel[e - e_first] = entry_pixel[e];
        }
    const W* weight = staged ? staged_weight - e_first : entry_weight;
    const uint16_t* pixel = staged ? staged_pixel - e_first : entry_pixel;
    for (uint32_t f0 = 0; f0 < n_frames; f0 += kPass) {
        if (wide)
            load_tile<T, 8 / sizeof(T)>(dense, dense_stride, rows, cols, r0, c0, f0, n_frames, tile);
        else
            load_tile<T, 1>(dense, dense_stride, rows, cols, r0, c0, f0, n_frames, tile);
        __syncthreads();
        for (uint32_t it = threadIdx.x; it < items; it += kTileThreads) {
            const uint32_t s = s0 + it / kSlotThreads;
            const unsigned q = it % kSlotThreads;
            const T* frames = tile + q * kStride;
            A sum[kThreadFrames];
#pragma unroll
            for (unsigned u = 0; u < kThreadFrames; ++u) sum[u] = A(0);
            const uint32_t e1 = slot_entry_first[s + 1];
            uint32_t e = slot_entry_first[s];
            for (; e + 2 <= e1; e += 2) {  // two entries' loads in flight, summed in order
                const unsigned p0 = pixel[e], p1 = pixel[e + 1];
                const A w0 = A(weight[e]), w1 = A(weight[e + 1]);
                T v0[kThreadFrames], v1[kThreadFrames];
#pragma unroll
                for (unsigned u = 0; u < kThreadFrames; ++u) {
                    v0[u] = frames[u * kSlotThreads * kStride + p0];
                    v1[u] = frames[u * kSlotThreads * kStride + p1];
                }
#pragma unroll
                for (unsigned u = 0; u < kThreadFrames; ++u) {
                    sum[u] += w0 * A(v0[u]);
                    sum[u] += w1 * A(v1[u]);
                }
            }
            if (e < e1) {
                const unsigned p0 = pixel[e];
                const A w0 = A(weight[e]);
#pragma unroll
                for (unsigned u = 0; u < kThreadFrames; ++u) sum[u] += w0 * A(frames[u * kSlotThreads * kStride + p0]);
            }
#pragma unroll
            for (unsigned u = 0; u < kThreadFrames; ++u) {
                const uint32_t f = f0 + q + u * kSlotThreads;
                if (f < n_frames) partial[uint64_t(s) * n_frames + f] = sum[u];
            }
        }
        __syncthreads();
    }
}

// A block kReduceWarps bins x 32 frames, a warp a bin with a lane a frame: the bin's slots
// added in tile order; then the block writes its sums frame by frame, its bins side by side
// (a lane a frame would write each value to a sector of its own).
template <class A, class O>
__device__ void reduce_tiles(const A* partial, uint32_t n_frames, const uint32_t* bin_slot_first, const uint32_t* bin_slot,
                             uint32_t bins, O* powder, double sum_to_f64) {
    __shared__ O out[32][kReduceWarps + 1];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t b0 = blockIdx.x * kReduceWarps, b = b0 + warp, f0 = blockIdx.y * 32, f = f0 + lane;
    O value = O(0);
    if (b < bins && f < n_frames) {
        const uint32_t k1 = bin_slot_first[b + 1];
        uint32_t k = bin_slot_first[b];
        A sum = A(0);
        for (; k + 8 <= k1; k += 8) {  // eight loads in flight, added in order
            A v[8];
#pragma unroll
            for (unsigned u = 0; u < 8; ++u) v[u] = partial[uint64_t(__ldg(bin_slot + k + u)) * n_frames + f];
#pragma unroll
            for (unsigned u = 0; u < 8; ++u) sum += v[u];
        }
        for (; k < k1; ++k) sum += partial[uint64_t(__ldg(bin_slot + k)) * n_frames + f];
        value = finished<O>(sum, sum_to_f64);
    }
    out[lane][warp] = value;
    __syncthreads();
    for (unsigned i = threadIdx.x; i < 32 * kReduceWarps; i += kReduceWarps * 32) {
        const unsigned fl = i / kReduceWarps, bl = i % kReduceWarps;
        if (b0 + bl < bins && f0 + fl < n_frames) powder[uint64_t(f0 + fl) * bins + b0 + bl] = out[fl][bl];
    }
}

}  // namespace bslz4_kernels

// bslz4_integrate_tiles_<pixel>_<sums>: f64 and f32 sums of float weights, i64 of int64
// (fixed-point) weights, for acc i64 and for f64 of exact fixed-point sums alike. Dynamic shared
// memory: tile_shared_bytes (kernel_abi.h).
#define BSLZ4_INTEGRATE_TILES(T, name, A, W, sums)                                                                   \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kTileThreads, 4)                                       \
        bslz4_integrate_tiles_##name##_##sums(BSLZ4_KERNEL_PARAMS(BSLZ4_INTEGRATE_TILES_ARGS, T, W, A)) {           \
        bslz4_kernels::integrate_tile<T, A, W>(dense, dense_stride, rows, cols, tiles_x, n_frames, tile_slot_first, \
                                               slot_entry_first, entry_pixel, entry_weight, partial);               \
    }
#define BSLZ4_INTEGRATE_TILES_FLOAT(T, name)                 \
    BSLZ4_INTEGRATE_TILES(T, name, double, float, f64)       \
    BSLZ4_INTEGRATE_TILES(T, name, float, float, f32)
#define BSLZ4_INTEGRATE_TILES_ALL(T, name) \
    BSLZ4_INTEGRATE_TILES_FLOAT(T, name)   \
    BSLZ4_INTEGRATE_TILES(T, name, long long, long long, i64)
BSLZ4_INTEGRATE_TILES_ALL(uint8_t, u8)
BSLZ4_INTEGRATE_TILES_ALL(uint16_t, u16)
BSLZ4_INTEGRATE_TILES_ALL(uint32_t, u32)
BSLZ4_INTEGRATE_TILES_ALL(int8_t, i8)
BSLZ4_INTEGRATE_TILES_ALL(int16_t, i16)
BSLZ4_INTEGRATE_TILES_ALL(int32_t, i32)
BSLZ4_INTEGRATE_TILES_FLOAT(float, f32)
#undef BSLZ4_INTEGRATE_TILES_ALL
#undef BSLZ4_INTEGRATE_TILES_FLOAT
#undef BSLZ4_INTEGRATE_TILES

// bslz4_reduce_tiles_<acc>: the powder of acc f64, f32, i64, or f64_fixed (int64 sums, each
// rounded once to double and scaled by sum_to_f64).
#define BSLZ4_REDUCE_TILES(A, O, acc)                                                                              \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kReduceWarps * 32)                                     \
        bslz4_reduce_tiles_##acc(BSLZ4_KERNEL_PARAMS(BSLZ4_REDUCE_TILES_ARGS, A, O)) {                              \
        bslz4_kernels::reduce_tiles<A, O>(partial, n_frames, bin_slot_first, bin_slot, bins, powder, sum_to_f64); \
    }
BSLZ4_REDUCE_TILES(double, double, f64)
BSLZ4_REDUCE_TILES(float, float, f32)
BSLZ4_REDUCE_TILES(long long, long long, i64)
BSLZ4_REDUCE_TILES(long long, double, f64_fixed)
#undef BSLZ4_REDUCE_TILES
