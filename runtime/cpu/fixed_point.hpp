// What an integrator sums (the CPU's and the GPU's alike, so their powders agree): the float
// weights, or a fixed-point copy whose int64 sums are exact.
#pragma once
#include <cmath>
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

// 2^scale_log2 as a double, made once a pass: w times it is w x 2^scale_log2 exactly (a product
// by a power of two; from a float weight and the scales tried, 2^-309 to 2^126, never out of
// double's range), as ldexp gives it, without a library call a weight.
inline double power_of_two(int scale_log2) { return std::ldexp(1.0, scale_log2); }
// A float weight at the fixed-point scale `power` (power_of_two's): round(w x 2^scale_log2), a
// half away from zero, as std::llround, for products within int64 (the scales chosen keep them
// there). Inline rather than llround's library call, which was most of a pass over 9 M weights:
// the truncation and the fraction it leaves are exact (below 2^52; above, x is whole).
inline std::int64_t fixed_weight(float w, double power) {
    const double x = static_cast<double>(w) * power;
    const auto whole = static_cast<std::int64_t>(x);
    const double fraction = x - static_cast<double>(whole);
    return whole + (fraction >= 0.5) - (fraction <= -0.5);
}

// `m` with fixed weights round(weight x 2^scale_log2) and powder_scale 2^scale_log2.
IntegrationMatrix at_scale(IntegrationMatrix m, int scale_log2);

}  // namespace bslz4::detail
