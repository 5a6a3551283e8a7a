// Azimuthal-integration matrices (bins x pixels), as pyFAI and scipy give them, turned into the
// one canonical form the CPU and GPU integrators share: CSR by bin, pixel indices ascending,
// duplicates merged. Masked pixels are folded out once; a fixed-point copy makes integer sums
// exact (fixed_point_matrix says in what sense), so the CPU and GPU give the same int64 powders.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/pixel_type.hpp"

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

// The fewest bits fixed_point_matrix lets the largest weight keep (see below).
constexpr int kMinFixedPointBits = 16;

// A fixed-point copy for acc i64 with pixels of `pixel_type`: integer weights
// round(weight * powder_scale), powder_scale a power of two, float powder = powder / powder_scale.
// "Exact" means: the int64 powder is the exact integer sum of pixel x fixed weight, the same on
// CPU and GPU whatever the summation order; the fixed weights themselves are the float weights
// rounded to at most `weight_bits` bits (2 to 31, the sign included): the largest |weight| times
// powder_scale is below 2^(weight_bits - 1), so every weight is within (largest |weight|) /
// 2^(bits - 1) of its float.
// The scale is also small enough that no bin can overflow int64 with every pixel at its type's
// extreme: the heaviest bin's sum of |fixed weights| times 2^32 - 1 (u32), 2^31 (i32), 2^15
// (i16), ... stays within int64. For u32 pixels that costs one bit for each doubling of
// (heaviest bin's sum of |weights|) / (largest |weight|) past about 2^8; for u16 past 2^24.
// When fewer than min(weight_bits, kMinFixedPointBits) bits would be left and the weights are
// not exact at that scale, it throws Error saying how many bits would be kept (use acc f64).
// Float pixels and 64-bit integers (one pixel alone can pass int64) are refused.
IntegrationMatrix fixed_point_matrix(const IntegrationMatrix& matrix, PixelType pixel_type, int weight_bits = 24);

}  // namespace bslz4
