#include <zstd.h>
#include <zstd_errors.h>

#include <algorithm>
#include <memory>
#include <string>

#include "block_codec.hpp"
#include "bslz4/error.hpp"

namespace bslz4::detail {

std::uint64_t max_decoded_zstd(ByteView src) {
    // Whatever a frame's header records, its output comes from blocks of at most 128 KiB, each
    // taking at least 4 bytes (3-byte header, 1-byte RLE): at most 32768 output bytes per input
    // byte. A recorded content size can only lower that bound (a lying one must not raise it).
    constexpr std::uint64_t kMaxRatio = 32768;
    const std::uint64_t by_size = std::uint64_t{src.size} * kMaxRatio;
    const unsigned long long recorded = ZSTD_getFrameContentSize(src.data, src.size);
    if (recorded == ZSTD_CONTENTSIZE_UNKNOWN || recorded == ZSTD_CONTENTSIZE_ERROR) return by_size;
    return std::min<std::uint64_t>(recorded, by_size);
}

void decompress_zstd(ByteView src, std::uint8_t* dst, std::size_t expected) {
    const unsigned long long recorded = ZSTD_getFrameContentSize(src.data, src.size);
    if (recorded != ZSTD_CONTENTSIZE_UNKNOWN && recorded != ZSTD_CONTENTSIZE_ERROR && recorded != expected)
        throw Error(ErrorCode::bad_zstd_frame, "zstd frame records " + std::to_string(recorded) +
                                                   " bytes of content, not the block's " + std::to_string(expected));
    // One context a thread, kept: ZSTD_decompress makes and frees one a call, two thirds of the
    // time of an 8 kB block (H200 host: 12.7 ms a dense Eiger 4M frame, 4.4 ms with this).
    thread_local const std::unique_ptr<ZSTD_DCtx, std::size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!context) throw Error(ErrorCode::out_of_memory, "zstd: ZSTD_createDCtx failed (out of memory)");
    const std::size_t got = ZSTD_decompressDCtx(context.get(), dst, expected, src.data, src.size);
    if (ZSTD_isError(got))
        throw Error(ErrorCode::bad_zstd_frame, std::string("zstd frame fails to decode: ") + ZSTD_getErrorName(got));
    if (got != expected)
        throw Error(ErrorCode::bad_zstd_frame, "zstd frame decodes to " + std::to_string(got) +
                                                   " bytes, fewer than the " + std::to_string(expected) + " expected");
}

void compress_zstd(const std::uint8_t* src, std::size_t n, int level, std::vector<std::uint8_t>& out) {
    const std::size_t bound = ZSTD_compressBound(n);
    const std::size_t at = out.size();
    out.resize(at + bound);
    const std::size_t got = ZSTD_compress(out.data() + at, bound, src, n, level);
    if (ZSTD_isError(got))
        throw Error(
            ZSTD_getErrorCode(got) == ZSTD_error_memory_allocation ? ErrorCode::out_of_memory : ErrorCode::bad_argument,
            std::string("ZSTD_compress failed: ") + ZSTD_getErrorName(got));
    out.resize(at + got);
}

}  // namespace bslz4::detail
