// The C API's arguments in the C++ library's terms, each checked: an enum value out of range,
// a NULL array that should hold elements, a mask of the wrong size are bad_argument Errors
// naming the parameter.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::c_api {

PixelType pixel_type_from(int pixel_type);
Codec codec_from(int codec);
Accumulator accumulator_from(int acc);
int pixel_type_to_c(PixelType t);
int accumulator_to_c(Accumulator a);

// bytes at p; p may be NULL only when bytes is 0.
ByteView bytes_at(const void* p, std::size_t bytes, const char* parameter);
// ni * nj mask bytes, mask_bytes saying so.
ByteView mask_of(const std::uint8_t* mask, std::size_t mask_bytes, std::size_t ni, std::size_t nj);
// n views from an array of pointers and an array of lengths.
std::vector<ByteView> views_of(const void* const* pointers, const std::size_t* bytes, std::size_t n,
                               const char* parameter);
// n values of an array (NULL only when n is 0).
std::vector<std::uint64_t> values_of(const std::uint64_t* values, std::size_t n, const char* parameter);

std::optional<std::size_t> howmany_from(std::size_t howmany);
std::optional<std::vector<double>> thresholds_from(const double* thresholds, std::size_t nthresholds);

// a * b and a + b of sizes the caller's structs or arguments give; a bad_argument Error naming
// `what` where they do not fit in a size_t (a size that wrapped would pass every room check).
std::size_t size_product(std::size_t a, std::size_t b, const char* what);
std::size_t size_sum(std::size_t a, std::size_t b, const char* what);

}  // namespace bslz4::c_api
