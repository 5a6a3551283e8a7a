// Dense decoding and the chunk layout: bslz4_decoded_size, bslz4_decode, bslz4_chunk_header,
// bslz4_block_starts.
#include <string>

#include "big_endian.hpp"
#include "bslz4/bslz4.h"
#include "bslz4/chunk_header.hpp"
#include "bslz4/decode.hpp"
#include "c_arguments.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

int bslz4_decoded_size(const void* chunk, size_t chunk_bytes, size_t* decoded_bytes) {
    return guarded("bslz4_decoded_size", [&] {
        require(chunk, "chunk");
        require(decoded_bytes, "decoded_bytes");
        checked_bytes(chunk_bytes, "chunk_bytes");
        if (chunk_bytes < kChunkHeaderBytes)
            throw Error(ErrorCode::truncated_chunk, "chunk of " + std::to_string(chunk_bytes) +
                                                        " bytes is shorter than its 12-byte header");
        const std::uint64_t size = detail::load_be64(static_cast<const std::uint8_t*>(chunk));
        if (size > static_cast<std::uint64_t>(static_cast<std::size_t>(-1)))
            throw Error(ErrorCode::bad_header, "decoded size " + std::to_string(size) + " does not fit size_t");
        *decoded_bytes = static_cast<std::size_t>(size);
        return BSLZ4_OK;
    });
}

int bslz4_decode(const void* chunk, size_t chunk_bytes, size_t elem_size, int codec, void* out, size_t out_bytes) {
    return guarded("bslz4_decode", [&] {
        require(chunk, "chunk");
        const Codec c = codec_from(codec);
        const ByteView view = bytes_at(chunk, chunk_bytes, "chunk");
        checked_bytes(out_bytes, "out_bytes");
        const ChunkHeader header = parse_chunk_header(view, elem_size);
        if (header.decoded_bytes > out_bytes)
            throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, "output of " + std::to_string(out_bytes) + " bytes for a chunk of " +
                                                         std::to_string(header.decoded_bytes) + " decoded bytes");
        if (header.decoded_bytes) require(out, "out");
        decode_chunk_into(view, elem_size, c, static_cast<std::uint8_t*>(out),
                          static_cast<std::size_t>(header.decoded_bytes));
        return BSLZ4_OK;
    });
}

int bslz4_chunk_header(const void* chunk, size_t chunk_bytes, size_t elem_size, uint64_t* decoded_bytes,
                       uint32_t* block_bytes_field) {
    return guarded("bslz4_chunk_header", [&] {
        require(chunk, "chunk");
        require(decoded_bytes, "decoded_bytes");
        require(block_bytes_field, "block_bytes_field");
        const ChunkHeader header = parse_chunk_header(bytes_at(chunk, chunk_bytes, "chunk"), elem_size);
        *decoded_bytes = header.decoded_bytes;
        *block_bytes_field = header.block_bytes_field;
        return BSLZ4_OK;
    });
}

int bslz4_block_starts(const void* chunk, size_t chunk_bytes, size_t elem_size, uint64_t expected_bytes,
                       uint64_t* starts, size_t starts_capacity, size_t* nblocks) {
    return guarded("bslz4_block_starts", [&] {
        require(chunk, "chunk");
        require(nblocks, "nblocks");
        checked_count<std::uint64_t>(starts_capacity, "starts_capacity");
        if (starts_capacity) require(starts, "starts");
        const BlockLayout layout = block_starts(bytes_at(chunk, chunk_bytes, "chunk"), elem_size, expected_bytes);
        *nblocks = layout.n_blocks();
        if (layout.n_blocks() > starts_capacity)
            throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, "room for " + std::to_string(starts_capacity) + " block starts, the chunk has " +
                                                         std::to_string(layout.n_blocks()) + " blocks");
        for (std::size_t b = 0; b < layout.n_blocks(); ++b) starts[b] = layout.starts[b];
        return BSLZ4_OK;
    });
}
