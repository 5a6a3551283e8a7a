#include "bslz4/decode.hpp"

#include <string>

#include "bslz4/error.hpp"
#include "chunk_decoder.hpp"

namespace bslz4 {

namespace {
void decode_all(const detail::ChunkDecoder& decoder, std::size_t elem_size, std::uint8_t* out, std::size_t out_bytes) {
    if (decoder.layout().header.decoded_bytes != out_bytes)
        throw Error(ErrorCode::wrong_decoded_size, "chunk decodes to " +
                                                       std::to_string(decoder.layout().header.decoded_bytes) +
                                                       " bytes but the output holds " + std::to_string(out_bytes));
    detail::BlockScratch scratch;
    for (std::size_t b = 0; b < decoder.layout().n_blocks(); ++b)
        decoder.decode_block(b, scratch, out + decoder.block_first(b) * elem_size);
    decoder.copy_tail(out + (decoder.n_elems() - decoder.layout().tail_elems) * elem_size);
}
}  // namespace

void decode_chunk_into(ByteView chunk, std::size_t elem_size, Codec codec, std::uint8_t* out, std::size_t out_bytes) {
    decode_all(detail::ChunkDecoder(chunk, elem_size, codec), elem_size, out, out_bytes);
}

std::vector<std::uint8_t> decode_chunk(ByteView chunk, std::size_t elem_size, Codec codec) {
    const detail::ChunkDecoder decoder(chunk, elem_size, codec);
    std::vector<std::uint8_t> out(static_cast<std::size_t>(decoder.layout().header.decoded_bytes));
    decode_all(decoder, elem_size, out.data(), out.size());
    return out;
}

}  // namespace bslz4
