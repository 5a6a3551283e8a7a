// "value > cut" for every pixel type, exact: the cut is a double and is compared with each
// value as a mathematical number (so 64-bit integers are not rounded), NaN never passes.
// Integers get one integer threshold, so the hot loop is a plain integer compare.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace bslz4::detail {

enum class CutMode { compare, none, all };

template <class T, bool = std::is_floating_point<T>::value>
struct PixelThreshold {  // integers
    CutMode mode = CutMode::compare;
    T t{};
    explicit PixelThreshold(double cut) {
        using L = std::numeric_limits<T>;
        const double upper = std::ldexp(1.0, L::digits);  // max + 1, exact
        const double lower = L::is_signed ? -upper : 0.0;  // lowest, exact
        if (std::isnan(cut)) { mode = CutMode::none; return; }
        const double f = std::floor(cut);  // v > cut  <=>  v > floor(cut) for integers v
        if (f >= upper) mode = CutMode::none;
        else if (f < lower) mode = CutMode::all;
        else t = static_cast<T>(f);
    }
    bool operator()(T v) const { return v > t; }
};

template <class T>
struct PixelThreshold<T, true> {  // floats: compared in double, exact for f32 and f64
    CutMode mode = CutMode::compare;
    double cut;
    explicit PixelThreshold(double c) : cut(c) {
        if (std::isnan(c)) mode = CutMode::none;
    }
    bool operator()(T v) const { return static_cast<double>(v) > cut; }
};

}  // namespace bslz4::detail
