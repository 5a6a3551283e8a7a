#include "bslz4/decode.hpp"

#include <string>

#include "bslz4/error.hpp"
#include "chunk_decoder.hpp"

namespace bslz4 {

void decode_chunk_into(ByteView chunk, std::size_t elem_size, Codec codec, std::uint8_t* out, std::size_t out_bytes) {
    const detail::ChunkDecoder decoder(chunk, elem_size, codec);
    if (decoder.layout().header.decoded_bytes != out_bytes)
        throw Error("chunk decodes to " + std::to_string(decoder.layout().header.decoded_bytes) +
                    " bytes but the output holds " + std::to_string(out_bytes));
    detail::BlockScratch scratch;
    for (std::size_t b = 0; b < decoder.layout().n_blocks(); ++b)
        decoder.decode_block(b, scratch, out + decoder.block_first(b) * elem_size);
    decoder.copy_tail(out + (decoder.n_elems() - decoder.layout().tail_elems) * elem_size);
}

std::vector<std::uint8_t> decode_chunk(ByteView chunk, std::size_t elem_size, Codec codec) {
    const BlockLayout layout = block_starts(chunk, elem_size);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(layout.header.decoded_bytes));
    decode_chunk_into(chunk, elem_size, codec, out.data(), out.size());
    return out;
}

}  // namespace bslz4
