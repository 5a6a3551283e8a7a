// Fixed-point matrices: fixed_point_matrix (acc i64) and the exact-sum form acc f64 takes where
// the weights allow it (fixed_point.hpp). acc i64's is at the widest power-of-two scale the
// int64 sums allow for the pixel type; the exact form at the least one its weights allow.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "bslz4/error.hpp"
#include "fixed_point.hpp"
#include "integrator_checks.hpp"
#include "matrix_passes.hpp"

namespace bslz4 {

namespace {

// A part's result, in a struct of its own: parts write theirs on their own threads, and a
// std::vector<bool> would pack neighbouring parts' results into one word.
template <class R>
struct PartResult {
    R value;
};

// The parts' results folded by `join` in part order.
template <class R, class J>
R joined(const std::vector<PartResult<R>>& parts, R init, J join) {
    R out = init;
    for (const PartResult<R>& r : parts) out = join(out, r.value);
    return out;
}

// f(first, end) over the ranges of weights over_entry_ranges (matrix_passes.hpp) splits them
// into, a thread each, joined.
template <class R, class F, class J>
R over_entries(const IntegrationMatrix& m, R init, F f, J join) {
    const std::size_t n = m.weight.size();
    std::vector<PartResult<R>> part(detail::entry_parts(n), PartResult<R>{init});
    detail::over_entry_ranges(n, [&](std::size_t p, std::size_t first, std::size_t end) { part[p].value = f(first, end); });
    return joined(part, init, join);
}

// g(first, end) over ranges [first, end) of whole bins, a thread each, joined.
template <class R, class G, class J>
R over_bins(const IntegrationMatrix& m, R init, G g, J join) {
    const std::vector<detail::BinRange> ranges = detail::entry_balanced_ranges(m.row_start);
    std::vector<PartResult<R>> part(ranges.size(), PartResult<R>{init});
    detail::run_parts(ranges.size(), [&](std::size_t p) { part[p].value = g(ranges[p].first, ranges[p].end); });
    return joined(part, init, join);
}

// Below 2^-160 every float weight (the least is 2^-149) rounds to 0, which always fits.
constexpr int kLeastScaleLog2 = -160;

// The largest |weight| (0 for none), or NaN when a weight is not finite.
float largest_weight(const IntegrationMatrix& m) {
    const auto part = [&](std::size_t first, std::size_t end) {
        float top = 0;
        for (std::size_t k = first; k < end; ++k) {
            const float w = m.weight[k];
            if (!std::isfinite(w)) return std::numeric_limits<float>::quiet_NaN();
            top = std::max(top, std::fabs(w));
        }
        return top;
    };
    return over_entries(m, 0.0f, part, [](float a, float b) {
        return std::isnan(a) || std::isnan(b) ? std::numeric_limits<float>::quiet_NaN() : std::max(a, b);
    });
}

// e with top < 2^e (a top of 0 taken as 1).
int exponent_above(float top) {
    int e = 0;
    std::frexp(top > 0 ? top : 1.0f, &e);
    return e;
}

double scaled(float w, double power) { return static_cast<double>(w) * power; }

std::uint64_t magnitude(std::int64_t v) { return v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v); }

// The widest scale the float sums could allow, capped at 2^cap_log2: a bin's sum of
// |round(w s)| is at most s sum|w| + n/2, so s = 2^ilogb((limit - n/2) / sum|w|) fits every
// bin; one step above is returned, as rounding can leave room there (the integers decide).
int scale_above_log2(const IntegrationMatrix& m, std::uint64_t limit, int cap_log2) {
    const auto part = [&](std::size_t first, std::size_t end) {
        int guess = cap_log2;
        for (std::size_t b = first; b < end; ++b) {
            double sum = 0;
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) sum += std::fabs(m.weight[k]);
            if (sum == 0) continue;
            const double room = (static_cast<double>(limit) - 0.5 * (m.row_start[b + 1] - m.row_start[b])) / sum;
            guess = std::min(guess, room > 0 ? std::max(std::ilogb(room), kLeastScaleLog2) : kLeastScaleLog2);
        }
        return guess;
    };
    const int guess = over_bins(m, cap_log2, part, [](int a, int b) { return std::min(a, b); });
    return std::min(guess + 1, cap_log2);
}

