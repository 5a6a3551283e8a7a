// Azimuthal-integration matrices (bins x pixels), as pyFAI and scipy give them, turned into the
// one canonical form the CPU and GPU integrators share: CSR by bin, pixel indices non-decreasing,
// a duplicate (bin, pixel) entry kept as a term of its own, as scipy's csc @ frame sums it (merged
// into one float32 weight, the pair would be rounded: up to 2e-8 relative in a bin). Masked
// pixels are folded out once; a fixed-point copy makes integer sums exact (fixed_point_matrix
// says in what sense), so the CPU and GPU give the same int64 powders.
#pragma once
#include "bslz4/export.h"
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
    std::vector<std::uint32_t> pixel;       // non-decreasing within a bin (duplicates kept)
    std::vector<float> weight;
    // A fixed-point matrix (fixed_point_matrix): integer weights, weight ~ fixed_weight / powder_scale.
    std::vector<std::int64_t> fixed_weight;
    double powder_scale = 0;
    bool fixed_point() const { return powder_scale != 0; }
    std::size_t nnz() const { return pixel.size(); }
};

// Checks the input (lengths agree, indptr starts at 0, never decreases and ends at the number
// of weights, every index in range) and returns the canonical form: the entries sorted by bin,
// then pixel, those of one (bin, pixel) in the order given. Throws Error naming the fault.
BSLZ4_API IntegrationMatrix normalise_matrix(const MatrixInput& input);
// The same checks and form for a CSR matrix whose arrays the caller hands over (a file's, read
// into them): where each bin's pixels are in order already, as pyFAI and scipy write them, they
// become the matrix's own arrays, not copied (an Eiger 4M matrix's are 72 MB). indices and
// indptr hold the int32 values as stored (a negative one is refused as normalise_matrix refuses
// it); indptr has bins + 1 of them.
BSLZ4_API IntegrationMatrix normalise_matrix(std::size_t bins, std::size_t pixels, std::vector<float> data, std::vector<std::uint32_t> indices,
                                   const std::vector<std::uint32_t>& indptr);

// Drops the weights of pixels whose mask byte is 0 (mask: nonzero = use this pixel). A matrix
// not in normalise_matrix's form (a hand-made one) is Error bad_matrix, a mask of another size
// bad_argument.
BSLZ4_API IntegrationMatrix fold_mask(const IntegrationMatrix& matrix, ByteView mask);

// The fewest bits fixed_point_matrix lets the largest weight keep (see below).
constexpr int kMinFixedPointBits = 16;
// fixed_point_matrix's default weight_bits: no bound on the weights but the int64 sums'.
constexpr int kWidestFixedPoint = 63;

// A fixed-point copy for acc i64 with pixels of `pixel_type`: integer weights
// round(weight * powder_scale), powder_scale a power of two, float powder = powder / powder_scale.
// The scale is the widest the int64 sums allow: the largest power of two at which the heaviest
// bin's sum of |fixed weights| times the type's largest |pixel| (2^32 - 1 for u32, 2^31 for i32,
// 2^16 - 1 for u16, 2^15 for i16, ...) stays within INT64_MAX. So no bin can overflow whatever
// the pixels, the int64 powder is the exact integer sum of pixel x fixed weight, the same on CPU
// and GPU in any order, and each fixed weight is its float weight within 0.5 / powder_scale
// (exactly it where weight x powder_scale is an integer: unit weights, for one). For u16 pixels
// that is about 2^47 / (the heaviest bin's sum of |weights|), for u32 about 2^31 / that sum: at
// least as wide as bslz4-to-sparse's fixed_point_matrix for every pixel type.
// weight_bits (2 to 63, the sign included) narrows it where asked: the largest |weight| times
// powder_scale stays below 2^(weight_bits - 1).
// When the largest weight would keep fewer than min(weight_bits, kMinFixedPointBits) bits and
// the weights are not exact at that scale, it throws Error saying how many bits would be kept
// (use acc f64). Float pixels and 64-bit integers (one pixel alone can pass int64) are refused.
BSLZ4_API IntegrationMatrix fixed_point_matrix(const IntegrationMatrix& matrix, PixelType pixel_type,
                                     int weight_bits = kWidestFixedPoint);

}  // namespace bslz4
