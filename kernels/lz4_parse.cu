// lz4_parse: one thread per LZ4 block of a batch of frames. The thread walks its block's
// tokens (lz4_sequences.cuh), checks them, and writes the block's sequence descriptors and
// their count for the decode kernel; a bad block sets its frame's status. Shaped so: the
// parse is a serial chain of a few byte loads per sequence, which one thread runs as fast as
// a warp would, while 32 threads a warp run 32 blocks' chains side by side. Each thread reads
// its block through a window of it in shared memory, so most reads in the chain wait for
// shared memory, not for L2.
#include "kernel_abi.h"
#include "lz4_sequences.cuh"

// chunks: the group's chunks packed; chunk_offset: each frame's; block_offset: from unblock;
// seq_first[f]: where frame f's run of sequence slots starts, counted from the group's first
// frame; this launch's frames start at first_frame, and their runs at seq_first[first_frame].
// Writes sequences and seq_count[f * n_blocks + b].
extern "C" __global__ void __launch_bounds__(bslz4_abi::kParseThreads)
bslz4_lz4_parse(const uint8_t* chunks, const uint64_t* chunk_offset, const uint64_t* block_offset,
                const uint64_t* seq_first, uint32_t* status, uint32_t first_frame, bslz4_abi::FrameGeometry g,
                uint2* sequences, uint32_t* seq_count) {
    using namespace bslz4_abi;
    __shared__ uint4 windows[kParseThreads][bslz4_kernels::kWindowLines];
    const uint32_t b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= g.n_blocks) return;
    const uint32_t f = first_frame + blockIdx.y;
    const uint64_t at = uint64_t(f) * g.n_blocks + b;
    seq_count[at] = 0;
    // A bad chunk layout leaves block offsets unwritten. A fault of another block does not stop
    // this one: the status keeps the first fault in the chunk whatever the timing.
    if (status[f] != kFrameOk && (status[f] & 0xFF) <= kLeftover) return;
    const uint8_t* src = chunks + block_offset[at];
    const uint32_t len = (uint32_t(__ldg(src)) << 24) | (uint32_t(__ldg(src + 1)) << 16) |
                         (uint32_t(__ldg(src + 2)) << 8) | __ldg(src + 3);
    const unsigned out_len = (b + 1 == g.n_blocks ? g.last_block_elems : g.block_elems) * g.elem_size;
    uint2* seq = sequences + (seq_first[f] - seq_first[first_frame]) +
                 (block_offset[at] - chunk_offset[f]) / kInputBytesPerSequence;
    unsigned count = 0;
    const unsigned fault =
        len > kMaxCompressedBlock ? kBlockTooLong : bslz4_kernels::lz4_parse_block(src + 4, len, out_len, windows[threadIdx.x], seq, &count);
    if (fault) {
        atomicMin(status + f, ((b + 1) << 8) | fault);
        return;
    }
    seq_count[at] = count;
}