// Whether every bin's sum of |fixed weights| at 2^scale_log2 stays within limit. At most one
// step above scale_above_log2's guess, a weight is at most 2 limit: no sum passes 64 bits.
bool sums_fit(const IntegrationMatrix& m, int scale_log2, std::uint64_t limit) {
    const double power = detail::power_of_two(scale_log2);
    const auto part = [&](std::size_t first, std::size_t end) {
        for (std::size_t b = first; b < end; ++b) {
            std::uint64_t sum = 0;
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
                sum += magnitude(detail::fixed_weight(m.weight[k], power));
                if (sum > limit) return false;
            }
        }
        return true;
    };
    return over_bins(m, true, part, [](bool a, bool b) { return a && b; });
}

// The widest scale (log2) at most 2^cap_log2 at which no bin's int64 sum can overflow.
int widest_scale_log2(const IntegrationMatrix& m, std::uint64_t limit, int cap_log2) {
    int k = scale_above_log2(m, limit, cap_log2);
    while (k > kLeastScaleLog2 && !sums_fit(m, k, limit)) --k;
    return k;
}

// Whether every weight times 2^scale_log2 is an integer (then so it is at any wider scale).
bool exact_at(const IntegrationMatrix& m, int scale_log2) {
    const double power = detail::power_of_two(scale_log2);
    const auto part = [&](std::size_t first, std::size_t end) {
        for (std::size_t k = first; k < end; ++k) {
            const double x = scaled(m.weight[k], power);
            if (x != std::floor(x)) return false;
        }
        return true;
    };
    return over_entries(m, true, part, [](bool a, bool b) { return a && b; });
}

// The least scale (log2) at which every weight is an integer: a finite nonzero float is
// M 2^(E - 150) with M its 24-bit significand (the hidden bit set when the biased exponent E is
// not 0; a subnormal is m 2^-149), an integer from 2^(150 - E - (M's trailing zero bits)) on.
// Read off the float's bits: no library call a weight.
int least_exact_scale_log2(const IntegrationMatrix& m) {
    const auto part = [&](std::size_t first, std::size_t end) {
        int least = kLeastScaleLog2;
        for (std::size_t k = first; k < end; ++k) {
            std::uint32_t bits;
            std::memcpy(&bits, &m.weight[k], sizeof bits);
            bits &= 0x7FFFFFFFu;  // the sign does not matter
            if (bits == 0) continue;
            const std::uint32_t biased = bits >> 23, fraction = bits & 0x7FFFFFu;
            const std::uint32_t significand = biased ? (fraction | 0x800000u) : fraction;
            least = std::max(least, (biased ? 150 - static_cast<int>(biased) : 149) - __builtin_ctz(significand));
        }
        return least;
    };
    return over_entries(m, kLeastScaleLog2, part, [](int a, int b) { return std::max(a, b); });
}

// For the refusal's message: the bin with the largest sum of |float weights|.
std::pair<std::size_t, double> heaviest_float_bin(const IntegrationMatrix& m) {
    std::pair<std::size_t, double> heavy{0, 0.0};
    for (std::size_t b = 0; b < m.bins; ++b) {
        double sum = 0;
        for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) sum += std::fabs(m.weight[k]);
        if (sum > heavy.second) heavy = {b, sum};
    }
    return heavy;
}

}  // namespace

