// Bit-unshuffle of one decoded block in shared memory. A full block is done 32 elements a
// lane: the lane reads one 4-byte word from each of a byte's 8 planes (consecutive lanes,
// consecutive words: no bank conflicts), gathers each group's 8 plane bytes with byte
// permutes and transposes the 8x8 bit tile in two 32-bit registers. That is about 5 operations
// per element byte, where assembling each element bit by bit costs 40. A short last block
// (not a multiple of 32 elements) takes the bit-by-bit path.
#pragma once
#include <stdint.h>

namespace bslz4_kernels {

// The 8x8 bit tile (row r = byte r of lo:hi) transposed: bit (8r + c) <-> bit (8c + r).
__device__ inline void transpose_8x8(uint32_t& lo, uint32_t& hi) {
    uint32_t t = (lo ^ (lo >> 7)) & 0x00AA00AAu;
    lo ^= t ^ (t << 7);
    t = (hi ^ (hi >> 7)) & 0x00AA00AAu;
    hi ^= t ^ (t << 7);
    t = (lo ^ (lo >> 14)) & 0x0000CCCCu;
    lo ^= t ^ (t << 14);
    t = (hi ^ (hi >> 14)) & 0x0000CCCCu;
    hi ^= t ^ (t << 14);
    t = (lo ^ ((lo >> 28) | (hi << 4))) & 0xF0F0F0F0u;
    lo ^= t;
    hi ^= t >> 4;
}

// Byte j of the 32 elements of word w: out[s] (s = 0..3, group 4w + s) holds elements
// 32w + 8s .. 32w + 8s + 7 as the 8 bytes lo:hi.
__device__ inline void unshuffle_word(const uint32_t* planes32, unsigned words_per_plane, unsigned j, unsigned w,
                                      uint32_t lo[4], uint32_t hi[4]) {
    uint32_t p[8];
#pragma unroll
    for (unsigned k = 0; k < 8; ++k) p[k] = planes32[(j * 8 + k) * words_per_plane + w];
#pragma unroll
    for (unsigned s = 0; s < 4; ++s) {
        const unsigned sel = s | ((4 + s) << 4);  // byte s of a, byte s of b
        lo[s] = __byte_perm(__byte_perm(p[0], p[1], sel), __byte_perm(p[2], p[3], sel), 0x5410);
        hi[s] = __byte_perm(__byte_perm(p[4], p[5], sel), __byte_perm(p[6], p[7], sel), 0x5410);
        transpose_8x8(lo[s], hi[s]);
    }
}

// Element i (< n) of a block of n elements, bit by bit (planes of n/8 bytes).
template <class Bits>
__device__ inline Bits unshuffle_element(const uint8_t* planes, unsigned n, unsigned i) {
    constexpr unsigned kBits = sizeof(Bits) * 8;
    const unsigned nb = n >> 3;
    const unsigned byte = i >> 3, shift = i & 7;
    Bits v = 0;
#pragma unroll
    for (unsigned p = 0; p < kBits; ++p) v |= Bits((planes[p * nb + byte] >> shift) & 1u) << p;
    return v;
}

// 32 consecutive elements of es bytes, unshuffled into 8*es 32-bit words (little-endian
// element bytes, in order), for a block of n elements with n % 32 == 0.
template <unsigned kEs>
__device__ inline void unshuffle_32(const uint8_t* planes, unsigned n, unsigned w, uint32_t out[8 * kEs]) {
    const uint32_t* p32 = reinterpret_cast<const uint32_t*>(planes);
    const unsigned wpp = n / 32;  // words per plane
    uint32_t lo[kEs][4], hi[kEs][4];
#pragma unroll
    for (unsigned j = 0; j < kEs; ++j) unshuffle_word(p32, wpp, j, w, lo[j], hi[j]);
#pragma unroll
    for (unsigned s = 0; s < 4; ++s) {
        if (kEs == 1) {
            out[2 * s] = lo[0][s];
            out[2 * s + 1] = hi[0][s];
        } else if (kEs == 2) {  // interleave the low and high bytes of 8 elements
            out[4 * s + 0] = __byte_perm(lo[0][s], lo[1 % kEs][s], 0x5140);
            out[4 * s + 1] = __byte_perm(lo[0][s], lo[1 % kEs][s], 0x7362);
            out[4 * s + 2] = __byte_perm(hi[0][s], hi[1 % kEs][s], 0x5140);
            out[4 * s + 3] = __byte_perm(hi[0][s], hi[1 % kEs][s], 0x7362);
        } else {  // kEs == 4: element m = byte m of rows 0..3
#pragma unroll
            for (unsigned m = 0; m < 8; ++m) {
                const uint32_t r0 = m < 4 ? lo[0][s] : hi[0][s], r1 = m < 4 ? lo[1 % kEs][s] : hi[1 % kEs][s];
                const uint32_t r2 = m < 4 ? lo[2 % kEs][s] : hi[2 % kEs][s], r3 = m < 4 ? lo[3 % kEs][s] : hi[3 % kEs][s];
                const unsigned b = m & 3;
                const uint32_t a01 = __byte_perm(r0, r1, b | ((4 + b) << 4));
                const uint32_t a23 = __byte_perm(r2, r3, b | ((4 + b) << 4));
                out[8 * s + m] = __byte_perm(a01, a23, 0x5410);
            }
        }
    }
}

}  // namespace bslz4_kernels
