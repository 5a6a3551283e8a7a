#include "block_codec.hpp"

namespace bslz4::detail {

std::uint64_t max_decoded_bytes(Codec codec, ByteView src) {
    return codec == Codec::lz4 ? max_decoded_lz4(src) : max_decoded_zstd(src);
}

void decompress_block(Codec codec, ByteView src, std::uint8_t* dst, std::size_t expected) {
    if (codec == Codec::lz4)
        decompress_lz4(src, dst, expected);
    else
        decompress_zstd(src, dst, expected);
}

void compress_block(Codec codec, const std::uint8_t* src, std::size_t n, int level, std::vector<std::uint8_t>& out) {
    if (codec == Codec::lz4)
        compress_lz4(src, n, out);
    else
        compress_zstd(src, n, level, out);
}

}  // namespace bslz4::detail
