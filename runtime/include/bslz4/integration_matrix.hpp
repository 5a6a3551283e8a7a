// Azimuthal-integration matrices (bins x pixels), as pyFAI and scipy give them, turned into the
// one canonical form the CPU and GPU integrators share: CSR by bin, pixel indices ascending,
// duplicates merged. Masked pixels are folded out once; a fixed-point copy makes integer sums
// exact, so the CPU and GPU give the same int64 powders.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4 {

enum class MatrixLayout { csc, csr };  // csc: a column per pixel (scipy csc_matrix); csr: a row per bin
enum class IndexType { i32, u32 };

// A user's matrix, not copied: data (float32 weights), indices and indptr with their lengths.
struct MatrixInput {
    MatrixLayout layout = MatrixLayout::csr;
    std::size_t bins = 0, pixels = 0;
    const float* data = nullptr;
    std::size_t data_size = 0;
    IndexType index_type = IndexType::i32;
    const void* indices = nullptr;
    std::size_t indices_size = 0;
    const void* indptr = nullptr;   // pixels + 1 (csc) or bins + 1 (csr) entries
    std::size_t indptr_size = 0;
};

struct IntegrationMatrix {
    std::size_t bins = 0, pixels = 0;
    std::vector<std::uint32_t> row_start;   // bins + 1
    std::vector<std::uint32_t> pixel;       // ascending within a bin
    std::vector<float> weight;
    // A fixed-point matrix (fixed_point_matrix): integer weights, weight ~ fixed_weight / powder_scale.
    std::vector<std::int32_t> fixed_weight;
    double powder_scale = 0;
    bool fixed_point() const { return powder_scale != 0; }
    std::size_t nnz() const { return pixel.size(); }
};

// Checks the input (lengths agree, indptr starts at 0, never decreases and ends at the number
// of weights, every index in range) and returns the canonical form. Throws Error naming the fault.
IntegrationMatrix normalise_matrix(const MatrixInput& input);

// Drops the weights of pixels whose mask byte is 0 (mask: nonzero = use this pixel).
IntegrationMatrix fold_mask(const IntegrationMatrix& matrix, ByteView mask);

// Integer weights round(weight * powder_scale), powder_scale a power of two chosen so the
// largest |weight| takes `weight_bits` bits (at most 31). Sums of integer pixels times these
// weights are exact in int64; float powder = powder / powder_scale.
IntegrationMatrix fixed_point_matrix(const IntegrationMatrix& matrix, int weight_bits = 24);

}  // namespace bslz4
