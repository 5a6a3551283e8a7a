// The arguments every integrator (CPU and GPU) refuses alike: a matrix of the wrong size or not
// in normalise_matrix's form, and accumulators that do not fit the matrix or the pixels.
#pragma once
#include <cstddef>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::detail {

void check_integrator(const IntegrationMatrix& matrix, std::size_t ni, std::size_t nj, PixelType type, Accumulator acc);

}  // namespace bslz4::detail
