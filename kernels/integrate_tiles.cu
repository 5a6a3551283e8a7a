// integrate_tiles: powders = matrix @ frames, read from the batch's dense frames as they are.
// One thread block takes one tile of 32 x 32 pixels. It copies the tile's matrix entries into
// its shared memory once (when they fit), then, a pass of frames at a time (16, or 8 of 4-byte
// pixels), loads the pass's tile of each frame beside them, coalesced along the frame's rows,
// and stores it pixel by pixel: a pixel's frames side by side, so that one shared-memory load
// gives a thread the 4 frames it sums (tile_matrix.hpp: a slot is the tile's entries of one bin;
// 4 threads a slot, 2 of 4-byte pixels). Each slot's sums go to partial[slot][frame];
// reduce_tiles then adds each bin's slots in tile order.
// Shaped so because pixels near one another fall in few bins: a tile of an Eiger 4M frame has
// about 55 slots (2,000 radial bins), so the frames are read once, in order, where summing bin by
// bin gathers each pixel of every frame from wherever the matrix points. The entries are staged
// because a warp's 8 slots read 8 places at once: from global memory, 8 cache lines a load. The
// tile is stored pixel by pixel because the slots' loads are what bound the kernel: with the
// frames one after another a thread's 4 frames were 4 loads, half their wavefronts repeated for
// bank conflicts (Nsight Compute, stop 52). Integer pixels become f64 (f32) by setting a
// mantissa's low bits and subtracting the exponent's value, not by a conversion, whose pipe
// does a quarter of the f64 pipe's work a cycle.
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

// A pixel's value as the sums' type, exactly. An integer of at most 32 bits is the low word of
// 2^52 + v (offset by 2^31 when signed), less that: an integer op and an f64 add.
template <class A, class T>
__device__ inline A summand(T v) {
    if constexpr (std::is_same<A, double>::value && std::is_integral<T>::value) {
        if constexpr (std::is_unsigned<T>::value)
            return __hiloint2double(0x43300000, static_cast<int>(static_cast<uint32_t>(v))) - 4503599627370496.0;
        else
            return __hiloint2double(0x43300000, static_cast<int>(static_cast<uint32_t>(static_cast<int32_t>(v)) ^ 0x80000000u)) -
                   4503601774854144.0;  // 2^52 + 2^31
    } else if constexpr (std::is_same<A, float>::value && std::is_integral<T>::value && sizeof(T) <= 2) {
        // 2^23 + v (v offset by 2^15 when signed) is exact in a float's mantissa.
        if constexpr (std::is_unsigned<T>::value)
            return __int_as_float(0x4B000000 | static_cast<int>(v)) - 8388608.0f;
        else
            return __int_as_float(0x4B000000 | (static_cast<int>(v) + 0x8000)) - 8421376.0f;  // 2^23 + 2^15
    } else {
        return A(v);
    }
}

// N values of T moved as one load or store (a row's pixels, a record's chunk, a thread's frames).
template <class T, unsigned N>
struct alignas(sizeof(T) * N) Lanes {
    T v[N];
};

// Frames a thread sums, from one load: thread q of a slot's sums frames q, q + kSlotThreads, ...,
// so that a slot's threads write each round of their sums to neighbouring frames.
constexpr unsigned kThreadFrames = 4;
template <class T>
constexpr unsigned kSlotThreads = bslz4_abi::tile_pass_frames(sizeof(T)) / kThreadFrames;

// The tile in shared memory: pixel p's pass of frames is record p, in 16-byte chunks (two, one
// of 1-byte pixels), the frames in the order the slots' threads take them: thread q's first.
// A chunk's place is its index with the low 3 bits XORed by bits 3-5, so that the loader's 8
// neighbouring threads, whose pixels' records are 128 bytes apart, store to 8 different 16-byte
// bank groups at once. The low 4 bits of a record's place are 0.
template <class T>
__device__ inline unsigned record_place(unsigned pixel) {
    constexpr unsigned kChunks = bslz4_abi::tile_pass_frames(sizeof(T)) * sizeof(T) / 16;
    const unsigned k = pixel * kChunks;
    return (k ^ ((k >> 3) & 7)) << 4;
}

