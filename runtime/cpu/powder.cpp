#include "bslz4/powder.hpp"

namespace bslz4 {

const char* accumulator_name(Accumulator a) {
    switch (a) {
        case Accumulator::f64: return "f64";
        case Accumulator::f32: return "f32";
        case Accumulator::i64: return "i64";
    }
    return "?";
}

Accumulator parse_accumulator(const std::string& name) {
    for (Accumulator a : {Accumulator::f64, Accumulator::f32, Accumulator::i64})
        if (name == accumulator_name(a)) return a;
    throw Error(ErrorCode::bad_argument, "unknown accumulator '" + name + "' (expected f64, f32 or i64)");
}

std::size_t accumulator_size(Accumulator a) { return a == Accumulator::f32 ? 4 : 8; }

double Powder::value(std::size_t f, std::size_t b) const {
    if (f >= nframes || b >= bins)
        throw Error(ErrorCode::bad_argument, "powder index (" + std::to_string(f) + ", " + std::to_string(b) +
                                                 ") outside " + std::to_string(nframes) + " x " + std::to_string(bins));
    const std::size_t k = f * bins + b;
    switch (acc) {
        case Accumulator::f64: return static_cast<const double*>(data)[k];
        case Accumulator::f32: return static_cast<const float*>(data)[k];
        case Accumulator::i64: return static_cast<double>(static_cast<const std::int64_t*>(data)[k]) / powder_scale;
    }
    return 0;
}

}  // namespace bslz4
