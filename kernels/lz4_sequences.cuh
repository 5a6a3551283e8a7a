// An LZ4 block as a list of sequences, and the one thread that finds them. Parsing a block is
// a serial chain (where a sequence starts depends on every length before it); when a whole
// warp walked that chain together, each of its 32 lanes ran the same ~80 instructions per
// sequence, most of the decode's time. So one thread parses one block (32 blocks a warp at
// once in lz4_parse.cu; one block a warp in lz4_parse_warp.cu, for few frames), and writes
// each sequence as an 8-byte descriptor; the decode warp (lz4_block.cuh) then only copies.
// The walk (lz4_walk_sequences) reads its block through an input that each kernel shapes to
// itself (BlockInput here, WholeBlockInput in lz4_parse_warp.cu), so the rules are written once. The parse checks every read against the input's end and every length
// and offset against the output's, so the copies that follow need no checks, and it keeps the
// format's rules exactly as the CPU decoder does (the list at the top of runtime/cpu/lz4_block.cpp:
// no offset 0, no match starting in the block's last 12 bytes or ending in its last 5). An error
// is a return value, never a trap.
#pragma once
#include "kernel_abi.h"
#include "shared_memory.cuh"

namespace bslz4_kernels {

constexpr unsigned kRunMask = 15;   // a nibble of 15: more length bytes follow
constexpr unsigned kMinMatch = 4;   // the format's shortest match
constexpr unsigned kMatchStartLimit = 12;  // a match starts at least this far before the block's end
constexpr unsigned kLastLiterals = 5;      // and ends at least this far before it

// One sequence: x = where its literals start in the block's input (low 16 bits) and how
// many there are (high 16); y = the match offset (low 16) and length (high 16), 0 for the
// block's last sequence, which has literals only. Every field is at most 8240: 16 bits hold it.
__device__ inline uint2 make_sequence(unsigned literal_at, unsigned literals, unsigned offset, unsigned match) {
    return make_uint2(literal_at | (literals << 16), offset | (match << 16));
}
__device__ inline unsigned sequence_literal_at(uint2 s) { return s.x & 0xFFFFu; }
__device__ inline unsigned sequence_literals(uint2 s) { return s.x >> 16; }
__device__ inline unsigned sequence_offset(uint2 s) { return s.y & 0xFFFFu; }
__device__ inline unsigned sequence_match(uint2 s) { return s.y >> 16; }

// A parsing thread's view of its block's input: a window of kWindowLines aligned 16-byte lines
// in the thread's own slice of shared memory. A read outside the window refills all of it at
// once, its loads in flight together: the parse is a chain of dependent reads, and one L2 round
// trip per window (about 20 sequences) costs far less than one per line. The 32 threads of a
// warp parse 32 blocks in step, so a refill by one thread holds up all 32, and threads that
// each refill on their own make the warp wait at many steps. So the warp also tops up together
// (top_up): once any thread nears its window's end, every thread past its window's middle
// refills in the same step, and the warp waits once for all of them.
// A line may reach up to 15 bytes past the block's end; only lines that start inside the block
// are loaded, and the chunk buffer keeps kChunkPadding spare bytes, so no load leaves it. Bytes
// past the block's end are never used. Positions are 32-bit offsets from the block's first
// aligned line: the chain of reads is short integer arithmetic, not 64-bit pointer compares.
constexpr unsigned kWindowLines = 16;
constexpr unsigned kWindowBytes = 16 * kWindowLines;
// top_up refills the warp when a thread has fewer bytes than this left in its window: enough
// for a sequence's token, offset and length bytes after its literals.
constexpr unsigned kTopUpMargin = 48;

class BlockInput {
public:
    __device__ BlockInput(const uint8_t* in, unsigned in_len, uint4* window)
        : lines_(reinterpret_cast<const uint8_t*>(reinterpret_cast<uintptr_t>(in) & ~uintptr_t(15))),
          skew_(unsigned(reinterpret_cast<uintptr_t>(in) & 15u)), end_(skew_ + in_len), window_(window) {}

    // Byte i of the block (i < in_len).
    __device__ unsigned byte(unsigned i) {
        const unsigned at = skew_ + i;
        if (at - line0_ >= kWindowBytes) refill(at);  // below the window, the difference wraps
        return reinterpret_cast<const uint8_t*>(window_)[at - line0_];
    }

    // Bytes i .. i + 3 of the block, little-endian (those past its end are not the block's).
    __device__ uint32_t word(unsigned i) {
        const unsigned at = skew_ + i;
        if ((at & ~3u) - line0_ > kWindowBytes - 8) refill(at);
        const uint32_t* w = reinterpret_cast<const uint32_t*>(window_) + ((at & ~3u) - line0_) / 4;
        return __funnelshift_r(w[0], w[1], 8 * (at & 3u));
    }

