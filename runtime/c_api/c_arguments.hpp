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

// A buffer's size in bytes, given by the caller (its data or its room): at most
// BSLZ4_MAX_BYTES, the largest object C can have, else a bad_argument Error naming `parameter`
// (a size past it is a mistake, SIZE_MAX or a negative number cast, and would wrap sums).
std::size_t checked_bytes(std::size_t bytes, const char* parameter);
// n elements of element_bytes each, as checked_bytes checks their bytes.
std::size_t checked_count(std::size_t n, std::size_t element_bytes, const char* parameter);
template <class T>
std::size_t checked_count(std::size_t n, const char* parameter) {
    return checked_count(n, sizeof(T), parameter);
}

// bytes at p (checked_bytes); p may be NULL only when bytes is 0.
ByteView bytes_at(const void* p, std::size_t bytes, const char* parameter);
// ni * nj mask bytes, mask_bytes saying so.
ByteView mask_of(const std::uint8_t* mask, std::size_t mask_bytes, std::size_t ni, std::size_t nj);
// n views from an array of pointers and an array of lengths.
std::vector<ByteView> views_of(const void* const* pointers, const std::size_t* bytes, std::size_t n,
                               const char* parameter);
// n values of an array (NULL only when n is 0).
std::vector<std::uint64_t> values_of(const std::uint64_t* values, std::size_t n, const char* parameter);

std::optional<std::size_t> howmany_from(std::size_t howmany);
// At most BSLZ4_MAX_THRESHOLDS values, refused before they are read.
std::optional<std::vector<double>> thresholds_from(const double* thresholds, std::size_t nthresholds);

// a * b and a + b of sizes the caller's structs or arguments give; a bad_argument Error naming
// `what` where they do not fit in a size_t (a size that wrapped would pass every room check).
std::size_t size_product(std::size_t a, std::size_t b, const char* what);
std::size_t size_sum(std::size_t a, std::size_t b, const char* what);

}  // namespace bslz4::c_api
