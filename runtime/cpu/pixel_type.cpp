#include "bslz4/pixel_type.hpp"

#include "bslz4/codec.hpp"

namespace bslz4 {

namespace {
constexpr PixelType kAllTypes[] = {PixelType::u8,  PixelType::u16, PixelType::u32, PixelType::u64,
                                   PixelType::i8,  PixelType::i16, PixelType::i32, PixelType::i64,
                                   PixelType::f32, PixelType::f64};
}

std::size_t pixel_size(PixelType t) {
    return visit_pixel_type(t, [](auto v) { return sizeof(v); });
}

const char* pixel_type_name(PixelType t) {
    switch (t) {
        case PixelType::u8: return "u8";
        case PixelType::u16: return "u16";
        case PixelType::u32: return "u32";
        case PixelType::u64: return "u64";
        case PixelType::i8: return "i8";
        case PixelType::i16: return "i16";
        case PixelType::i32: return "i32";
        case PixelType::i64: return "i64";
        case PixelType::f32: return "f32";
        case PixelType::f64: return "f64";
    }
    return "?";
}

PixelType parse_pixel_type(const std::string& name) {
    for (PixelType t : kAllTypes)
        if (name == pixel_type_name(t)) return t;
    throw Error(ErrorCode::bad_argument,
                "unknown pixel type '" + name + "' (expected one of u8 u16 u32 u64 i8 i16 i32 i64 f32 f64)");
}

const char* codec_name(Codec c) { return c == Codec::lz4 ? "lz4" : "zstd"; }

Codec parse_codec(const std::string& name) {
    if (name == "lz4") return Codec::lz4;
    if (name == "zstd") return Codec::zstd;
    throw Error(ErrorCode::bad_argument, "unknown codec '" + name + "' (expected lz4 or zstd)");
}

}  // namespace bslz4
