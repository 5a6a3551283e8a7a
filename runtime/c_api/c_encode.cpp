// Encoding into the caller's buffer: bslz4_encode and the capacity that is always enough.
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/chunk_header.hpp"
#include "bslz4/encode.hpp"
#include "c_arguments.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

namespace {

// The worst a block of n bytes can grow to (LZ4_COMPRESSBOUND's formula, without its 2 GB cap).
std::size_t block_bound(Codec codec, std::size_t n) {
    return codec == Codec::lz4 ? n + n / 255 + 16 : ZSTD_compressBound(n);
}

std::size_t encode_bound(std::size_t raw_bytes, std::size_t elem_size, Codec codec, std::size_t block_bytes) {
    if (elem_size == 0 || elem_size > 16)
        throw Error(ErrorCode::bad_argument, "element size " + std::to_string(elem_size) + " is not supported (1 to 16 bytes)");
    if (block_bytes % (kBitshuffleGroup * elem_size) != 0)
        throw Error(ErrorCode::bad_argument, "block size " + std::to_string(block_bytes) + " bytes is not a multiple of 8 x " +
                                                 std::to_string(elem_size) + "-byte elements");
    const std::size_t block_elems = block_bytes ? block_bytes / elem_size : default_block_elems(elem_size);
    const std::size_t n = raw_bytes / elem_size, shuffled = n - n % kBitshuffleGroup;
    const std::size_t full = shuffled / block_elems, last = shuffled % block_elems;
    const char* what = "the encoded size bound";
    std::size_t bound = size_sum(kChunkHeaderBytes, raw_bytes - shuffled * elem_size, what);
    const std::size_t full_block = size_sum(kBlockHeaderBytes, block_bound(codec, block_elems * elem_size), what);
    bound = size_sum(bound, size_product(full, full_block, what), what);
    if (last) bound = size_sum(bound, size_sum(kBlockHeaderBytes, block_bound(codec, last * elem_size), what), what);
    return bound;
}

}  // namespace

int bslz4_encode_bound(size_t raw_bytes, size_t elem_size, int codec, size_t block_bytes, size_t* bound) {
    return guarded("bslz4_encode_bound", [&] {
        require(bound, "bound");
        *bound = encode_bound(checked_bytes(raw_bytes, "raw_bytes"), elem_size, codec_from(codec),
                              checked_bytes(block_bytes, "block_bytes"));
        return BSLZ4_OK;
    });
}

int bslz4_encode(const void* raw, size_t raw_bytes, size_t elem_size, int codec, size_t block_bytes, int zstd_level,
                 void* out, size_t out_capacity, size_t* chunk_bytes) {
    return guarded("bslz4_encode", [&] {
        require(chunk_bytes, "chunk_bytes");
        checked_bytes(out_capacity, "out_capacity");
        EncodeOptions options;
        options.codec = codec_from(codec);
        options.block_bytes = checked_bytes(block_bytes, "block_bytes");
        options.zstd_level = zstd_level;
        const std::vector<std::uint8_t> chunk = encode_chunk(bytes_at(raw, raw_bytes, "raw"), elem_size, options);
        *chunk_bytes = chunk.size();
        if (chunk.size() > out_capacity)
            throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, "output of " + std::to_string(out_capacity) + " bytes for a chunk of " +
                                                         std::to_string(chunk.size()) + " bytes");
        require(out, "out");
        std::memcpy(out, chunk.data(), chunk.size());
        return BSLZ4_OK;
    });
}
