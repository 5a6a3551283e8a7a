// decode: one warp per tile of a frame. A tile is one 8 kB LZ4 block (the frame's last tile is
// the raw tail). The warp copies the block's sequences, which lz4_parse found and checked,
// into its 8 kB of shared memory (lz4_block.cuh),
// unshuffles it 32 elements a lane (bit_unshuffle.cuh), writes the pixels to the batch's dense
// frames with 16-byte stores, and counts the pixels above the cut that the mask allows, so the
// collect needs only one more pass. Shaped so: a block fits one warp's shared memory, blocks
// are independent, and 8 kB a warp leaves room for many warps per multiprocessor.
#include "bit_unshuffle.cuh"
#include "kernel_abi.h"
#include "lz4_block.cuh"
#include "pixel_cut.cuh"

namespace bslz4_kernels {

// Pixels of a full block: 32 a lane a step. Returns this lane's count of listed pixels.
template <class T>
__device__ unsigned unshuffle_full_block(const uint8_t* planes, unsigned n, T* out, const uint8_t* mask,
                                         const bslz4_abi::Cut& cut, unsigned lane) {
    constexpr unsigned kEs = sizeof(T);
    unsigned hits = 0;
    for (unsigned w = lane; w < n / 32; w += 32) {
        uint32_t px[8 * kEs];
        unshuffle_32<kEs>(planes, n, w, px);
        uint4* dst = reinterpret_cast<uint4*>(out + 32 * w);
#pragma unroll
        for (unsigned q = 0; q < 2 * kEs; ++q) dst[q] = make_uint4(px[4 * q], px[4 * q + 1], px[4 * q + 2], px[4 * q + 3]);
        if (!any_above_32<T>(px, cut)) continue;  // the usual case: background only
        const uint4 m0 = reinterpret_cast<const uint4*>(mask + 32 * w)[0];
        const uint4 m1 = reinterpret_cast<const uint4*>(mask + 32 * w)[1];
        const uint32_t m[8] = {m0.x, m0.y, m0.z, m0.w, m1.x, m1.y, m1.z, m1.w};
#pragma unroll
        for (unsigned e = 0; e < 32; ++e) {
            T v;
            if (kEs == 4) {
                memcpy(&v, &px[e], 4);
            } else {
                const uint32_t word = px[e * kEs / 4];
                const uint32_t bits = (word >> (8 * ((e * kEs) & 3))) & (kEs == 1 ? 0xFFu : 0xFFFFu);
                v = static_cast<T>(bits);
            }
            const bool use = (m[e / 4] >> (8 * (e & 3))) & 0xFFu;
            hits += use && above_cut(v, cut);
        }
    }
    return hits;
}

template <class T>
__device__ void decode_tiles(const uint8_t* __restrict__ chunks, const uint64_t* chunk_offset, const uint64_t* block_offset,
                             const uint64_t* tail_offset, const uint64_t* seq_first, const uint2* sequences,
                             const uint32_t* seq_count, const uint32_t* status, uint32_t span_first,
                             uint32_t first_frame, const bslz4_abi::FrameGeometry& g, const uint8_t* __restrict__ mask, bslz4_abi::Cut cut,
                             T* dense, uint32_t* tile_count) {
    using namespace bslz4_abi;
    using Bits = typename BitsOf<T>::type;
    extern __shared__ __align__(16) uint8_t shared[];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t tile = blockIdx.x * kWarpsPerCta + warp;
    if (tile >= g.n_tiles) return;
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
        const unsigned n = tile + 1 == g.n_blocks ? g.last_block_elems : g.block_elems;
        lz4_copy_sequences(chunks + block + 4, seq, seq_count[at], planes, lane);
        if (n % 32 == 0) {
            hits = unshuffle_full_block<T>(planes, n, frame + first, mask + first, cut, lane);
        } else {
            for (unsigned i = lane; i < n; i += 32) {
                const Bits bits = unshuffle_element<Bits>(planes, n, i);
                T v;
                memcpy(&v, &bits, sizeof(T));
                frame[first + i] = v;
                hits += mask[first + i] && above_cut(v, cut);
            }
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

}  // namespace bslz4_kernels

#define BSLZ4_DECODE_ENTRY(T, name)                                                                           \
    extern "C" __global__ void __launch_bounds__(bslz4_abi::kWarpsPerCta * 32)                                \
        bslz4_decode_##name(const uint8_t* chunks, const uint64_t* chunk_offset, const uint64_t* block_offset,   \
                            const uint64_t* tail_offset, const uint64_t* seq_first, const uint2* sequences,       \
                            const uint32_t* seq_count, const uint32_t* status, uint32_t span_first,               \
                            uint32_t first_frame,                                                                 \
                            bslz4_abi::FrameGeometry g, const uint8_t* mask, bslz4_abi::Cut cut, T* dense,        \
                            uint32_t* tile_count) {                                                               \
        bslz4_kernels::decode_tiles<T>(chunks, chunk_offset, block_offset, tail_offset, seq_first, sequences,     \
                                       seq_count, status, span_first, first_frame, g, mask, cut, dense,           \
                                       tile_count);                                                               \
    }
BSLZ4_DECODE_ENTRY(uint8_t, u8)
BSLZ4_DECODE_ENTRY(uint16_t, u16)
BSLZ4_DECODE_ENTRY(uint32_t, u32)
BSLZ4_DECODE_ENTRY(int8_t, i8)
BSLZ4_DECODE_ENTRY(int16_t, i16)
BSLZ4_DECODE_ENTRY(int32_t, i32)
BSLZ4_DECODE_ENTRY(float, f32)
#undef BSLZ4_DECODE_ENTRY
