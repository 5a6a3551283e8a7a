#include <zstd.h>

#include "block_codec.hpp"
#include "bslz4/error.hpp"

namespace bslz4::detail {

std::uint64_t max_decoded_zstd(ByteView src) {
    // Without a recorded content size: a zstd block holds at most 128 KiB and takes at least
    // 4 bytes (3-byte header, 1-byte RLE), so at most 32768 output bytes per input byte.
    constexpr std::uint64_t kMaxRatio = 32768;
    const unsigned long long size = ZSTD_getFrameContentSize(src.data, src.size);
    if (size == ZSTD_CONTENTSIZE_UNKNOWN || size == ZSTD_CONTENTSIZE_ERROR) return std::uint64_t{src.size} * kMaxRatio;
    return size;
}

void decompress_zstd(ByteView src, std::uint8_t* dst, std::size_t expected) {
    const std::size_t got = ZSTD_decompress(dst, expected, src.data, src.size);
    if (ZSTD_isError(got)) throw Error(std::string("zstd frame fails to decode: ") + ZSTD_getErrorName(got));
    if (got != expected)
        throw Error("zstd frame decodes to " + std::to_string(got) + " bytes, fewer than the " + std::to_string(expected) +
                    " expected");
}

void compress_zstd(const std::uint8_t* src, std::size_t n, int level, std::vector<std::uint8_t>& out) {
    const std::size_t bound = ZSTD_compressBound(n);
    const std::size_t at = out.size();
    out.resize(at + bound);
    const std::size_t got = ZSTD_compress(out.data() + at, bound, src, n, level);
    if (ZSTD_isError(got)) throw Error(std::string("ZSTD_compress failed: ") + ZSTD_getErrorName(got));
    out.resize(at + got);
}

}  // namespace bslz4::detail
