// The bit transpose of bitshuffle: a block of n elements (n a multiple of 8) of es bytes is
// stored as 8*es bit-planes of n/8 bytes; plane (j*8 + k) holds bit k of byte j of every
// element, element i at bit (i % 8) of byte (i / 8).
#pragma once
#include <cstddef>
#include <cstdint>

namespace bslz4::detail {

// planes -> elements. scratch: n*es bytes (unused when es == 1). in and out must not overlap.
void bit_unshuffle(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t es, std::uint8_t* scratch);

// elements -> planes (the encoder's direction). scratch: n*es bytes. in and out must not overlap
// (with es == 1 the planes are read from in directly).
void bit_shuffle(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t es, std::uint8_t* scratch);

}  // namespace bslz4::detail
