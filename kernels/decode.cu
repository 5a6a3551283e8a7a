// decode: a warp decodes tiles of a frame, one after another, a grid-stride apart. A tile is one
// 8 kB LZ4 block (the frame's last tile is the raw tail). The warp copies the block's sequences,
// which lz4_parse found and checked, into its 8 kB of shared memory (lz4_block.cuh), unshuffles
// it 32 elements a lane (bit_unshuffle.cuh), and lists the pixels above the cut that the mask
// allows into the tile's staging slots (tile_staging.cuh), counting them for the collect. The
// dense frame is written only when something needs it: a matrix, decompress, or a tile the
// write kernel must list itself. Shaped so: a block fits one warp's shared memory, blocks are independent,
// and 8 kB a warp leaves room for many warps per multiprocessor; tiles take very different
// times (a run of zeros against noise), so a warp takes several rather than one, and a quick
// one does not idle until the slowest warp of its thread block ends.
#include "bit_unshuffle.cuh"
#include "kernel_abi.h"
#include "lz4_block.cuh"
#include "pixel_cut.cuh"
#include "tile_staging.cuh"

namespace bslz4_kernels {

// The 32 pixels of word w (8 x sizeof(T) unshuffled words) to out, 16 bytes a store.
template <class T>
__device__ inline void store_32(T* out, unsigned w, const uint32_t* px) {
    uint4* dst = reinterpret_cast<uint4*>(out + 32 * w);
#pragma unroll
    for (unsigned q = 0; q < 2 * sizeof(T); ++q) dst[q] = make_uint4(px[4 * q], px[4 * q + 1], px[4 * q + 2], px[4 * q + 3]);
}

// Element e of 32 unshuffled pixels.
template <class T>
__device__ inline T pixel_of_32(const uint32_t* px, unsigned e) {
    T v;
    if (sizeof(T) == 4) {
        memcpy(&v, &px[e], 4);
    } else {
        const uint32_t word = px[e * sizeof(T) / 4];
        const uint32_t bits = (word >> (8 * ((e * sizeof(T)) & 3))) & (sizeof(T) == 1 ? 0xFFu : 0xFFFFu);
        v = static_cast<T>(bits);
    }
    return v;
}

// A full block (n % 32 == 0), 32 pixels a lane a step, in the order of the frame: the pixels
// go to `dense` when it is given, and the listed ones (mask and cut) to the staging slots,
// ranked by a warp scan so they stay in pixel order. Returns the tile's count of listed
// pixels, the same in every lane; only the first kStagedPerTile are staged.
template <class T>
__device__ unsigned list_full_block(const uint8_t* planes, unsigned n, uint64_t first, T* dense, const uint8_t* mask,
                                    const bslz4_abi::Cut& cut, T* stage_v, uint32_t* stage_i, unsigned lane) {
    unsigned listed = 0;
    const unsigned words = n / 32;
    for (unsigned w0 = 0; w0 < words; w0 += 32) {
        const unsigned w = w0 + lane;
        uint32_t px[8 * sizeof(T)];
        unsigned hit_bits = 0;
        if (w < words) {
            unshuffle_32<sizeof(T)>(planes, n, w, px);
            if (dense) store_32<T>(dense + first, w, px);
            if (any_above_32<T>(px, cut)) {  // the usual case is background only: no mask read
                const uint4 m0 = reinterpret_cast<const uint4*>(mask + first + 32 * w)[0];
                const uint4 m1 = reinterpret_cast<const uint4*>(mask + first + 32 * w)[1];
                const uint32_t m[8] = {m0.x, m0.y, m0.z, m0.w, m1.x, m1.y, m1.z, m1.w};
#pragma unroll
                for (unsigned e = 0; e < 32; ++e) {
                    const bool use = (m[e / 4] >> (8 * (e & 3))) & 0xFFu;
                    hit_bits |= unsigned(use && above_cut(pixel_of_32<T>(px, e), cut)) << e;
                }
            }
        }
        if (!__any_sync(0xFFFFFFFFu, hit_bits != 0)) continue;
        const unsigned mine = __popc(hit_bits);
        unsigned upto = mine;
        for (unsigned s = 1; s < 32; s <<= 1) {
            const unsigned up = __shfl_up_sync(0xFFFFFFFFu, upto, s);
            if (lane >= s) upto += up;
        }
        unsigned pos = listed + upto - mine;
        if (hit_bits && pos < bslz4_abi::kStagedPerTile) {
#pragma unroll
            for (unsigned e = 0; e < 32; ++e)
                if ((hit_bits >> e & 1) && pos < bslz4_abi::kStagedPerTile) {
                    stage_v[pos] = pixel_of_32<T>(px, e);
                    stage_i[pos] = uint32_t(first + 32 * w + e);
                    ++pos;
                }
        }
        listed += __shfl_sync(0xFFFFFFFFu, upto, 31);
    }
    return listed;
}

// The dense pixels of a full block alone: for a tile with more listed pixels than it stages.
template <class T>
__device__ void write_full_block(const uint8_t* planes, unsigned n, T* out, unsigned lane) {
    for (unsigned w = lane; w < n / 32; w += 32) {
        uint32_t px[8 * sizeof(T)];
        unshuffle_32<sizeof(T)>(planes, n, w, px);
        store_32<T>(out, w, px);
    }
}

template <class T>
__device__ void decode_tile(uint32_t tile, const uint8_t* __restrict__ chunks, const uint64_t* chunk_offset,
                            const uint64_t* block_offset, const uint64_t* tail_offset, const uint64_t* seq_first,
                            const uint2* sequences, const uint32_t* seq_count, const uint32_t* status, uint32_t span_first,
                            uint32_t first_frame, const bslz4_abi::FrameGeometry& g, const uint8_t* __restrict__ mask,
                            const bslz4_abi::Cut& cut, T* dense, int write_dense, T* stage_values, uint32_t* stage_indices,
                            uint32_t* tile_count) {
    using namespace bslz4_abi;
    using Bits = typename BitsOf<T>::type;
    extern __shared__ __align__(16) uint8_t shared[];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t local = blockIdx.y, f = first_frame + local;
    uint32_t* my_count = tile_count + uint64_t(f) * g.n_tiles + tile;
    if (status[f] != kFrameOk) {  // the chunk's layout or one of its blocks is bad: refused
        if (lane == 0) *my_count = 0;
        return;
    }
    T* frame = dense + uint64_t(local) * g.dense_stride;
    // The tail tile starts after the last (possibly short) block.
    const uint64_t first = tile < g.n_blocks ? uint64_t(tile) * g.block_elems : g.frame_pixels - g.tail_elems;
    unsigned hits = 0;
    if (tile < g.n_blocks) {
        uint8_t* planes = shared + warp * kSharedPerWarp;
        const uint64_t at = uint64_t(f) * g.n_blocks + tile;
        const uint64_t block = block_offset[at];
        const uint2* seq = sequences + (seq_first[f] - seq_first[span_first]) +
                           (block - chunk_offset[f]) / kInputBytesPerSequence;
        const unsigned n = tile_elems(g, tile);
        lz4_copy_sequences(chunks + block + 4, seq, seq_count[at], planes, lane);
        if (n % 32 == 0) {
            const uint64_t stage = tile_stage_at(g, local, tile);
            const unsigned listed = list_full_block<T>(planes, n, first, write_dense ? frame : nullptr, mask, cut,
                                                       stage_values + stage, stage_indices + stage, lane);
            if (!tile_is_staged(g, tile, listed) && !write_dense) write_full_block<T>(planes, n, frame + first, lane);
            if (lane == 0) *my_count = listed;
            return;
        }
        for (unsigned i = lane; i < n; i += 32) {
            const Bits bits = unshuffle_element<Bits>(planes, n, i);
            T v;
            memcpy(&v, &bits, sizeof(T));
            frame[first + i] = v;
            hits += mask[first + i] && above_cut(v, cut);
        }
    } else if (lane < g.tail_elems) {  // the raw tail: at most 7 pixels, unaligned
        const uint8_t* src = chunks + tail_offset[f] + lane * sizeof(T);
        Bits bits = 0;
        for (unsigned b = 0; b < sizeof(T); ++b) bits |= Bits(src[b]) << (8 * b);
        T v;
        memcpy(&v, &bits, sizeof(T));
        frame[first + lane] = v;
        hits = mask[first + lane] && above_cut(v, cut);
    }
    for (unsigned s = 16; s > 0; s >>= 1) hits += __shfl_down_sync(0xFFFFFFFFu, hits, s);
    if (lane == 0) *my_count = hits;
}

// The warp's tiles of frame blockIdx.y: a grid-stride apart, so that a warp whose tiles were
// quick goes on to others instead of idling until the slowest warp of its block ends (a block
// holds its shared memory until then). The host picks how many blocks a frame.
template <class T>
__device__ void decode_tiles(const uint8_t* __restrict__ chunks, const uint64_t* chunk_offset, const uint64_t* block_offset,
                             const uint64_t* tail_offset, const uint64_t* seq_first, const uint2* sequences,
                             const uint32_t* seq_count, const uint32_t* status, uint32_t span_first,
                             uint32_t first_frame, const bslz4_abi::FrameGeometry& g, const uint8_t* __restrict__ mask,
                             const bslz4_abi::Cut& cut, T* dense, int write_dense, T* stage_values, uint32_t* stage_indices,
                             uint32_t* tile_count) {
    const unsigned warps = blockDim.x >> 5;
    for (uint32_t tile = blockIdx.x * warps + (threadIdx.x >> 5); tile < g.n_tiles; tile += gridDim.x * warps) {
        decode_tile<T>(tile, chunks, chunk_offset, block_offset, tail_offset, seq_first, sequences, seq_count, status,
                       span_first, first_frame, g, mask, cut, dense, write_dense, stage_values, stage_indices, tile_count);
        __syncwarp();  // every lane is done with this tile's shared memory before the next tile's copy
    }
}

}  // namespace bslz4_kernels

