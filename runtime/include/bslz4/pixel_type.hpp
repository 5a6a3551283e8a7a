// Pixel (element) types the decoder knows by name, and one dispatch point from the run-time
// type to a compile-time one, so per-type code is written once as a template.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <string>

#include "bslz4/error.hpp"

namespace bslz4 {

enum class PixelType { u8, u16, u32, u64, i8, i16, i32, i64, f32, f64 };

BSLZ4_API std::size_t pixel_size(PixelType t);
BSLZ4_API const char* pixel_type_name(PixelType t);
// Parses "u8".."f64"; throws Error naming the bad text and the accepted names.
BSLZ4_API PixelType parse_pixel_type(const std::string& name);

// Calls f(T{}) with T the C++ type of t.
template <class F>
decltype(auto) visit_pixel_type(PixelType t, F&& f) {
    switch (t) {
        case PixelType::u8: return f(std::uint8_t{});
        case PixelType::u16: return f(std::uint16_t{});
        case PixelType::u32: return f(std::uint32_t{});
        case PixelType::u64: return f(std::uint64_t{});
        case PixelType::i8: return f(std::int8_t{});
        case PixelType::i16: return f(std::int16_t{});
        case PixelType::i32: return f(std::int32_t{});
        case PixelType::i64: return f(std::int64_t{});
        case PixelType::f32: return f(float{});
        case PixelType::f64: return f(double{});
    }
    throw Error(ErrorCode::bad_argument, "unknown pixel type");
}

template <class T> constexpr PixelType pixel_type_of();
template <> constexpr PixelType pixel_type_of<std::uint8_t>() { return PixelType::u8; }
template <> constexpr PixelType pixel_type_of<std::uint16_t>() { return PixelType::u16; }
template <> constexpr PixelType pixel_type_of<std::uint32_t>() { return PixelType::u32; }
template <> constexpr PixelType pixel_type_of<std::uint64_t>() { return PixelType::u64; }
template <> constexpr PixelType pixel_type_of<std::int8_t>() { return PixelType::i8; }
template <> constexpr PixelType pixel_type_of<std::int16_t>() { return PixelType::i16; }
template <> constexpr PixelType pixel_type_of<std::int32_t>() { return PixelType::i32; }
template <> constexpr PixelType pixel_type_of<std::int64_t>() { return PixelType::i64; }
template <> constexpr PixelType pixel_type_of<float>() { return PixelType::f32; }
template <> constexpr PixelType pixel_type_of<double>() { return PixelType::f64; }

}  // namespace bslz4
