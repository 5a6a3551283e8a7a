// The matrix an integrating engine (Chunk2SparseCSC) applies, as its stages see it: none
// (matrix null) for Chunk2Sparse.
#pragma once
#include <cstddef>
#include <memory>

#include "bslz4/powder.hpp"
#include "shared_matrices.hpp"

namespace bslz4::cuda::detail {

struct PowderSpec {
    std::shared_ptr<const DeviceMatrix> matrix;  // summed_matrix's choice (fixed_point.hpp)
    Accumulator acc = Accumulator::f64;
    std::size_t bins = 0;
    double scale = 1;  // a fixed-point matrix's powders are sums / scale
    // Whether the matrix has fixed-point weights, summed in int64: acc i64, and acc f64 where
    // those sums are exact (each bin's then written as sum x sum_to_f64, 1 / its scale).
    bool fixed_sums = false;
    double sum_to_f64 = 1;

    std::size_t row_bytes() const { return bins * accumulator_size(acc); }
};

}  // namespace bslz4::cuda::detail
