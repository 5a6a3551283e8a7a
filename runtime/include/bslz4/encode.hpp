// The bitshuffle chunk encoder (HDF5 filter 32008 layout), for tools and tests. Its output is
// the public format: other programs (hdf5plugin, bitshuffle) read what it writes.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"

namespace bslz4 {

struct EncodeOptions {
    Codec codec = Codec::lz4;
    std::size_t block_bytes = 0;  // 0: bitshuffle's default (about 8192 bytes)
    int zstd_level = 3;
};

// raw holds n elements of elem_size bytes (little-endian); raw.size must be a multiple of
// elem_size and block_bytes a multiple of 8 x elem_size, else Error.
BSLZ4_API std::vector<std::uint8_t> encode_chunk(ByteView raw, std::size_t elem_size, const EncodeOptions& options = {});

}  // namespace bslz4
