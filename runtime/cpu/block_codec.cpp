#include "block_codec.hpp"

#include <cstring>

namespace bslz4::detail {

std::string wrong_codec_hint(Codec codec, ByteView src) {
    static constexpr std::uint8_t kZstdMagic[4] = {0x28, 0xB5, 0x2F, 0xFD};  // 0xFD2FB528, little-endian
    const bool zstd_like = src.size >= 4 && std::memcmp(src.data, kZstdMagic, 4) == 0;
    if (codec == Codec::lz4 && zstd_like) return " (this block starts like a zstd frame: decode it with the zstd codec)";
    if (codec == Codec::zstd && !zstd_like) return " (this block does not start like a zstd frame: decode it with the lz4 codec)";
    return "";
}

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
