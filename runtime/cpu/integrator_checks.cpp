#include "integrator_checks.hpp"

#include <string>

#include "bslz4/error.hpp"

namespace bslz4::detail {

void check_integrator(const IntegrationMatrix& matrix, std::size_t ni, std::size_t nj, PixelType type, Accumulator acc) {
    if (matrix.pixels != ni * nj)
        throw Error("matrix has " + std::to_string(matrix.pixels) + " pixels, the frame " + std::to_string(ni) + " x " +
            std::to_string(nj) + " has " + std::to_string(ni * nj));
    if (matrix.row_start.size() != matrix.bins + 1 || matrix.weight.size() != matrix.pixel.size())
        throw Error("matrix is not in normalise_matrix's form");
    if (acc == Accumulator::i64 && !matrix.fixed_point())
        throw Error("acc i64 sums a fixed_point_matrix; this matrix has float weights");
    if (acc != Accumulator::i64 && matrix.fixed_point())
        throw Error(std::string("a fixed_point_matrix is summed with acc i64, not ") + accumulator_name(acc));
    if (acc == Accumulator::i64 && (type == PixelType::f32 || type == PixelType::f64))
        throw Error(std::string("acc i64 needs integer pixels, not ") + pixel_type_name(type));
}

}  // namespace bslz4::detail
