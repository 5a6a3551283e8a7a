// decode: one warp per tile of a frame. A tile is one 8 kB LZ4 block (the frame's last tile is
// the raw tail). The warp stages the compressed block in shared memory, decodes it there
// (lz4_block.cuh), unshuffles 32 pixels a step, writes them to the batch's dense frames, and
// counts the pixels above the cut that the mask allows (a warp ballot), so the collect needs
// only one more pass. Shaped so: a block fits one warp's shared memory, and blocks are
// independent, so thousands of warps keep the GPU busy.
#include "bit_unshuffle.cuh"
#include "kernel_abi.h"
#include "lz4_block.cuh"
#include "pixel_cut.cuh"

namespace bslz4_kernels {

template <class T>
__device__ void decode_tiles(const uint8_t* chunks, const uint64_t* block_offset, const uint64_t* tail_offset,
                             uint32_t* status, uint32_t first_frame, const bslz4_abi::FrameGeometry& g,
                             const uint8_t* mask, bslz4_abi::Cut cut, T* dense, uint32_t* tile_count) {
    using namespace bslz4_abi;
    using Bits = typename BitsOf<T>::type;
    extern __shared__ __align__(16) uint8_t shared[];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = blockIdx.x * kWarpsPerCta + warp;
    if (tile >= g.n_tiles) return;
    const uint32_t local = blockIdx.y, f = first_frame + local;
    uint32_t* my_count = tile_count + uint64_t(f) * g.n_tiles + tile;
    if (status[f] != kFrameOk && (status[f] & 0xFF) <= kLeftover) {  // the chunk's layout is bad
        if (lane == 0) *my_count = 0;
        return;
    }
    T* frame = dense + uint64_t(local) * g.frame_pixels;
    // The tail tile starts after the last (possibly short) block.
    const uint64_t first = tile < g.n_blocks ? uint64_t(tile) * g.block_elems : g.frame_pixels - g.tail_elems;
    unsigned hits = 0;
    if (tile < g.n_blocks) {
        uint8_t* stage = shared + warp * kSharedPerWarp;
        uint8_t* planes = stage + kStageBytes;
        const uint64_t at = block_offset[uint64_t(f) * g.n_blocks + tile];
        const uint8_t* src = chunks + at;
        const uint32_t len = (uint32_t(src[0]) << 24) | (uint32_t(src[1]) << 16) | (uint32_t(src[2]) << 8) | src[3];
        const unsigned n = tile + 1 == g.n_blocks ? g.last_block_elems : g.block_elems;
        unsigned fault = 0;
        if (len > kMaxCompressedBlock) {
            fault = kBlockTooLong;
        } else {
            for (unsigned k = lane; k < len; k += 32) stage[k] = src[4 + k];
            __syncwarp();
            fault = lz4_decode_warp(stage, len, planes, n * sizeof(T), lane);
        }
        if (fault) {
            if (lane == 0) {
                atomicMin(status + f, ((tile + 1) << 8) | fault);
                *my_count = 0;
            }
            return;
        }
        for (unsigned i = lane; i < n; i += 32) {
            const Bits bits = unshuffle_element<Bits>(planes, n, i);
            T v;
            memcpy(&v, &bits, sizeof(T));
            frame[first + i] = v;
            const bool hit = mask[first + i] && above_cut(v, cut);
            hits += __popc(__ballot_sync(__activemask(), hit));
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
    // The tail's hits are per lane; the blocks' are already warp totals in every lane.
    if (tile >= g.n_blocks) {
        for (unsigned s = 16; s > 0; s >>= 1) hits += __shfl_down_sync(0xFFFFFFFFu, hits, s);
    }
    if (lane == 0) *my_count = hits;
}

}  // namespace bslz4_kernels

#define BSLZ4_DECODE_ENTRY(T, name)                                                                           \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kWarpsPerCta * 32)                                \
        bslz4_decode_##name(const uint8_t* chunks, const uint64_t* block_offset, const uint64_t* tail_offset, \
                            uint32_t* status, uint32_t first_frame, bslz4_abi::FrameGeometry g,               \
                            const uint8_t* mask, bslz4_abi::Cut cut, T* dense, uint32_t* tile_count) {        \
        bslz4_kernels::decode_tiles<T>(chunks, block_offset, tail_offset, status, first_frame, g, mask, cut,  \
                                       dense, tile_count);                                                    \
    }
BSLZ4_DECODE_ENTRY(uint8_t, u8)
BSLZ4_DECODE_ENTRY(uint16_t, u16)
BSLZ4_DECODE_ENTRY(uint32_t, u32)
BSLZ4_DECODE_ENTRY(int8_t, i8)
BSLZ4_DECODE_ENTRY(int16_t, i16)
BSLZ4_DECODE_ENTRY(int32_t, i32)
BSLZ4_DECODE_ENTRY(float, f32)
#undef BSLZ4_DECODE_ENTRY