// A 4-byte pixel's kernel took 80 registers, so a multiprocessor of 65,536 held 3 of its blocks
// of 7 warps where the other types' kernels, at 64, fill it with 4, as many as shared memory
// allows. Held at 72 it holds 4 too, spilling 8 bytes (H200, u32 dense: 54,059 -> 57,959 frames/s).
#define BSLZ4_DECODE_BOUNDS_1 __launch_bounds__(bslz4_abi::kMaxDecodeWarps * 32)
#define BSLZ4_DECODE_BOUNDS_2 BSLZ4_DECODE_BOUNDS_1
#if defined(__CUDACC_VER_MAJOR__) && __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1204
#define BSLZ4_DECODE_BOUNDS_4 __maxnreg__(72)
#else  // __maxnreg__ came with CUDA 12.4: an older nvcc leaves these kernels where ptxas puts them
#define BSLZ4_DECODE_BOUNDS_4 BSLZ4_DECODE_BOUNDS_1
#endif
#define BSLZ4_DECODE_ENTRY(T, name, size)                                                                     \
    extern "C" __global__ void BSLZ4_DECODE_BOUNDS_##size bslz4_decode_##name(                               \
        BSLZ4_KERNEL_PARAMS(BSLZ4_DECODE_ARGS, T)) {                                                          \
        bslz4_kernels::decode_tiles<T>(chunks, chunk_offset, block_offset, tail_offset, seq_first, sequences,     \
                                       seq_count, status, span_first, first_frame, g, mask, cut, dense,           \
                                       write_dense, stage_values, stage_indices, tile_count);                     \
    }
BSLZ4_DECODE_ENTRY(uint8_t, u8, 1)
BSLZ4_DECODE_ENTRY(uint16_t, u16, 2)
BSLZ4_DECODE_ENTRY(uint32_t, u32, 4)
BSLZ4_DECODE_ENTRY(int8_t, i8, 1)
BSLZ4_DECODE_ENTRY(int16_t, i16, 2)
BSLZ4_DECODE_ENTRY(int32_t, i32, 4)
BSLZ4_DECODE_ENTRY(float, f32, 4)
#undef BSLZ4_DECODE_ENTRY
#undef BSLZ4_DECODE_BOUNDS_1
#undef BSLZ4_DECODE_BOUNDS_2
#undef BSLZ4_DECODE_BOUNDS_4
