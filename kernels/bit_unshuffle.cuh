// Bit-unshuffle of one decoded block in shared memory. A full block is done 32 elements a
// lane: the lane reads one 4-byte word from each plane of the 32 elements (consecutive lanes,
// consecutive words: no bank conflicts). A byte's 8 plane words form an 8 x 32 bit matrix;
// three rounds of block swaps transpose each of its four 8 x 8 tiles in place, 4 operations
// per pair of rows, after which byte c of row r is element 8c + r's byte (skipped where the
// byte's plane words are all zero). 4 x 4 byte transposes (8 byte permutes) then put the bytes
// in element order. About 2.5 operations per element byte, where assembling each element bit
// by bit costs 40. A short last block (not
// a multiple of 32 elements) takes the bit-by-bit path.
#pragma once
#include <stdint.h>

namespace bslz4_kernels {

// Rows a and b of the 8 x 8 tiles in a word's four bytes, s rows apart: a takes b's low
// s-bit blocks (the mask m marks them) into its high ones, b takes a's high blocks into its
// low ones.
template <unsigned s, uint32_t m>
__device__ inline void swap_bit_blocks(uint32_t& a, uint32_t& b) {
    const uint32_t na = (a & m) | ((b << s) & ~m);
    const uint32_t nb = ((a >> s) & m) | (b & ~m);
    a = na;
    b = nb;
}

// Transposes each 8 x 8 bit tile of rows p[0..7] (row k, byte c: bit b is tile c's (k, b)).
__device__ inline void transpose_bit_tiles(uint32_t p[8]) {
#pragma unroll
    for (unsigned k = 0; k < 4; ++k) swap_bit_blocks<4, 0x0F0F0F0Fu>(p[k], p[k + 4]);
#pragma unroll
    for (unsigned k = 0; k < 8; k += (k & 1) ? 3 : 1) swap_bit_blocks<2, 0x33333333u>(p[k], p[k + 2]);
#pragma unroll
    for (unsigned k = 0; k < 8; k += 2) swap_bit_blocks<1, 0x55555555u>(p[k], p[k + 1]);
}

// out[c] = byte c of a, b, c, d in turn: a 4 x 4 byte transpose.
__device__ inline void transpose_bytes(uint32_t a, uint32_t b, uint32_t c, uint32_t d, uint32_t out[4]) {
    const uint32_t ab_lo = __byte_perm(a, b, 0x5140), ab_hi = __byte_perm(a, b, 0x7362);
    const uint32_t cd_lo = __byte_perm(c, d, 0x5140), cd_hi = __byte_perm(c, d, 0x7362);
    out[0] = __byte_perm(ab_lo, cd_lo, 0x5410);
    out[1] = __byte_perm(ab_lo, cd_lo, 0x7632);
    out[2] = __byte_perm(ab_hi, cd_hi, 0x5410);
    out[3] = __byte_perm(ab_hi, cd_hi, 0x7632);
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
    uint32_t p[kEs][8];  // p[j][r], byte c after the tile transposes: byte j of element 8c + r
#pragma unroll
    for (unsigned j = 0; j < kEs; ++j) {
        uint32_t any = 0;
#pragma unroll
        for (unsigned k = 0; k < 8; ++k) {
            p[j][k] = p32[(j * 8 + k) * wpp + w];
            any |= p[j][k];
        }
        // A byte whose 8 planes are all zero here (a detector's high bytes, nearly always)
        // transposes to zero: its 12 block swaps are skipped.
        if (any) transpose_bit_tiles(p[j]);
    }
    uint32_t t[4];
    if (kEs == 1) {  // out[2c + h] = elements 8c + 4h .. 8c + 4h + 3
#pragma unroll
        for (unsigned h = 0; h < 2; ++h) {
            transpose_bytes(p[0][4 * h], p[0][4 * h + 1], p[0][4 * h + 2], p[0][4 * h + 3], t);
#pragma unroll
            for (unsigned c = 0; c < 4; ++c) out[2 * c + h] = t[c];
        }
    } else if (kEs == 2) {  // out[4c + r/2] = elements 8c + r and 8c + r + 1, r even
#pragma unroll
        for (unsigned r = 0; r < 8; r += 2) {
            transpose_bytes(p[0][r], p[1 % kEs][r], p[0][r + 1], p[1 % kEs][r + 1], t);
#pragma unroll
            for (unsigned c = 0; c < 4; ++c) out[4 * c + r / 2] = t[c];
        }
    } else {  // kEs == 4: out[8c + r] = element 8c + r
#pragma unroll
        for (unsigned r = 0; r < 8; ++r) {
            transpose_bytes(p[0][r], p[1 % kEs][r], p[2 % kEs][r], p[3 % kEs][r], t);
#pragma unroll
            for (unsigned c = 0; c < 4; ++c) out[8 * c + r] = t[c];
        }
    }
}

}  // namespace bslz4_kernels
