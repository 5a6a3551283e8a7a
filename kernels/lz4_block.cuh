// The LZ4 block copy of one warp: the block's sequences, already found and checked by
// lz4_parse (lz4_sequences.cuh), are written into shared memory. The warp takes them 32 at a
// time, one descriptor a lane. Literal runs depend on nothing, so each lane copies its own
// short run while the others do theirs; the few long runs are copied by the whole warp. Matches
// may read what the match before them wrote, so they go one after another, each by all 32
// lanes; a long one as wide a lane as its offset allows (16 bytes, 4, or 1). Nothing here
// checks a bound: the parse has proved every sequence fits the block.
#pragma once
#include "kernel_abi.h"
#include "lz4_sequences.cuh"
#include "shared_memory.cuh"

namespace bslz4_kernels {

// A lane copies a literal run this short by itself, unrolled, all its loads in flight at once.
constexpr unsigned kLaneLiterals = 16;

// k mod d for k <= 63 and 0 < d < 32 is k - d * ((k * m) >> 11) with m = ceil(2048 / d): the
// error k * (m - 2048/d) / 2048 < 1/32 never carries past the next multiple of d. With m = 0
// (for d >= 32) the same formula gives k, which is k mod d for k < 32.
__device__ inline unsigned mod_magic(unsigned d) { return d - 1 < 31u ? (2047u + d) / d : 0u; }
__device__ inline unsigned mod_by_magic(unsigned k, unsigned d, unsigned m) { return k - d * ((k * m) >> 11); }

// The largest v of the warp, in every lane.
__device__ inline unsigned warp_max(unsigned v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return __reduce_max_sync(0xFFFFFFFFu, v);
#else
    for (unsigned s = 16; s > 0; s >>= 1) v = max(v, __shfl_xor_sync(0xFFFFFFFFu, v, s));
    return v;
#endif
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

// A match at least this far back whose offset is a multiple of 16 is copied 16 bytes a lane: a
// round of 32 lanes writes 512 bytes, all of its sources written by earlier rounds. In
// bitshuffled detector data most long matches repeat the bit plane before (offset n / 8:
// 512 bytes for 16-bit pixels), so most of a block's copied bytes go this way.
constexpr unsigned kVectorCopyOffset = 512;

// out[dst, dst + n) = out[dst - offset, ...) for offset >= kVectorCopyOffset, a multiple of 16
// (n > 32): bytes up to dst's next 16-byte boundary, where the source is aligned too, then
// aligned 16-byte vectors, then the last bytes.
__device__ inline void copy_match_vectors(uint32_t base, unsigned dst, unsigned offset, unsigned n, unsigned lane) {
    const unsigned head = (16u - (dst & 15u)) & 15u;
    if (lane < head) store_shared_u8(base + dst + lane, load_shared_u8(base + dst - offset + lane));
    __syncwarp();  // the first round's sources reach up to the byte before dst + head
    const unsigned at = dst + head, vectors = (n - head) / 16;
    for (unsigned k0 = 0; k0 < vectors; k0 += 32) {
        const unsigned k = k0 + lane;
        if (k < vectors) store_shared_v4(base + at + 16 * k, load_shared_v4(base + at - offset + 16 * k));
        __syncwarp();
    }
    const unsigned tail_at = at + 16 * vectors;
    if (lane < dst + n - tail_at) store_shared_u8(base + tail_at + lane, load_shared_u8(base + tail_at - offset + lane));
}

// out[dst, dst + n) for a match of offset 1, 2, 4, 8 or 16 (n > 32): the offset divides 16, so
// every 16-byte-aligned vector of the match holds the same 16 bytes (a run of zeros, a repeated
// pixel pattern). One round of bytes writes the match through its first aligned vector, each
// lane reads that vector back, and the rest is stored 16 bytes a lane, 512 bytes a round.
__device__ inline void fill_match_period16(uint32_t base, unsigned dst, unsigned offset, unsigned n, unsigned lane) {
    const unsigned first = (dst + 15u) & ~15u, lead = first + 16 - dst;  // 16 to 31 bytes, fewer than n
    if (lane < lead) store_shared_u8(base + dst + lane, load_shared_u8(base + dst - offset + (lane & (offset - 1))));
    __syncwarp();
    const uint4 v = load_shared_v4(base + first);
    const unsigned rest = n - lead, vectors = rest / 16, tail_at = first + 16 + 16 * vectors;
    for (unsigned k = lane; k < vectors; k += 32) store_shared_v4(base + first + 16 + 16 * k, v);
    if (lane < rest - 16 * vectors) {  // byte lane of a vector: tail_at - first is a multiple of 16
        const uint32_t word = (lane & 8) ? ((lane & 4) ? v.w : v.z) : ((lane & 4) ? v.y : v.x);
        store_shared_u8(base + tail_at + lane, (word >> (8 * (lane & 3))) & 0xFFu);
    }
}

// out[dst, dst + n) = the LZ4 match from src = dst - offset, n > 32, the whole warp together.
// Byte k repeats byte (k mod offset) of the source, all of it written before the match, so
// the rounds need no ordering among themselves.
__device__ inline void copy_match_bytes(uint32_t base, unsigned dst, unsigned src, unsigned n, unsigned magic,
                                        unsigned lane) {
    const unsigned offset = dst - src;
    unsigned idx = mod_by_magic(lane, offset, magic);
    const unsigned step = mod_by_magic(32, offset, magic);  // 32 mod offset, or 32
#pragma unroll 2
    for (unsigned k = lane; k < n; k += 32) {
        store_shared_u8(base + dst + k, load_shared_u8(base + src + idx));
        idx += step;
        if (idx >= offset) idx -= offset;
    }
}

// Match j of a round (its descriptor in lane j: where = dst | src << 16, what = length |
// mod_magic(offset) << 16), with this lane's addresses for a match of at most 32 bytes: every
// lane reads inside [from, to), written before the match (lane mod offset < offset, and lane <=
// 31 < offset when the magic is 0), and writes byte `lane` of it. The copy loop works this out
// for match j + 1 while match j is copied, so its chain of dependent steps is the copy alone.
struct MatchCopy {
    unsigned to, from, n, magic;
    uint32_t src, dst;  // shared-memory addresses of this lane's byte
};

__device__ inline MatchCopy match_copy(unsigned where, unsigned what, unsigned j, uint32_t base, unsigned lane) {
    const unsigned w = __shfl_sync(0xFFFFFFFFu, where, j), x = __shfl_sync(0xFFFFFFFFu, what, j);
    MatchCopy m;
    m.to = w & 0xFFFFu;
    m.from = w >> 16;
    m.n = x & 0xFFFFu;
    m.magic = x >> 16;
    m.src = base + m.from + mod_by_magic(lane, m.to - m.from, m.magic);
    m.dst = base + m.to + lane;
    return m;
}

// Writes the block whose input is `in` and whose `count` sequences are seq into out.
__device__ inline void lz4_copy_sequences(const uint8_t* __restrict__ in, const uint2* __restrict__ seq,
                                          unsigned count, uint8_t* out, unsigned lane) {
    const uint32_t base = shared_address(out);
    unsigned op = 0;
    // Each round's descriptors are loaded a round ahead, so their wait overlaps the round before.
    uint2 ahead = lane < count ? seq[lane] : make_uint2(0, 0);
    for (unsigned r = 0; r < count; r += 32) {
        const uint2 mine = ahead;
        if (r + 32 < count) ahead = r + 32 + lane < count ? seq[r + 32 + lane] : make_uint2(0, 0);
        const unsigned literals = sequence_literals(mine), length = literals + sequence_match(mine);
        unsigned end = length;  // a warp scan of the lengths: where each sequence ends
        for (unsigned s = 1; s < 32; s <<= 1) {
            const unsigned up = __shfl_up_sync(0xFFFFFFFFu, end, s);
            if (lane >= s) end += up;
        }
        const unsigned start = op + end - length;
        const uint8_t* lit_in = in + sequence_literal_at(mine);
        // Short runs, a lane each, eight loads in flight a lane (a run of at most 16 bytes waits
        // on device memory at most twice); as many rounds as the longest short run needs.
        const unsigned mine_short = literals <= kLaneLiterals ? literals : 0;
        const unsigned most = warp_max(mine_short);
        for (unsigned i0 = 0; i0 < most; i0 += 8) {
            uint8_t bytes[8];
#pragma unroll
            for (unsigned i = 0; i < 8; ++i) bytes[i] = i0 + i < mine_short ? __ldg(lit_in + i0 + i) : 0;
#pragma unroll
            for (unsigned i = 0; i < 8; ++i)
                if (i0 + i < mine_short) out[start + i0 + i] = bytes[i];
        }
        for (unsigned long_runs = __ballot_sync(0xFFFFFFFFu, literals > kLaneLiterals); long_runs;
             long_runs &= long_runs - 1) {
            const unsigned j = __ffs(long_runs) - 1;
            copy_literals(in + __shfl_sync(0xFFFFFFFFu, sequence_literal_at(mine), j),
                          out + __shfl_sync(0xFFFFFFFFu, start, j), __shfl_sync(0xFFFFFFFFu, literals, j), lane);
        }
        __syncwarp();  // a match may copy any literal of this round
        // Each lane readies its own match for the loop below: where it goes and comes from,
        // packed two 16-bit fields a word (the block is 8 kB), and its length with mod_magic.
        const unsigned dst = start + literals, offset = sequence_offset(mine);
        const unsigned where = dst | ((dst - offset) << 16);
        const unsigned what = sequence_match(mine) | (mod_magic(offset) << 16);
        const unsigned here = min(32u, count - r);
        const unsigned matches = r + 32 >= count ? here - 1 : 32;  // the block's last sequence has none
        MatchCopy next = match_copy(where, what, 0, base, lane);
        for (unsigned j = 0; j < matches; ++j) {
            const MatchCopy m = next;
            next = match_copy(where, what, j + 1, base, lane);  // lane 0's after the round's last: unused
            const unsigned to = m.to, from = m.from, n = m.n, magic = m.magic;
            if (n <= 32) {  // most matches: one step, every lane one byte (the branch is warp-uniform)
                const unsigned v = load_shared_u8(m.src);
                if (lane < n) store_shared_u8(m.dst, v);
            } else if (to - from >= kVectorCopyOffset && (to - from) % 16 == 0) {
                copy_match_vectors(base, to, to - from, n, lane);
            } else if (to - from >= kWordCopyOffset) {
                copy_match_words(out, to, to - from, n, lane);
            } else if (to - from <= 16 && ((to - from) & (to - from - 1)) == 0) {
                fill_match_period16(base, to, to - from, n, lane);
            } else {
                copy_match_bytes(base, to, from, n, magic, lane);
            }
            __syncwarp();  // the next match may copy this one
        }
        op += __shfl_sync(0xFFFFFFFFu, end, 31);
    }
}

}  // namespace bslz4_kernels
