// Integration matrices: normalise (a user's CSR / CSC arrays to the canonical form), fold a
// mask, fixed point; the canonical form lent back as a view.
#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/integration_matrix.hpp"
#include "c_arguments.hpp"
#include "c_matrix.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

namespace {

int made(IntegrationMatrix&& m, bslz4_matrix** out) {
    *out = new bslz4_matrix{std::move(m)};
    return BSLZ4_OK;
}

MatrixLayout layout_from(int layout) {
    if (layout != BSLZ4_LAYOUT_CSC && layout != BSLZ4_LAYOUT_CSR)
        throw Error(ErrorCode::bad_argument, "layout " + std::to_string(layout) +
                                                 " is none of BSLZ4_LAYOUT_CSC (0), BSLZ4_LAYOUT_CSR (1)");
    return layout == BSLZ4_LAYOUT_CSC ? MatrixLayout::csc : MatrixLayout::csr;
}

IndexType index_type_from(int index_type) {
    if (index_type != BSLZ4_INDEX_I32 && index_type != BSLZ4_INDEX_U32)
        throw Error(ErrorCode::bad_argument, "index_type " + std::to_string(index_type) +
                                                 " is none of BSLZ4_INDEX_I32 (0), BSLZ4_INDEX_U32 (1)");
    return index_type == BSLZ4_INDEX_I32 ? IndexType::i32 : IndexType::u32;
}

}  // namespace

const IntegrationMatrix& bslz4::c_api::matrix_of(const bslz4_matrix* matrix) {
    return checked(matrix, "matrix")->matrix;
}

int bslz4_matrix_normalise(const bslz4_matrix_input* input, bslz4_matrix** matrix) {
    return guarded("bslz4_matrix_normalise", [&] {
        require(input, "input");
        require(matrix, "matrix");
        *matrix = nullptr;
        MatrixInput in;
        in.layout = layout_from(input->layout);
        in.bins = input->bins;
        in.pixels = input->pixels;
        // The arrays' sizes are counts of 4-byte entries (floats, i32 or u32 indices).
        in.data_size = checked_count<float>(input->data_size, "input.data_size");
        bytes_at(input->data, in.data_size, "input.data");  // NULL only for no weights
        in.data = input->data;
        in.index_type = index_type_from(input->index_type);
        in.indices_size = checked_count<std::uint32_t>(input->indices_size, "input.indices_size");
        bytes_at(input->indices, in.indices_size, "input.indices");
        in.indices = input->indices;
        require(input->indptr, "input.indptr");
        in.indptr = input->indptr;
        in.indptr_size = checked_count<std::uint32_t>(input->indptr_size, "input.indptr_size");
        return made(normalise_matrix(in), matrix);
    });
}

int bslz4_matrix_fold_mask(const bslz4_matrix* matrix, const uint8_t* mask, size_t mask_bytes, bslz4_matrix** folded) {
    return guarded("bslz4_matrix_fold_mask", [&] {
        require(folded, "folded");
        *folded = nullptr;
        const IntegrationMatrix& m = matrix_of(matrix);
        require(mask, "mask");
        checked_bytes(mask_bytes, "mask_bytes");
        if (mask_bytes != m.pixels)
            throw Error(ErrorCode::bad_argument, "mask of " + std::to_string(mask_bytes) + " bytes for a matrix of " +
                                                     std::to_string(m.pixels) + " pixels");
        return made(fold_mask(m, ByteView(mask, mask_bytes)), folded);
    });
}

int bslz4_matrix_fixed_point(const bslz4_matrix* matrix, int pixel_type, int weight_bits, bslz4_matrix** fixed) {
    return guarded("bslz4_matrix_fixed_point", [&] {
        require(fixed, "fixed");
        *fixed = nullptr;
        return made(fixed_point_matrix(matrix_of(matrix), pixel_type_from(pixel_type), weight_bits), fixed);
    });
}

int bslz4_matrix_view_of(const bslz4_matrix* matrix, bslz4_matrix_view* view) {
    return guarded("bslz4_matrix_view_of", [&] {
        const IntegrationMatrix& m = matrix_of(matrix);
        require(view, "view");
        *view = bslz4_matrix_view{m.bins,         m.pixels,        m.nnz(),
                                  m.row_start.data(), m.pixel.data(), m.weight.data(),
                                  m.fixed_point() ? m.fixed_weight.data() : nullptr, m.powder_scale};
        return BSLZ4_OK;
    });
}

int bslz4_matrix_destroy(bslz4_matrix* matrix) {
    return destroy_call("bslz4_matrix_destroy", matrix, "matrix");
}
