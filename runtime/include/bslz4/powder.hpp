// Powder patterns (bins per frame) from the integrators, in the accumulator's own type:
// f64 (float32 weights, float64 sums, as pyFAI), f32, or i64 (the exact integer sums of pixel x
// fixed-point weight, the weights rounded once to at most 24 bits by fixed_point_matrix for the
// pixel type: float powder = value / powder_scale).
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/error.hpp"

namespace bslz4 {

enum class Accumulator { f64, f32, i64 };

BSLZ4_API const char* accumulator_name(Accumulator a);
BSLZ4_API Accumulator parse_accumulator(const std::string& name);  // "f64", "f32", "i64"
BSLZ4_API std::size_t accumulator_size(Accumulator a);

template <class T> constexpr Accumulator accumulator_of();
template <> constexpr Accumulator accumulator_of<double>() { return Accumulator::f64; }
template <> constexpr Accumulator accumulator_of<float>() { return Accumulator::f32; }
template <> constexpr Accumulator accumulator_of<std::int64_t>() { return Accumulator::i64; }

// A view of nframes x bins sums (row f = frame f).
struct BSLZ4_API Powder {
    std::size_t nframes = 0, bins = 0;
    Accumulator acc = Accumulator::f64;
    const void* data = nullptr;
    double powder_scale = 1;  // i64 only: the fixed-point matrix's scale

    template <class T>
    const T* as() const {
        if (accumulator_of<T>() != acc)
            throw Error(ErrorCode::bad_argument, std::string("powder is ") + accumulator_name(acc));
        return static_cast<const T*>(data);
    }
    // Frame f, bin b as a float powder value (i64 divided by powder_scale).
    double value(std::size_t f, std::size_t b) const;
};

}  // namespace bslz4
