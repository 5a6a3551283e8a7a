#include "chunk_decoder.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "big_endian.hpp"
#include "bitshuffle.hpp"
#include "block_codec.hpp"
#include "bslz4/error.hpp"

namespace bslz4::detail {

ChunkDecoder::ChunkDecoder(ByteView chunk, std::size_t elem_size, Codec codec, std::uint64_t expected_bytes)
    : chunk_(chunk), codec_(codec), layout_(block_starts(chunk, elem_size, expected_bytes)) {
    // A lying header is refused here, before a caller allocates the decoded frame.
    for (std::size_t b = 0; b < layout_.n_blocks(); ++b) {
        const std::uint64_t at = layout_.starts[b];
        const ByteView src(chunk_.data + at + kBlockHeaderBytes, load_be32(chunk_.data + at));
        const std::uint64_t bytes = std::uint64_t{layout_.block_elems(b)} * elem_size;
        // Such a block would fail to decode anyway: it gets the code its decoding would.
        if (bytes > max_decoded_bytes(codec, src))
            throw Error(codec == Codec::lz4 ? ErrorCode::bad_lz4_sequence : ErrorCode::bad_zstd_frame,
                        "block " + std::to_string(b) + " of " + std::to_string(layout_.n_blocks()) + ": a " +
                            codec_name(codec) + " block of " + std::to_string(src.size) +
                            " bytes cannot decode to the " + std::to_string(bytes) + " bytes the header implies" +
                            wrong_codec_hint(codec, src));
    }
}

void ChunkDecoder::decode_block(std::size_t b, BlockScratch& scratch, std::uint8_t* dst) const {
    const std::uint8_t* planes = decode_planes(b, scratch);  // sizes scratch.rows: before its data()
    bit_unshuffle(planes, dst, layout_.block_elems(b), layout_.header.elem_size, scratch.rows.data());
}

const std::uint8_t* ChunkDecoder::decode_planes(std::size_t b, BlockScratch& scratch) const {
    const std::size_t bytes = layout_.block_elems(b) * layout_.header.elem_size;
    scratch.reserve(bytes);
    const std::uint64_t at = layout_.starts[b];
    const ByteView src(chunk_.data + at + kBlockHeaderBytes, load_be32(chunk_.data + at));
    try {
        decompress_block(codec_, src, scratch.planes.data(), bytes);
    } catch (const Error& e) {
        throw Error(e.code(), "block " + std::to_string(b) + " of " + std::to_string(layout_.n_blocks()) +
                                  " (chunk offset " + std::to_string(at) + "): " + e.what() +
                                  wrong_codec_hint(codec_, src));
    }
    return scratch.planes.data();
}

std::size_t ChunkDecoder::buffer_bytes() const {
    return std::max(layout_.largest_block_elems(), layout_.tail_elems) * layout_.header.elem_size;
}

void ChunkDecoder::copy_tail(std::uint8_t* dst) const {
    // Without a tail dst may be null (an empty frame's buffer): memcpy must not see it.
    if (layout_.tail_elems) std::memcpy(dst, chunk_.data + layout_.tail_offset, layout_.tail_elems * layout_.header.elem_size);
}

}  // namespace bslz4::detail