// A pass's frames f0.. of the tile into shared memory, pixel by pixel. A thread loads kVec
// pixels of a row (8 bytes, or 4 pixels of 1-byte ones, where the frame's rows keep that
// alignment, as an Eiger 4M frame's 2,068 pixels do; one pixel otherwise) of a chunk's frames,
// all of the chunk's loads issued before it stores any, then stores each pixel's chunk. The
// chunks are numbered g * kChunks + c (pixel group g, frame chunk c): the first one of the next
// pass is fetched into registers before the barrier that frees the tile (its loads in flight
// while the block waits for its longest slot) and stored after it.
template <class T, unsigned kVec>
struct TileLoader {
    using Pixels = Lanes<T, kVec>;
    using Chunk = Lanes<T, 16 / sizeof(T)>;
    static constexpr unsigned kPass = bslz4_abi::tile_pass_frames(sizeof(T)), kChunkFrames = 16 / sizeof(T);
    static constexpr unsigned kChunks = kPass / kChunkFrames, kGroups = kTilePixels / (kTileThreads * kVec);
    static_assert(kTilePixels % (kTileThreads * kVec) == 0 && kTileSide % kVec == 0 && kPass % kChunkFrames == 0, "whole loads");
    const T* dense;
    uint64_t dense_stride;
    uint32_t rows, cols, r0, c0, n_frames;
    uint8_t* tile;

    __device__ unsigned pixel(unsigned k) const { return (k / kChunks * kTileThreads + threadIdx.x) * kVec; }
    __device__ void fetch(unsigned k, uint32_t f0, Pixels (&v)[kChunkFrames]) const {
        const unsigned p = pixel(k), row = p / kTileSide, col = p % kTileSide, c = k % kChunks;
        // kVec > 1: cols is a multiple of kVec, so a load is all in the frame or all out
        const bool in = c0 + col < cols && r0 + row < rows;
        const T* at = dense + uint64_t(r0 + row) * cols + c0 + col;
#pragma unroll
        for (unsigned u = 0; u < kChunkFrames; ++u) {
            // the frame at this place in the record
            const unsigned at_place = c * kChunkFrames + u;
            const uint32_t f = f0 + at_place % kThreadFrames * kSlotThreads<T> + at_place / kThreadFrames;
            v[u] = in && f < n_frames ? *reinterpret_cast<const Pixels*>(at + uint64_t(f) * dense_stride) : Pixels{};
        }
    }
    __device__ void store(unsigned k, const Pixels (&v)[kChunkFrames]) const {
        const unsigned p = pixel(k), c = k % kChunks;
#pragma unroll
        for (unsigned i = 0; i < kVec; ++i) {
            Chunk out;
#pragma unroll
            for (unsigned u = 0; u < kChunkFrames; ++u) out.v[u] = v[u].v[i];
            *reinterpret_cast<Chunk*>(tile + (record_place<T>(p + i) ^ (c << 4))) = out;
        }
    }
    // Chunks `from` on of the pass f0.
    __device__ void load(uint32_t f0, unsigned from) const {
#pragma unroll 1
        for (unsigned k = from; k < kGroups * kChunks; ++k) {
            Pixels v[kChunkFrames];
            fetch(k, f0, v);
            store(k, v);
        }
    }
};

// Asks L2 for the pass of frames f0.. of the tile (each row's bytes, a line or two), so that
// TileLoader's loads, issued as the pass before is summed, find it there: they waited on
// device memory for a third of the kernel's time (Nsight Compute, stop 54), the loads being the
// batch's frames, far more than L2 holds. A prefetch takes no register and no shared memory.
template <class T>
__device__ inline void prefetch_tile(const T* dense, uint64_t dense_stride, uint32_t rows, uint32_t cols, uint32_t r0, uint32_t c0,
                                     uint32_t f0, uint32_t n_frames) {
    constexpr unsigned kPass = bslz4_abi::tile_pass_frames(sizeof(T));
    const unsigned last = (min(kTileSide, cols - c0) * sizeof(T)) - 1;  // the row's last byte in the tile
    for (unsigned i = threadIdx.x; i < kPass * kTileSide; i += kTileThreads) {
        const uint32_t f = f0 + i / kTileSide, row = r0 + i % kTileSide;
        if (f >= n_frames || row >= rows) continue;
        const uint8_t* at = reinterpret_cast<const uint8_t*>(dense + uint64_t(f) * dense_stride + uint64_t(row) * cols + c0);
        asm volatile("prefetch.global.L2 [%0];" ::"l"(at));
        if ((reinterpret_cast<uintptr_t>(at) ^ reinterpret_cast<uintptr_t>(at + last)) >> 7)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(at + last));
    }
}

