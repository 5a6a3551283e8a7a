// Bit-unshuffle of one decoded block in shared memory, 32 elements a step: lane l assembles
// element 32w + l from its bit in each of the 8 x elem_size planes. Lanes read bytes of the
// same 4-byte words, so the reads are broadcasts without bank conflicts.
#pragma once
#include <stdint.h>

namespace bslz4_kernels {

// planes: n/8 bytes per plane, plane j*8+k = bit k of byte j. Element i (< n) as T's bits.
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

}  // namespace bslz4_kernels
