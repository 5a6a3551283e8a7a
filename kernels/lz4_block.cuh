// The LZ4 block decoder of one warp. The 32 lanes parse each sequence together (every lane
// reads the same token, so control flow stays uniform) and copy its literals and match in
// parallel. The compressed block is read from global memory (it is read once, in order, and
// the L1 cache serves the token reads); the output is shared memory. Every read is checked
// against the input's end and every write against the output's, as lz4's
// LZ4_decompress_safe does. An error is a return value, never a trap.
#pragma once
#include "kernel_abi.h"

namespace bslz4_kernels {

constexpr unsigned kRunMask = 15;   // a nibble of 15: more length bytes follow
constexpr unsigned kMinMatch = 4;   // the format's shortest match

// Adds LZ4's length-extension bytes (255 = continue) to len; false if the input ends first.
__device__ inline bool lz4_extend(const uint8_t* __restrict__ in, unsigned in_len, unsigned& ip, unsigned& len) {
    unsigned s;
    do {
        if (ip >= in_len) return false;
        s = __ldg(in + ip++);
        len += s;
    } while (s == 255);
    return true;
}

// Copies n input bytes to out with four loads in flight per lane. Most runs are short: one
// predicated step, with no loop set-up.
__device__ inline void copy_literals(const uint8_t* __restrict__ in, uint8_t* out, unsigned n, unsigned lane) {
    if (n <= 32) {
        if (lane < n) out[lane] = __ldg(in + lane);
        return;
    }
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

// out[op, op + n) = the LZ4 match `offset` bytes back. Byte k repeats byte (k mod offset) of
// the source, so a short offset becomes a pattern every lane can write at once.
__device__ inline void copy_match(uint8_t* out, unsigned op, unsigned offset, unsigned n, unsigned lane) {
    const unsigned from = op - offset;
    if (n <= 32) {  // short matches are the common case: one step (the branches are warp-uniform)
        if (offset >= n) {
            if (lane < n) out[op + lane] = out[from + lane];
        } else {
            if (lane < n) out[op + lane] = out[from + lane % offset];
        }
        return;
    }
    if (offset >= n) {
        for (unsigned k = lane; k < n; k += 32) out[op + k] = out[from + k];
    } else if (offset == 1) {  // a run of one byte (the zero bit-planes): no division
        const uint8_t b = out[from];
        for (unsigned k = lane; k < n; k += 32) out[op + k] = b;
    } else if (offset < 32) {
        unsigned idx = lane % offset;
        const unsigned step = 32 % offset;
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

// Decodes in[0, in_len) into out[0, out_len); returns 0 or a bslz4_abi::FaultCode.
__device__ inline unsigned lz4_decode_warp(const uint8_t* __restrict__ in, unsigned in_len, uint8_t* out,
                                           unsigned out_len, unsigned lane) {
    unsigned ip = 0, op = 0;
    for (;;) {
        if (ip >= in_len) return bslz4_abi::kLz4Truncated;
        const unsigned token = __ldg(in + ip++);
        unsigned lit = token >> 4;
        if (lit == kRunMask && !lz4_extend(in, in_len, ip, lit)) return bslz4_abi::kLz4Truncated;
        if (lit > in_len - ip) return bslz4_abi::kLz4Truncated;
        if (lit > out_len - op) return bslz4_abi::kLz4TooMany;
        copy_literals(in + ip, out + op, lit, lane);
        ip += lit;
        op += lit;
        if (ip == in_len) break;  // the last sequence carries literals only
        if (in_len - ip < 2) return bslz4_abi::kLz4Truncated;
        const unsigned offset = __ldg(in + ip) | (unsigned(__ldg(in + ip + 1)) << 8);
        ip += 2;
        if (offset == 0 || offset > op) return bslz4_abi::kLz4BadOffset;
        unsigned match = token & kRunMask;
        if (match == kRunMask && !lz4_extend(in, in_len, ip, match)) return bslz4_abi::kLz4Truncated;
        match += kMinMatch;
        if (match > out_len - op) return bslz4_abi::kLz4TooMany;
        __syncwarp();  // the literals just written may be the match's source
        copy_match(out, op, offset, match, lane);
        op += match;
        __syncwarp();
    }
    if (op != out_len) return bslz4_abi::kLz4TooFew;
    __syncwarp();
    return 0;
}

}  // namespace bslz4_kernels