    // Called by the warp's threads together at a point they reach together, with where each
    // reads next (at most in_len): refills every thread past its window's middle with input
    // left, if any such thread has fewer than kTopUpMargin bytes left in its window.
    __device__ void top_up(unsigned i) {
        const unsigned at = skew_ + i, used = at - line0_;
        const bool more = at < end_;
        if (__any_sync(__activemask(), more && used > kWindowBytes - kTopUpMargin) && more && used > kWindowBytes / 2)
            refill(at);
    }

private:
    // The window from the line holding offset `at`. From sm_80 the lines are copied into shared
    // memory without passing through registers (cp.async): a refill of 16 lines in registers
    // doubled the parse's registers and halved the warps a multiprocessor holds.
    __device__ void refill(unsigned at) {
        line0_ = at & ~15u;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
        const uint32_t to = shared_address(window_);
#pragma unroll
        for (unsigned k = 0; k < kWindowLines; ++k)
            if (line0_ + 16 * k < end_)
                asm volatile("cp.async.ca.shared.global [%0], [%1], 16;" ::"r"(to + 16 * k), "l"(lines_ + line0_ + 16 * k)
                             : "memory");
        asm volatile("cp.async.wait_all;" ::: "memory");
#else
        uint4 v[kWindowLines];
#pragma unroll
        for (unsigned k = 0; k < kWindowLines; ++k)
            if (line0_ + 16 * k < end_) v[k] = __ldg(reinterpret_cast<const uint4*>(lines_ + line0_ + 16 * k));
#pragma unroll
        for (unsigned k = 0; k < kWindowLines; ++k)
            if (line0_ + 16 * k < end_) window_[k] = v[k];
#endif
    }

    const uint8_t* lines_;  // the aligned line holding the block's first byte
    unsigned skew_;         // the block's first byte in that line
    unsigned end_;          // offsets below this are the block's (or the line before it)
    uint4* window_;
    unsigned line0_ = 0x80000000u;  // empty: the first read refills
};

// Asks L2 for the whole block before the dependent reads start: each window refill then
// waits for L2, not DRAM.
__device__ inline void prefetch_block(const uint8_t* in, unsigned len) {
    for (uintptr_t a = reinterpret_cast<uintptr_t>(in) & ~uintptr_t(127); a < reinterpret_cast<uintptr_t>(in + len); a += 128)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a));
}

// Adds LZ4's length-extension bytes (255 = continue, the first other byte ends) to len; false
// if the input ends first. Four bytes are looked at a time: a match over several zero
// bit-planes has a run of 255s, and a thread walking it byte by byte held its warp back.
template <class Input>
__device__ inline bool lz4_extend(Input& in, unsigned in_len, unsigned& ip, unsigned& len) {
    for (;;) {
        if (ip >= in_len) return false;
        const uint32_t w = in.word(ip);
        const unsigned avail = min(4u, in_len - ip);
        const uint32_t not_255 = ~__vcmpeq4(w, 0xFFFFFFFFu);  // 0xFF in each byte that is not 255
        const unsigned run = not_255 ? unsigned(__ffs(int(not_255)) - 1) / 8 : 4;  // leading 255s
        if (run >= avail) {  // every byte left in view is 255
            if (avail < 4) return false;
            len += 4 * 255;
            ip += 4;
            continue;
        }
        len += 255 * run + ((w >> (8 * run)) & 0xFFu);
        ip += run + 1;
        return true;
    }
}

// Walks the block that `in` reads (in_len bytes, which must decode to exactly out_len bytes)
// into seq[0, *count). seq has room for in_len / kInputBytesPerSequence + 1 sequences, as every
// sequence but the last takes at least a token and a 2-byte offset. Returns 0 or a
// bslz4_abi::FaultCode. Input: byte(i) and word(i) as BlockInput's, and top_up(i), called with
// where the walk reads next at a point every thread of the warp walking reaches together.
template <class Input>
__device__ inline unsigned lz4_walk_sequences(Input& in, unsigned in_len, unsigned out_len, uint2* __restrict__ seq,
                                              unsigned* count) {
    using namespace bslz4_abi;
    unsigned ip = 0, op = 0, n = 0;
    for (;;) {
        if (ip >= in_len) return kLz4Truncated;
        const unsigned token = in.byte(ip++);
        unsigned lit = token >> 4;
        if (lit == kRunMask && !lz4_extend(in, in_len, ip, lit)) return kLz4Truncated;
        if (lit > in_len - ip) return kLz4Truncated;
        if (lit > out_len - op) return kLz4TooMany;
        const unsigned literal_at = ip;
        ip += lit;
        op += lit;
        in.top_up(ip);
        if (ip == in_len) {  // the last sequence carries literals only
            seq[n++] = make_sequence(literal_at, lit, 0, 0);
            break;
        }
        if (in_len - ip < 2) return kLz4Truncated;
        const unsigned offset = in.word(ip) & 0xFFFFu;
        ip += 2;
        if (offset == 0 || offset > op) return kLz4BadOffset;
        // The end-of-block rules, as the CPU decoder keeps them (runtime/cpu/lz4_block.cpp).
        if (out_len - op < kMatchStartLimit) return kLz4EndOfBlock;
        unsigned match = token & kRunMask;
        if (match == kRunMask && !lz4_extend(in, in_len, ip, match)) return kLz4Truncated;
        match += kMinMatch;
        if (match > out_len - op - kLastLiterals) return kLz4EndOfBlock;
        seq[n++] = make_sequence(literal_at, lit, offset, match);
        op += match;
    }
    if (op != out_len) return kLz4TooFew;
    *count = n;
    return 0;
}

// lz4_walk_sequences over block[0, in_len) read through a BlockInput; window: the thread's
// kWindowLines lines of shared memory.
__device__ inline unsigned lz4_parse_block(const uint8_t* __restrict__ block, unsigned in_len, unsigned out_len,
                                           uint4* window, uint2* __restrict__ seq, unsigned* count) {
    prefetch_block(block, in_len);
    BlockInput in(block, in_len, window);
    return lz4_walk_sequences(in, in_len, out_len, seq, count);
}

}  // namespace bslz4_kernels
