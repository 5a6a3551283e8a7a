// unblock: one thread per frame walks its chunk's block headers (a short serial chain of
// 4-byte lengths), checks them against the chunk's end, and writes every block's offset and
// the tail's. One thread a frame costs about the same for 1 or 256 frames, and keeps the
// header walk off the host.
#include "kernel_abi.h"

namespace bslz4_kernels {

__device__ inline uint32_t load_be32(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

}  // namespace bslz4_kernels

// chunks: the group's chunks packed; chunk_offset/length: each frame's. Writes
// block_offset[f * n_blocks + b] (offset of block b's length field), tail_offset[f], status[f].
extern "C" __global__ void __launch_bounds__(bslz4_abi::kUnblockThreads)
bslz4_unblock(const uint8_t* chunks, const uint64_t* chunk_offset, const uint64_t* chunk_length, uint32_t n_frames,
              bslz4_abi::FrameGeometry g, uint64_t* block_offset, uint64_t* tail_offset, uint32_t* status) {
    using namespace bslz4_abi;
    const uint32_t f = blockIdx.x * blockDim.x + threadIdx.x;
    if (f >= n_frames) return;
    const uint64_t base = chunk_offset[f], len = chunk_length[f];
    const uint8_t* c = chunks + base;
    status[f] = kFrameOk;
    if (len < 12) { status[f] = kChunkShort; return; }
    const uint64_t decoded = (uint64_t(bslz4_kernels::load_be32(c)) << 32) | bslz4_kernels::load_be32(c + 4);
    if (decoded != g.frame_pixels * g.elem_size) { status[f] = kSizeMismatch; return; }
    const uint32_t block_field = bslz4_kernels::load_be32(c + 8);
    if (block_field != kBlockBytes && block_field != 0) { status[f] = kBlockSize; return; }
    uint64_t pos = 12;
    for (uint32_t b = 0; b < g.n_blocks; ++b) {
        if (len - pos < 4) { status[f] = ((b + 1) << 8) | kBlockPastEnd; return; }
        const uint32_t blen = bslz4_kernels::load_be32(c + pos);
        if (blen > len - pos - 4) { status[f] = ((b + 1) << 8) | kBlockPastEnd; return; }
        block_offset[uint64_t(f) * g.n_blocks + b] = base + pos;
        pos += 4 + uint64_t(blen);
    }
    const uint64_t tail_bytes = uint64_t(g.tail_elems) * g.elem_size;
    if (len - pos < tail_bytes) { status[f] = kTailShort; return; }
    if (len - pos > tail_bytes) { status[f] = kLeftover; return; }
    tail_offset[f] = base + pos;
}
