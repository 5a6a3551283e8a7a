// The matrix an integrating engine (Chunk2SparseCSC) applies, as its stages see it: none
// (matrix null) for Chunk2Sparse.
#pragma once
#include <cstddef>
#include <memory>

#include "bslz4/powder.hpp"
#include "shared_matrices.hpp"

namespace bslz4::cuda::detail {

struct PowderSpec {
    std::shared_ptr<const DeviceMatrix> matrix;
    Accumulator acc = Accumulator::f64;
    std::size_t bins = 0;
    double scale = 1;  // a fixed-point matrix's powders are sums / scale

    std::size_t row_bytes() const { return bins * accumulator_size(acc); }
};

}  // namespace bslz4::cuda::detail
