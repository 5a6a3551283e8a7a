#include "row_sum_matrix.h"

#include <stdint.h>
#include <stdlib.h>

int row_sum_matrix(size_t ni, size_t nj, bslz4_matrix** matrix) {
    const size_t n = ni * nj;
    int32_t* indptr = (int32_t*)malloc((ni + 1) * sizeof *indptr);
    int32_t* indices = (int32_t*)malloc((n ? n : 1) * sizeof *indices);
    float* data = (float*)malloc((n ? n : 1) * sizeof *data);
    bslz4_matrix_input in;
    size_t i;
    int status = BSLZ4_E_OUT_OF_MEMORY;
    if (indptr && indices && data) {
        for (i = 0; i <= ni; ++i) indptr[i] = (int32_t)(i * nj);
        for (i = 0; i < n; ++i) {
            indices[i] = (int32_t)i;
            data[i] = 1.0f;
        }
        in.layout = BSLZ4_LAYOUT_CSR;
        in.bins = ni;
        in.pixels = n;
        in.data = data;
        in.data_size = n;
        in.index_type = BSLZ4_INDEX_I32;
        in.indices = indices;
        in.indices_size = n;
        in.indptr = indptr;
        in.indptr_size = ni + 1;
        status = bslz4_matrix_normalise(&in, matrix);
    }
    free(indptr);
    free(indices);
    free(data);
    return status;
}
