// lz4_parse: one thread per LZ4 block of a batch of frames. The thread walks its block's
// tokens (lz4_sequences.cuh), checks them, and writes the block's sequence descriptors and
// their count for the decode kernel; a bad block sets its frame's status. Shaped so: the
// parse is a serial chain of a few byte loads per sequence, which one thread runs as fast as
// a warp would, while 32 threads a warp run 32 blocks' chains side by side. Each thread reads
// its block through a window of it in shared memory, so most reads in the chain wait for
// shared memory, not for L2. (Launches of few frames take lz4_parse_warp.cu instead.)
#include "kernel_abi.h"
#include "lz4_sequences.cuh"

namespace bslz4_kernels {

// Block b of frame f as both parse kernels take it: where its length field is, where its
// sequences go, what it decodes to. Its sequence count is 0 until it is parsed.
struct ParseBlock {
    uint64_t at;        // f * n_blocks + b: its block offset and sequence count
    bool skip;          // its chunk's layout is bad: nothing else here was read
    const uint8_t* src;  // its 4-byte big-endian length, then its LZ4 input
    uint32_t len;
    unsigned out_len;
    uint2* seq;
};

// chunks: the group's chunks packed; chunk_offset: each frame's; block_offset: from unblock;
// seq_first[f]: where frame f's run of sequence slots starts, counted from the group's first
// frame; this launch's frames start at first_frame, and their runs at seq_first[first_frame].
__device__ inline ParseBlock parse_block_of(const uint8_t* chunks, const uint64_t* chunk_offset, const uint64_t* block_offset,
                                            const uint64_t* seq_first, const uint32_t* status, uint32_t first_frame,
                                            const bslz4_abi::FrameGeometry& g, uint2* sequences, uint32_t* seq_count,
                                            uint32_t f, uint32_t b) {
    using namespace bslz4_abi;
    ParseBlock p{};
    p.at = uint64_t(f) * g.n_blocks + b;
    seq_count[p.at] = 0;
    // A bad chunk layout leaves block offsets unwritten. A fault of another block does not stop
    // this one: the status keeps the first fault in the chunk whatever the timing.
    p.skip = status[f] != kFrameOk && (status[f] & 0xFF) <= kLeftover;
    if (p.skip) return p;
    p.src = chunks + block_offset[p.at];
    p.len = (uint32_t(__ldg(p.src)) << 24) | (uint32_t(__ldg(p.src + 1)) << 16) | (uint32_t(__ldg(p.src + 2)) << 8) |
            __ldg(p.src + 3);
    p.out_len = (b + 1 == g.n_blocks ? g.last_block_elems : g.block_elems) * g.elem_size;
    p.seq = sequences + (seq_first[f] - seq_first[first_frame]) + (block_offset[p.at] - chunk_offset[f]) / kInputBytesPerSequence;
    return p;
}

// The walk's result: the block's count, or its fault kept in its frame's status.
__device__ inline void parse_done(const ParseBlock& p, uint32_t f, uint32_t b, unsigned fault, unsigned count,
                                  uint32_t* status, uint32_t* seq_count) {
    if (fault)
        atomicMin(status + f, ((b + 1) << 8) | fault);
    else
        seq_count[p.at] = count;
}

}  // namespace bslz4_kernels

// Writes sequences and seq_count[f * n_blocks + b].
extern "C" __global__ void __launch_bounds__(bslz4_abi::kParseThreads)
bslz4_lz4_parse(BSLZ4_KERNEL_PARAMS(BSLZ4_PARSE_ARGS)) {
    using namespace bslz4_abi;
    __shared__ uint4 windows[kParseThreads][bslz4_kernels::kWindowLines];
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= g.n_blocks) return;
    const uint32_t f = first_frame + blockIdx.y;
    const bslz4_kernels::ParseBlock p =
        bslz4_kernels::parse_block_of(chunks, chunk_offset, block_offset, seq_first, status, first_frame, g, sequences, seq_count, f, b);
    if (p.skip) return;
    unsigned count = 0;
    const unsigned fault = p.len > kMaxCompressedBlock
                               ? kBlockTooLong
                               : bslz4_kernels::lz4_parse_block(p.src + 4, p.len, p.out_len, windows[threadIdx.x], p.seq, &count);
    bslz4_kernels::parse_done(p, f, b, fault, count, status, seq_count);
}
