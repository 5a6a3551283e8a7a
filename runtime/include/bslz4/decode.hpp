// Dense decoding of one bitshuffle chunk on the CPU: the oracle every other path is checked
// against.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"

namespace bslz4 {

// Decodes the whole chunk; the decoded size comes from the (validated) header.
BSLZ4_API std::vector<std::uint8_t> decode_chunk(ByteView chunk, std::size_t elem_size, Codec codec = Codec::lz4);

// Decodes into out, which must be exactly the chunk's decoded size (a different size is an
// error naming both sizes).
BSLZ4_API void decode_chunk_into(ByteView chunk, std::size_t elem_size, Codec codec, std::uint8_t* out,
                       std::size_t out_bytes);

}  // namespace bslz4
