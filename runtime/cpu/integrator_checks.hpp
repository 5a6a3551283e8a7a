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

// The largest sum of |fixed weights| a bin may have so that int64 sums of pixels of `type`
// cannot overflow, whatever the pixel values: INT64_MAX / (largest |pixel|). Throws for
// pixel types acc i64 cannot sum (floats, and 64-bit integers, which pass int64 alone).
std::uint64_t fixed_weight_sum_limit(PixelType type);

// The heaviest bin of a fixed-point matrix: its index and its sum of |fixed weights|.
struct HeaviestBin {
    std::size_t bin = 0;
    std::uint64_t weight_sum = 0;
};
HeaviestBin heaviest_fixed_bin(const IntegrationMatrix& matrix);

}  // namespace bslz4::detail
