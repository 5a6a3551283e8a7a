// The C API's arguments checked and turned into the C++ library's terms.
#include "c_arguments.hpp"

#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/error.hpp"
#include "c_status.hpp"
#include "top_pixels.hpp"

namespace bslz4::c_api {

namespace {
[[noreturn]] void out_of_range(const char* what, int value, const char* accepted) {
    throw Error(ErrorCode::bad_argument, std::string(what) + " " + std::to_string(value) + " is none of " + accepted);
}
}  // namespace

PixelType pixel_type_from(int pixel_type) {
    if (pixel_type < BSLZ4_U8 || pixel_type > BSLZ4_F64)
        out_of_range("pixel type", pixel_type, "BSLZ4_U8 (0) ... BSLZ4_F64 (9)");
    return static_cast<PixelType>(pixel_type);
}

Codec codec_from(int codec) {
    if (codec != BSLZ4_CODEC_LZ4 && codec != BSLZ4_CODEC_ZSTD)
        out_of_range("codec", codec, "BSLZ4_CODEC_LZ4 (0), BSLZ4_CODEC_ZSTD (1)");
    return codec == BSLZ4_CODEC_LZ4 ? Codec::lz4 : Codec::zstd;
}

Accumulator accumulator_from(int acc) {
    if (acc < BSLZ4_ACC_F64 || acc > BSLZ4_ACC_I64)
        out_of_range("accumulator", acc, "BSLZ4_ACC_F64 (0), BSLZ4_ACC_F32 (1), BSLZ4_ACC_I64 (2)");
    return static_cast<Accumulator>(acc);
}

int pixel_type_to_c(PixelType t) { return static_cast<int>(t); }
int accumulator_to_c(Accumulator a) { return static_cast<int>(a); }

static_assert(static_cast<int>(PixelType::f64) == BSLZ4_F64 && static_cast<int>(PixelType::i8) == BSLZ4_I8,
              "C pixel types = PixelType");
static_assert(static_cast<int>(Accumulator::i64) == BSLZ4_ACC_I64 && static_cast<int>(Accumulator::f32) == BSLZ4_ACC_F32,
              "C accumulators = Accumulator");

static_assert(BSLZ4_MAX_THRESHOLDS == detail::kMaxThresholds, "the C limit is the library's");

std::size_t checked_bytes(std::size_t bytes, const char* parameter) {
    if (bytes > BSLZ4_MAX_BYTES)
        throw Error(ErrorCode::bad_argument, std::string(parameter) + ": " + std::to_string(bytes) +
                                                 " bytes, more than any buffer holds (BSLZ4_MAX_BYTES, " +
                                                 std::to_string(BSLZ4_MAX_BYTES) + ")");
    return bytes;
}

std::size_t checked_count(std::size_t n, std::size_t element_bytes, const char* parameter) {
    if (n > BSLZ4_MAX_BYTES / element_bytes)
        throw Error(ErrorCode::bad_argument, std::string(parameter) + ": " + std::to_string(n) + " entries of " +
                                                 std::to_string(element_bytes) +
                                                 " bytes, more than any array holds (BSLZ4_MAX_BYTES, " +
                                                 std::to_string(BSLZ4_MAX_BYTES) + " bytes)");
    return n;
}

ByteView bytes_at(const void* p, std::size_t bytes, const char* parameter) {
    checked_bytes(bytes, parameter);
    if (!p && bytes) throw Error(ErrorCode::bad_argument, std::string(parameter) + " is NULL with " + std::to_string(bytes) + " bytes");
    return ByteView(p, bytes);
}

ByteView mask_of(const std::uint8_t* mask, std::size_t mask_bytes, std::size_t ni, std::size_t nj) {
    require(mask, "mask");
    checked_bytes(mask_bytes, "mask_bytes");
    if (nj && ni > static_cast<std::size_t>(-1) / nj)
        throw Error(ErrorCode::bad_argument, "frame shape " + std::to_string(ni) + " x " + std::to_string(nj) + " overflows");
    if (mask_bytes != ni * nj)
        throw Error(ErrorCode::bad_argument, "mask of " + std::to_string(mask_bytes) + " bytes for a frame of " +
                                                 std::to_string(ni) + " x " + std::to_string(nj) + " pixels");
    return ByteView(mask, mask_bytes);
}

std::vector<ByteView> views_of(const void* const* pointers, const std::size_t* bytes, std::size_t n,
                               const char* parameter) {
    checked_count<const void*>(n, parameter);
    if (n && (!pointers || !bytes))
        throw Error(ErrorCode::bad_argument, std::string(parameter) + ": the array of pointers or of lengths is NULL for " +
                                                 std::to_string(n) + " entries");
    std::vector<ByteView> views;
    views.reserve(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::string entry = std::string(parameter) + "[" + std::to_string(k) + "]";
        views.push_back(bytes_at(pointers[k], bytes[k], entry.c_str()));
    }
    return views;
}

std::vector<std::uint64_t> values_of(const std::uint64_t* values, std::size_t n, const char* parameter) {
    checked_count<std::uint64_t>(n, parameter);
    if (n && !values)
        throw Error(ErrorCode::bad_argument, std::string(parameter) + " is NULL for " + std::to_string(n) + " entries");
    return std::vector<std::uint64_t>(values, values + n);
}

std::optional<std::size_t> howmany_from(std::size_t howmany) {
    if (howmany == BSLZ4_EVERY_PIXEL) return std::nullopt;
    return howmany;
}

std::optional<std::vector<double>> thresholds_from(const double* thresholds, std::size_t nthresholds) {
    if (nthresholds == BSLZ4_DEFAULT_THRESHOLDS) return std::nullopt;
    if (nthresholds > BSLZ4_MAX_THRESHOLDS)
        throw Error(ErrorCode::bad_argument, "nthresholds is " + std::to_string(nthresholds) + ", more than the " +
                                                 std::to_string(BSLZ4_MAX_THRESHOLDS) +
                                                 " thresholds a top-pixel rule takes (BSLZ4_MAX_THRESHOLDS)");
    if (nthresholds && !thresholds)
        throw Error(ErrorCode::bad_argument, "thresholds is NULL for " + std::to_string(nthresholds) + " values");
    return std::vector<double>(thresholds, thresholds + nthresholds);
}

std::size_t size_product(std::size_t a, std::size_t b, const char* what) {
    std::size_t r = 0;
    if (__builtin_mul_overflow(a, b, &r))
        throw Error(ErrorCode::bad_argument, std::string(what) + ": " + std::to_string(a) + " x " + std::to_string(b) +
                                                 " does not fit in a size_t");
    return r;
}

std::size_t size_sum(std::size_t a, std::size_t b, const char* what) {
    std::size_t r = 0;
    if (__builtin_add_overflow(a, b, &r))
        throw Error(ErrorCode::bad_argument, std::string(what) + ": " + std::to_string(a) + " + " + std::to_string(b) +
                                                 " does not fit in a size_t");
    return r;
}

}  // namespace bslz4::c_api

size_t bslz4_pixel_size(int pixel_type) {
    if (pixel_type < BSLZ4_U8 || pixel_type > BSLZ4_F64) return 0;
    return bslz4::pixel_size(static_cast<bslz4::PixelType>(pixel_type));
}
