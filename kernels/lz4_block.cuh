// The LZ4 block copy of one warp: the block's sequences, already found and checked by
// lz4_parse (lz4_sequences.cuh), are written into shared memory. The warp takes them 32 at a
// time, one descriptor a lane. Literal runs depend on nothing, so each lane copies its own
// short run while the others do theirs; the few long runs are copied by the whole warp. Matches
// may read what the match before them wrote, so they go one after another, each by all 32
// lanes. Nothing here checks a bound: the parse has proved every sequence fits the block.
#pragma once
#include "kernel_abi.h"
#include "lz4_sequences.cuh"

namespace bslz4_kernels {

// A lane copies a literal run this short by itself, unrolled, all its loads in flight at once.
constexpr unsigned kLaneLiterals = 16;

// lane mod d for lane <= 32 and 0 < d < 32, without an integer division: (lane + 0.5) / d is
// at least 1/62 away from an integer, far more than the float rounding error.
__device__ inline unsigned lane_mod(unsigned lane, unsigned d) {
    const unsigned q = __float2uint_rz((float(lane) + 0.5f) * __frcp_rn(float(d)));
    return lane - q * d;
}

// Copies n input bytes to out, the whole warp together, with four loads in flight per lane.
__device__ inline void copy_literals(const uint8_t* __restrict__ in, uint8_t* out, unsigned n, unsigned lane) {
    unsigned k = lane;
    for (; k + 96 < n; k += 128) {
        const uint8_t a = __ldg(in + k), b = __ldg(in + k + 32), c = __ldg(in + k + 64), d = __ldg(in + k + 96);
        out[k] = a;
        out[k + 32] = b;
        out[k + 64] = c;
        out[k + 96] = d;
    }
    for (; k < n; k += 32) out[k] = __ldg(in + k);
}

// A match at least this far back is copied 4 bytes a lane: a round of 32 lanes writes 128
// bytes and reads 4-byte words up to 7 bytes past its source, all written by earlier rounds.
constexpr unsigned kWordCopyOffset = 136;

// out[op, op + n) = out[op - offset, ...) for offset >= kWordCopyOffset: bytes up to op's next
// 4-byte boundary one at a time, then aligned words, each built from the two source words
// around it with a funnel shift, then the last bytes.
__device__ inline void copy_match_words(uint8_t* out, unsigned op, unsigned offset, unsigned n, unsigned lane) {
    const unsigned head = min(n, (4u - (op & 3u)) & 3u);
    if (lane < head) out[op + lane] = out[op - offset + lane];
    op += head;
    n -= head;
    const unsigned from = op - offset, words = n / 4, shift = 8 * (from & 3u);
    const uint32_t* src = reinterpret_cast<const uint32_t*>(out + (from & ~3u));
    uint32_t* dst = reinterpret_cast<uint32_t*>(out + op);
    for (unsigned k0 = 0; k0 < words; k0 += 32) {
        const unsigned k = k0 + lane;
        if (k < words) dst[k] = __funnelshift_r(src[k], src[k + 1], shift);
        __syncwarp();
    }
    const unsigned tail = n - 4 * words;
    if (lane < tail) out[op + 4 * words + lane] = out[from + 4 * words + lane];
}

// out[op, op + n) = the LZ4 match `offset` bytes back, the whole warp together. Byte k repeats
// byte (k mod offset) of the source, so a short offset becomes a pattern every lane can write
// at once.
__device__ inline void copy_match(uint8_t* out, unsigned op, unsigned offset, unsigned n, unsigned lane) {
    const unsigned from = op - offset;
    if (n <= 32) {  // short matches are the common case: one step (the branches are warp-uniform)
        if (lane < n) out[op + lane] = out[from + (offset >= n ? lane : lane_mod(lane, offset))];
        return;
    }
    if (offset >= kWordCopyOffset) {
        copy_match_words(out, op, offset, n, lane);
    } else if (offset >= n) {
        for (unsigned k = lane; k < n; k += 32) out[op + k] = out[from + k];
    } else if (offset == 1) {  // a run of one byte (the zero bit-planes)
        const uint8_t b = out[from];
        for (unsigned k = lane; k < n; k += 32) out[op + k] = b;
    } else if (offset < 32) {
        unsigned idx = lane_mod(lane, offset);
        unsigned step = lane_mod(31, offset) + 1;  // 32 mod offset
        if (step == offset) step = 0;
        for (unsigned k = lane; k < n; k += 32) {
            out[op + k] = out[from + idx];
            idx += step;
            if (idx >= offset) idx -= offset;
        }
    } else {  // 32 <= offset < n: a round of 32 reads bytes written offset/32 rounds before
        const unsigned rounds_apart = offset / 32;
        unsigned k0 = 0;
        while (k0 < n) {
            for (unsigned r = 0; r < rounds_apart && k0 < n; ++r, k0 += 32) {
                const unsigned k = k0 + lane;
                if (k < n) out[op + k] = out[from + k];
            }
            __syncwarp();
        }
    }
}

// Writes the block whose input is `in` and whose `count` sequences are seq into out.
__device__ inline void lz4_copy_sequences(const uint8_t* __restrict__ in, const uint2* __restrict__ seq,
                                          unsigned count, uint8_t* out, unsigned lane) {
    unsigned op = 0;
    for (unsigned r = 0; r < count; r += 32) {
        const uint2 mine = r + lane < count ? seq[r + lane] : make_uint2(0, 0);
        const unsigned literals = sequence_literals(mine), length = literals + sequence_match(mine);
        unsigned end = length;  // a warp scan of the lengths: where each sequence ends
        for (unsigned s = 1; s < 32; s <<= 1) {
            const unsigned up = __shfl_up_sync(0xFFFFFFFFu, end, s);
            if (lane >= s) end += up;
        }
        const unsigned start = op + end - length;
        const uint8_t* lit_in = in + sequence_literal_at(mine);
        if (literals <= kLaneLiterals) {
#pragma unroll
            for (unsigned i = 0; i < kLaneLiterals; ++i)
                if (i < literals) out[start + i] = __ldg(lit_in + i);
        }
        for (unsigned long_runs = __ballot_sync(0xFFFFFFFFu, literals > kLaneLiterals); long_runs;
             long_runs &= long_runs - 1) {
            const unsigned j = __ffs(long_runs) - 1;
            copy_literals(in + __shfl_sync(0xFFFFFFFFu, sequence_literal_at(mine), j),
                          out + __shfl_sync(0xFFFFFFFFu, start, j), __shfl_sync(0xFFFFFFFFu, literals, j), lane);
        }
        __syncwarp();  // a match may copy any literal of this round
        const unsigned match_at = start + literals;
        const unsigned here = min(32u, count - r);
        for (unsigned j = 0; j < here; ++j) {
            const uint2 q = make_uint2(0, __shfl_sync(0xFFFFFFFFu, mine.y, j));
            const unsigned at = __shfl_sync(0xFFFFFFFFu, match_at, j);
            if (const unsigned match = sequence_match(q)) {
                copy_match(out, at, sequence_offset(q), match, lane);
                __syncwarp();  // the next match may copy this one
            }
        }
        op += __shfl_sync(0xFFFFFFFFu, end, 31);
    }
}

}  // namespace bslz4_kernels
