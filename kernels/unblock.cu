// unblock: one thread block per frame finds where each of its chunk's LZ4 blocks starts: the
// block headers are a serial chain of 4-byte big-endian lengths, checked against the chunk's
// end, and every block's offset and the tail's are written. The chain cannot be split, but its
// links need not each wait on device memory: the block's threads copy the chunk into shared
// memory a window at a time (coalesced word loads), and one thread follows the chain there.
// A thread a frame chasing the chain in device memory took about 750 us for any part of up to
// 128 dense Eiger 4M frames (1,092 dependent loads each) on one multiprocessor, holding up the
// stream's parse and decode; this takes about 180 us for 128 (H200 timeline of from_buffer;
// 540 us with 4-byte loads, which a thread issued one after the other).
#include "kernel_abi.h"

namespace bslz4_kernels {

__device__ inline uint32_t load_be32(const uint8_t* p) {
    return (uint32_t(p[0]) << 24) | (uint32_t(p[1]) << 16) | (uint32_t(p[2]) << 8) | p[3];
}

// Bytes of a chunk in shared memory at once (a dense Eiger 4M chunk is about 34 windows), loaded
// as 16-byte words, all of a thread's at once: its loads wait on memory once a window, not once a word.
constexpr unsigned kUnblockWindowBytes = 32768;
constexpr unsigned kUnblockVecs = kUnblockWindowBytes / 16;
constexpr unsigned kUnblockVecsPerThread = kUnblockVecs / bslz4_abi::kUnblockThreads;
static_assert(kUnblockVecs % bslz4_abi::kUnblockThreads == 0, "a window is whole words for every thread");

}  // namespace bslz4_kernels

// chunks: packed from the start of a device allocation, kChunkPadding bytes past the last: the 16-byte
// loads, from up to 15 bytes before a chunk to 15 past it, stay inside. chunk_offset/length: each
// frame's. Writes block_offset[f * n_blocks + b] (offset of block b's length field), tail_offset[f],
// status[f]. Grid: one block a frame.
extern "C" __global__ void __launch_bounds__(bslz4_abi::kUnblockThreads)
bslz4_unblock(BSLZ4_KERNEL_PARAMS(BSLZ4_UNBLOCK_ARGS)) {
    using namespace bslz4_abi;
    using namespace bslz4_kernels;
    static_assert(kChunkPadding >= 16, "a window's last 16-byte load may end 15 bytes past its chunk");
    __shared__ uint4 window[kUnblockVecs];
    __shared__ uint64_t walk_pos;    // the next header's offset in the chunk
    __shared__ uint32_t walk_block;  // its block
    __shared__ int walk_done;
    const uint32_t f = blockIdx.x;
    if (f >= n_frames) return;
    const uint64_t base = chunk_offset[f], len = chunk_length[f];
    const uint8_t* c = chunks + base;
    if (threadIdx.x == 0) {
        walk_pos = 12;
        walk_block = 0;
        walk_done = 1;
        if (len < 12) {
            status[f] = kChunkShort;
        } else if (((uint64_t(load_be32(c)) << 32) | load_be32(c + 4)) != g.frame_pixels * g.elem_size) {
            status[f] = kSizeMismatch;
        } else if (load_be32(c + 8) != kBlockBytes && load_be32(c + 8) != 0) {
            status[f] = kBlockSize;
        } else {
            status[f] = kFrameOk;
            walk_done = 0;
        }
    }
    __syncthreads();
    while (!walk_done) {
        const uint64_t pos = walk_pos;
        // The window: chunk bytes [pos, end), loaded as the aligned 16-byte words covering them
        // (at most 30 bytes more than end - pos: they fit).
        const uint64_t end = pos + (kUnblockWindowBytes - 32) < len ? pos + (kUnblockWindowBytes - 32) : len;
        const uintptr_t first = reinterpret_cast<uintptr_t>(c + pos) & ~uintptr_t(15);
        const uintptr_t last = (reinterpret_cast<uintptr_t>(c + end) + 15) & ~uintptr_t(15);
        const uint32_t vecs = static_cast<uint32_t>((last - first) / 16);
        const uint4* from = reinterpret_cast<const uint4*>(first);
        uint4 held[kUnblockVecsPerThread];
#pragma unroll
        for (unsigned r = 0; r < kUnblockVecsPerThread; ++r) {
            const uint32_t k = threadIdx.x + r * kUnblockThreads;
            if (k < vecs) held[r] = from[k];
        }
#pragma unroll
        for (unsigned r = 0; r < kUnblockVecsPerThread; ++r) {
            const uint32_t k = threadIdx.x + r * kUnblockThreads;
            if (k < vecs) window[k] = held[r];
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            // window byte i is chunk byte pos - (c + pos - first) + i
            const uint8_t* w = reinterpret_cast<const uint8_t*>(window) + (reinterpret_cast<uintptr_t>(c + pos) - first);
            uint64_t p = pos;
            uint32_t b = walk_block;
            // Every window holds at least one whole header (end >= pos + 4 unless the chunk ends
            // first, which is an error), so every pass moves on.
            for (; b < g.n_blocks; ++b) {
                if (len - p < 4) {
                    status[f] = ((b + 1) << 8) | kBlockPastEnd;
                    walk_done = 1;
                    break;
                }
                if (p + 4 > end) break;  // the header is past the window: the next pass loads it
                const uint32_t blen = load_be32(w + (p - pos));
                if (blen > len - p - 4) {
                    status[f] = ((b + 1) << 8) | kBlockPastEnd;
                    walk_done = 1;
                    break;
                }
                block_offset[uint64_t(f) * g.n_blocks + b] = base + p;
                p += 4 + uint64_t(blen);
            }
            if (!walk_done && b == g.n_blocks) {
                const uint64_t tail_bytes = uint64_t(g.tail_elems) * g.elem_size;
                if (len - p < tail_bytes) status[f] = kTailShort;
                else if (len - p > tail_bytes) status[f] = kLeftover;
                else tail_offset[f] = base + p;
                walk_done = 1;
            }
            walk_pos = p;
            walk_block = b;
        }
        __syncthreads();
    }
}