IntegrationMatrix fixed_point_matrix(const IntegrationMatrix& m, PixelType type, int weight_bits) {
    if (weight_bits < 2 || weight_bits > kWidestFixedPoint)
        throw Error(ErrorCode::bad_argument, "fixed-point weights take 2 to " + std::to_string(kWidestFixedPoint) +
                                                 " bits, not " + std::to_string(weight_bits));
    const std::uint64_t limit = detail::fixed_weight_sum_limit(type);
    detail::check_matrix_form(m);  // its bins are walked by their row starts below
    const float top = largest_weight(m);
    if (std::isnan(top))
        throw Error(ErrorCode::bad_matrix, "matrix weight is not finite: a fixed-point matrix needs finite weights");
    const int exponent = exponent_above(top);
    // The cap keeps top x scale below 2^(weight_bits - 1).
    const int scale_log2 = widest_scale_log2(m, limit, weight_bits - 1 - exponent);
    const int kept_bits = scale_log2 + exponent + 1;  // the largest weight's, the sign included
    const int needed = std::min(weight_bits, kMinFixedPointBits);
    if (kept_bits < needed && !exact_at(m, scale_log2)) {
        const auto heavy = heaviest_float_bin(m);
        std::ostringstream why;
        why << "acc i64 with " << pixel_type_name(type) << " pixels: bin " << heavy.first << "'s weights (|w| summing to "
            << heavy.second << ", the largest |w| " << top << ") need a fixed-point scale of 2^" << scale_log2
            << " to keep every int64 sum exact, which leaves the largest weight " << kept_bits << " bits, fewer than the "
            << needed << " needed; use acc f64";
        throw Error(ErrorCode::bad_matrix, why.str());
    }
    return detail::at_scale(m, scale_log2);
}

namespace detail {

ExactSumScale exact_sum_scale(const IntegrationMatrix& folded, PixelType type, Accumulator acc) {
    if (acc != Accumulator::f64 || !has_fixed_point_sums(type)) return {};
    const float top = largest_weight(folded);
    if (std::isnan(top)) return {};  // NaN and infinities propagate through float sums
    const std::uint64_t limit = fixed_weight_sum_limit(type);
    const int cap_log2 = kWidestFixedPoint - 1 - exponent_above(top);
    // Exactness only grows with the scale: not exact at the widest candidate, not exact at all.
    if (!exact_at(folded, scale_above_log2(folded, limit, cap_log2))) return {};
    const int scale_log2 = widest_scale_log2(folded, limit, cap_log2);
    if (!exact_at(folded, scale_log2)) return {};
    // Exact there, the weights are exact at every scale from the least one at which they are
    // integers, with the same sums scaled by a power of two, so the same powders: the least
    // (from 2^0) keeps the weights small (unit weights are 1), which the integrators store in
    // fewer bytes.
    const int least = least_exact_scale_log2(folded);
    return {true, std::min(scale_log2, std::max(0, least))};
}

namespace {

// round(weight x 2^scale_log2) for each of m's weights, on several threads (matrix_passes.hpp).
std::vector<std::int64_t> fixed_weights(const IntegrationMatrix& m, int scale_log2) {
    std::vector<std::int64_t> fixed;
    size_for_overwrite(fixed, m.weight.size());
    const double power = detail::power_of_two(scale_log2);
    over_entry_ranges(m.weight.size(), [&](std::size_t, std::size_t first, std::size_t end) {
        for (std::size_t k = first; k < end; ++k) fixed[k] = fixed_weight(m.weight[k], power);
    });
    return fixed;
}

}  // namespace

IntegrationMatrix at_scale(IntegrationMatrix m, int scale_log2) {
    m.powder_scale = std::ldexp(1.0, scale_log2);
    m.fixed_weight = fixed_weights(m, scale_log2);
    return m;
}

IntegrationMatrix summed_matrix(IntegrationMatrix folded, PixelType type, Accumulator acc) {
    const ExactSumScale s = exact_sum_scale(folded, type, acc);
    if (s.fixed) return at_scale(std::move(folded), s.scale_log2);
    return folded;  // moved, not copied (as a branch of ?: it would be copied)
}

}  // namespace detail

}  // namespace bslz4
