// The LZ4 block decoder of one warp. The 32 lanes parse each sequence together (every lane
// reads the same token, so control flow stays uniform) and copy its literals and match in
// parallel. Input and output are in shared memory; every read is checked against the input's
// end and every write against the output's, as lz4's LZ4_decompress_safe does. An error is a
// return value, never a trap.
#pragma once
#include "kernel_abi.h"

namespace bslz4_kernels {

constexpr unsigned kRunMask = 15;   // a nibble of 15: more length bytes follow
constexpr unsigned kMinMatch = 4;   // the format's shortest match

// Adds LZ4's length-extension bytes (255 = continue) to len; false if the input ends first.
__device__ inline bool lz4_extend(const uint8_t* in, unsigned in_len, unsigned& ip, unsigned& len) {
    unsigned s;
    do {
        if (ip >= in_len) return false;
        s = in[ip++];
        len += s;
    } while (s == 255);
    return true;
}

// Decodes in[0, in_len) into out[0, out_len); returns 0 or a bslz4_abi::FaultCode.
__device__ inline unsigned lz4_decode_warp(const uint8_t* in, unsigned in_len, uint8_t* out, unsigned out_len,
                                           unsigned lane) {
    unsigned ip = 0, op = 0;
    for (;;) {
        if (ip >= in_len) return bslz4_abi::kLz4Truncated;
        const unsigned token = in[ip++];
        unsigned lit = token >> 4;
        if (lit == kRunMask && !lz4_extend(in, in_len, ip, lit)) return bslz4_abi::kLz4Truncated;
        if (lit > in_len - ip) return bslz4_abi::kLz4Truncated;
        if (lit > out_len - op) return bslz4_abi::kLz4TooMany;
        for (unsigned k = lane; k < lit; k += 32) out[op + k] = in[ip + k];
        ip += lit;
        op += lit;
        if (ip == in_len) break;  // the last sequence carries literals only
        if (in_len - ip < 2) return bslz4_abi::kLz4Truncated;
        const unsigned offset = in[ip] | (unsigned(in[ip + 1]) << 8);
        ip += 2;
        if (offset == 0 || offset > op) return bslz4_abi::kLz4BadOffset;
        unsigned match = token & kRunMask;
        if (match == kRunMask && !lz4_extend(in, in_len, ip, match)) return bslz4_abi::kLz4Truncated;
        match += kMinMatch;
        if (match > out_len - op) return bslz4_abi::kLz4TooMany;
        __syncwarp();  // the literals just written may be the match's source
        // Byte k of an overlapping match repeats the last `offset` bytes: its source is always
        // before op, so all lanes copy at once.
        const unsigned from = op - offset;
        if (offset >= match) {
            for (unsigned k = lane; k < match; k += 32) out[op + k] = out[from + k];
        } else {
            for (unsigned k = lane; k < match; k += 32) out[op + k] = out[from + k % offset];
        }
        op += match;
        __syncwarp();
    }
    if (op != out_len) return bslz4_abi::kLz4TooFew;
    __syncwarp();
    return 0;
}

}  // namespace bslz4_kernels
