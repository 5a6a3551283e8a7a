// lz4_parse_warp: one warp per LZ4 block, for parse launches of few frames (a one-frame call's
// 1,092 blocks). The warp copies its whole block into its slice of shared memory, all its
// loads in flight at once, then its first lane walks the tokens there (lz4_sequences.cuh: the
// same walk and checks as lz4_parse) and writes what lz4_parse would. Shaped so: with one frame,
// lz4_parse's 9 thread blocks leave most multiprocessors idle, and each of its warps takes as
// long as the slowest of its 32 chains with every window refill of the others on top (H200, a
// dense Eiger 4M frame: about 107 us); here each chain has a warp to itself and reads only
// shared memory once its block is in (about 50 us, the walk's chain of dependent instructions).
#include "kernel_abi.h"
#include "lz4_sequences.cuh"

namespace bslz4_kernels {

// A block's input whole in a warp's slice of shared memory: the aligned 16-byte lines from the
// one holding its first byte, as BlockInput loads them (only lines that start inside the block;
// the chunk buffer keeps kChunkPadding spare bytes, so no load leaves it), with room for word()
// to read up to 7 bytes past the block's end (bytes past its end are never used).
constexpr unsigned kWholeBlockLines = (15 + bslz4_abi::kMaxCompressedBlock + 8 + 15) / 16;

class WholeBlockInput {
public:
    // Called by every lane of the warp: in_len is at most kMaxCompressedBlock.
    __device__ WholeBlockInput(const uint8_t* in, unsigned in_len, uint4* slice, unsigned lane)
        : skew_(unsigned(reinterpret_cast<uintptr_t>(in) & 15u)), bytes_(reinterpret_cast<const uint8_t*>(slice)) {
        const uint8_t* lines = reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(in) & ~uintptr_t(15));
        const unsigned end = skew_ + in_len;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        const uint32_t to = shared_address(slice);
        for (unsigned k = lane; 16 * k < end; k += 32)
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(to + 16 * k), "l"(lines + 16 * k) : "memory");
        asm volatile("cp.async.wait_all;" ::: "memory");
#else
        for (unsigned k = lane; 16 * k < end; k += 32) slice[k] = __ldg(reinterpret_cast<const uint4*>(lines) + k);
#endif
        __syncwarp();
    }

    // Byte i of the block (i < in_len).
    __device__ unsigned byte(unsigned i) const { return bytes_[skew_ + i]; }

    // Bytes i .. i + 3 of the block, little-endian (those past its end are not the block's).
    __device__ uint32_t word(unsigned i) const {
        const unsigned at = skew_ + i;
        const uint32_t* w = reinterpret_cast<const uint32_t*>(bytes_) + at / 4;
        return __funnelshift_r(w[0], w[1], 8 * (at & 3u));
    }

    // The whole block is in: nothing to refill.
    __device__ void top_up(unsigned) const {}

private:
    unsigned skew_;         // the block's first byte in its first line
    const uint8_t* bytes_;  // the slice
};

}  // namespace bslz4_kernels

// Arguments and results as bslz4_lz4_parse's.
extern "C" __global__ void __launch_bounds__(bslz4_abi::kParseWarps * 32)
bslz4_lz4_parse_warp(BSLZ4_KERNEL_PARAMS(BSLZ4_PARSE_ARGS)) {
    using namespace bslz4_abi;
    __shared__ uint4 slices[kParseWarps][bslz4_kernels::kWholeBlockLines];
    const unsigned lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const uint32_t b = blockIdx.x * kParseWarps + warp;
    if (b >= g.n_blocks) return;  // the whole warp: every branch up to the walk is the warp's
    const uint32_t f = first_frame + blockIdx.y;
    const bslz4_kernels::ParseBlock p =
        bslz4_kernels::parse_block_of(chunks, chunk_offset, block_offset, seq_first, status, first_frame, g, sequences, seq_count, f, b);
    if (p.skip) return;
    unsigned count = 0, fault = kBlockTooLong;
    if (p.len <= kMaxCompressedBlock) {
        bslz4_kernels::WholeBlockInput in(p.src + 4, p.len, slices[warp], lane);
        if (lane != 0) return;
        fault = bslz4_kernels::lz4_walk_sequences(in, p.len, p.out_len, p.seq, &count);
    }
    if (lane == 0) bslz4_kernels::parse_done(p, f, b, fault, count, status, seq_count);
}