// A staged entry: its weight and its pixel's record place (below 2^16), one load.
template <class W, bool kPacked>
struct alignas(2 * sizeof(W)) StagedEntry {
    W w;
    uint32_t at;
    __device__ static StagedEntry of(W weight, uint32_t place) { return {weight, place}; }
    __device__ W weight() const { return w; }
    __device__ uint32_t place() const { return at; }
};
// An int64 weight w, -2^47 <= w < 2^47 (weight_packs: the host checked every one), shares 8
// bytes with its place, so the tile's 2,560 staged entries take 20 kB, not 40: a fourth thread
// block fits beside three.
template <>
struct alignas(8) StagedEntry<long long, true> {
    uint64_t bits;  // weight << 16 | place
    __device__ static StagedEntry of(long long weight, uint32_t place) { return {uint64_t(weight) << 16 | place}; }
    __device__ long long weight() const { return static_cast<long long>(bits) >> 16; }
    __device__ uint32_t place() const { return uint32_t(bits) & 0xFFFFu; }
};

template <class T, class A, class W, bool kPacked>
__device__ void integrate_tile(const T* dense, uint64_t dense_stride, uint32_t rows, uint32_t cols, uint32_t tiles_x,
                               uint32_t n_frames, const uint32_t* tile_slot_first, const uint32_t* slot_entry_first,
                               const uint16_t* entry_pixel, const W* entry_weight, A* partial) {
    using Frames = Lanes<T, kThreadFrames>;
    using Staged = StagedEntry<W, kPacked>;
    static_assert(sizeof(Staged) == (kPacked ? 8 : 2 * sizeof(W)), "tile_shared_bytes' size of a staged entry");
    constexpr unsigned kPass = bslz4_abi::tile_pass_frames(sizeof(T)), kSlot = kSlotThreads<T>;
    extern __shared__ __align__(16) uint8_t shared[];
    uint8_t* tile = shared;
    Staged* staged_entry = reinterpret_cast<Staged*>(shared + kTilePixels * kPass * sizeof(T));
    const uint32_t s0 = tile_slot_first[blockIdx.x], s1 = tile_slot_first[blockIdx.x + 1];
    if (s0 == s1) return;  // no entries here (a module gap): the whole block leaves
    const uint32_t r0 = blockIdx.x / tiles_x * kTileSide, c0 = blockIdx.x % tiles_x * kTileSide;
    prefetch_tile(dense, dense_stride, rows, cols, r0, c0, 0, n_frames);  // while the entries are staged
    const uint32_t items = (s1 - s0) * kSlot;
    // Frames start kDenseAlign bytes apart; a row's loads keep their alignment when cols does.
    constexpr unsigned kWide = sizeof(T) == 1 ? 4 : 8 / sizeof(T);
    const bool wide = cols % kWide == 0;
    // The tile's entries, into shared memory when they fit (a tile of an Eiger 4M frame whose
    // pixels are split between two bins has 2,048), each pixel as its record's place; else
    // read where they are.
    const uint32_t e_first = slot_entry_first[s0], e_end = slot_entry_first[s1];
    const bool staged = e_end - e_first <= kTileStagedEntries;
    if (staged)
        for (uint32_t e = e_first + threadIdx.x; e < e_end; e += kTileThreads)
            staged_entry[e - e_first] = Staged::of(entry_weight[e], record_place<T>(entry_pixel[e]));
    // The passes, each summed while the next is asked of L2 (prefetch_tile); the next pass's
    // first chunk is fetched before the barrier that frees the tile.
    const auto passes = [&](const auto& loader) {
        using Loader = std::decay_t<decltype(loader)>;
        loader.load(0, 0);
        for (uint32_t f0 = 0;;) {
            __syncthreads();
            const uint32_t next = f0 + kPass;
            if (next < n_frames) prefetch_tile(dense, dense_stride, rows, cols, r0, c0, next, n_frames);
            for (uint32_t it = threadIdx.x; it < items; it += kTileThreads) {
                const uint32_t s = s0 + it / kSlot;
                const unsigned q = it % kSlot;
                // The thread's frames within a record: a chunk, and a place in it (bits 0-3).
                const unsigned own = q * kThreadFrames * sizeof(T);
                const uint32_t e0 = slot_entry_first[s], e1 = slot_entry_first[s + 1];
                A sum[kThreadFrames];
#pragma unroll
                for (unsigned u = 0; u < kThreadFrames; ++u) sum[u] = A(0);
                // Entries summed in order, two entries' loads in flight.
                auto add = [&](auto entry_at) {
                    uint32_t e = e0;
                    for (; e + 2 <= e1; e += 2) {
                        const Staged a = entry_at(e), b = entry_at(e + 1);
                        const Frames x0 = *reinterpret_cast<const Frames*>(tile + (a.place() ^ own));
                        const Frames x1 = *reinterpret_cast<const Frames*>(tile + (b.place() ^ own));
                        const A w0 = A(a.weight()), w1 = A(b.weight());
#pragma unroll
                        for (unsigned u = 0; u < kThreadFrames; ++u) {
                            sum[u] += w0 * summand<A>(x0.v[u]);
                            sum[u] += w1 * summand<A>(x1.v[u]);
                        }
                    }
                    if (e < e1) {
                        const Staged a = entry_at(e);
                        const Frames x0 = *reinterpret_cast<const Frames*>(tile + (a.place() ^ own));
                        const A w0 = A(a.weight());
#pragma unroll
                        for (unsigned u = 0; u < kThreadFrames; ++u) sum[u] += w0 * summand<A>(x0.v[u]);
                    }
                };
                if (staged)
                    add([&](uint32_t e) { return staged_entry[e - e_first]; });
                else
                    add([&](uint32_t e) { return Staged::of(entry_weight[e], record_place<T>(entry_pixel[e])); });
#pragma unroll
                for (unsigned u = 0; u < kThreadFrames; ++u) {
                    const uint32_t f = f0 + q + u * kSlot;
                    if (f < n_frames) partial[uint64_t(s) * n_frames + f] = sum[u];
                }
            }
            if (next >= n_frames) break;
            typename Loader::Pixels early[Loader::kChunkFrames];
            loader.fetch(0, next, early);
            __syncthreads();
            loader.store(0, early);
            loader.load(next, 1);
            f0 = next;
        }
    };
    if (wide)
        passes(TileLoader<T, kWide>{dense, dense_stride, rows, cols, r0, c0, n_frames, tile});
    else
        passes(TileLoader<T, 1>{dense, dense_stride, rows, cols, r0, c0, n_frames, tile});
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
        // Eight loads in flight, added in order; the last round's loads predicated, so that a bin
        // of a few slots (2.5 on average for a 1,500 x 72 matrix) waits on memory once, not once
        // a slot.
        for (; k < k1; k += 8) {
            A v[8];
#pragma unroll
            for (unsigned u = 0; u < 8; ++u) v[u] = k + u < k1 ? partial[uint64_t(__ldg(bin_slot + k + u)) * n_frames + f] : A(0);
#pragma unroll
            for (unsigned u = 0; u < 8; ++u)
                if (k + u < k1) sum += v[u];
        }
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
// (fixed-point) weights, for acc i64 and for f64 of exact fixed-point sums alike; i64_packed
// where every weight w is -2^47 <= w < 2^47 (StagedEntry). Dynamic shared memory: tile_shared_bytes
// (kernel_abi.h).
#define BSLZ4_INTEGRATE_TILES(T, name, A, W, packed, sums)                                                               \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kTileThreads, 4)                                             \
        bslz4_integrate_tiles_##name##_##sums(BSLZ4_KERNEL_PARAMS(BSLZ4_INTEGRATE_TILES_ARGS, T, W, A)) {                 \
        bslz4_kernels::integrate_tile<T, A, W, packed>(dense, dense_stride, rows, cols, tiles_x, n_frames, tile_slot_first, \
                                                       slot_entry_first, entry_pixel, entry_weight, partial);               \
    }
#define BSLZ4_INTEGRATE_TILES_FLOAT(T, name)                    \
    BSLZ4_INTEGRATE_TILES(T, name, double, float, false, f64)   \
    BSLZ4_INTEGRATE_TILES(T, name, float, float, false, f32)
#define BSLZ4_INTEGRATE_TILES_ALL(T, name)                            \
    BSLZ4_INTEGRATE_TILES_FLOAT(T, name)                              \
    BSLZ4_INTEGRATE_TILES(T, name, long long, long long, false, i64)  \
    BSLZ4_INTEGRATE_TILES(T, name, long long, long long, true, i64_packed)
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
