// The arguments every integrator (CPU and GPU) refuses alike: a matrix of the wrong size or not
// in normalise_matrix's form, and accumulators that do not fit the matrix or the pixels.
#pragma once
#include <cstddef>
#include <cstdint>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::detail {

void check_integrator(const IntegrationMatrix& matrix, std::size_t ni, std::size_t nj, PixelType type, Accumulator acc);

// A hand-made IntegrationMatrix is walked by row_start and pixel: throws bad_matrix unless both
// are in normalise_matrix's form (row_start non-decreasing from 0 to the entries, every pixel
// index inside the frame, the weight arrays as long).
void check_matrix_form(const IntegrationMatrix& matrix);

// Whether pixels of `type` have int64 sums of pixel x fixed weight: integers of up to 32 bits
// (floats have no integer sum; a 64-bit integer alone can pass int64).
bool has_fixed_point_sums(PixelType type);

// The largest sum of |fixed weights| a bin may have so that int64 sums of pixels of `type`
// cannot overflow, whatever the pixel values: INT64_MAX / (largest |pixel|). Throws for
// pixel types acc i64 cannot sum (!has_fixed_point_sums, saying why).
std::uint64_t fixed_weight_sum_limit(PixelType type);

// The heaviest bin of a fixed-point matrix: its index and its sum of |fixed weights| (at most
// UINT64_MAX: a sum past it, only in a hand-made matrix, is held there and still refused).
struct HeaviestBin {
    std::size_t bin = 0;
    std::uint64_t weight_sum = 0;
};
HeaviestBin heaviest_fixed_bin(const IntegrationMatrix& matrix);

}  // namespace bslz4::detail
