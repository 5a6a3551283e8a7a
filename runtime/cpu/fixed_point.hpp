// What an integrator sums (the CPU's and the GPU's alike, so their powders agree): the float
// weights, or a fixed-point copy whose int64 sums are exact.
#pragma once
#include <cstdint>
#include <vector>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/powder.hpp"

namespace bslz4::detail {

// The matrix to sum for a mask-folded, checked `folded` and accumulator `acc`:
// - acc i64: `folded` itself, a fixed_point_matrix (int64 powders).
// - acc f64 with integer pixels of up to 32 bits, where every weight is exact at the widest
//   fixed-point scale (unit weights, halves, ...): that fixed-point copy, at the least scale
//   that keeps its weights integers (unit weights 1, halves 1 at 2^1). Its int64 sum is then
//   the exact sum of the float64 products, and the powder that sum / powder_scale rounded once,
//   where float64 sums round every add once they pass 2^53 (u32 pixels in a bin of 2^21).
// - otherwise `folded`, summed in the accumulator's type (float64 products of the float32
//   weights, each duplicate entry a term of its own, as scipy's csc @ frame).
IntegrationMatrix summed_matrix(IntegrationMatrix folded, PixelType type, Accumulator acc);

// summed_matrix's choice without a copy: the fixed-point scale (log2) of the exact-sum copy it
// makes of `folded`, or false where it returns `folded` itself.
struct ExactSumScale {
    bool fixed = false;
    int scale_log2 = 0;
};
ExactSumScale exact_sum_scale(const IntegrationMatrix& folded, PixelType type, Accumulator acc);

// round(weight x 2^scale_log2) for each of m's weights (on several threads: matrix_passes.hpp).
std::vector<std::int64_t> fixed_weights(const IntegrationMatrix& m, int scale_log2);
// `m` with those fixed weights and powder_scale 2^scale_log2.
IntegrationMatrix at_scale(IntegrationMatrix m, int scale_log2);

}  // namespace bslz4::detail
