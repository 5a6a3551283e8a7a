#include "handle_classes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"
#include "frame_lists.h"
#include "row_sum_matrix.h"

#define SPARSE "bslz4_chunk2sparse"
#define CSC "bslz4_chunk2sparse_csc"
#define MATRIX "bslz4_matrix"

/* Every function of the CSC class given a bslz4_chunk2sparse, and the other way round. */
static void check_csc_given_sparse(bslz4_chunk2sparse* sparse, const unsigned char* chunk, size_t chunk_bytes) {
    bslz4_chunk2sparse_csc* wrong = (bslz4_chunk2sparse_csc*)(void*)sparse;
    const void* chunks[1];
    size_t lengths[1], bins = 0;
    uint64_t offsets[1] = {0}, lengths64[1];
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    bslz4_powder powder;
    int acc = 0;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_call(wrong, chunk, chunk_bytes, 1.0, &frame, &powder),
                        "bslz4_chunk2sparse_csc_call", "handle", SPARSE, CSC, "csc call given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_multi(wrong, chunks, lengths, 1, 1.0, &batch, &powder),
                        "bslz4_chunk2sparse_csc_multi", "handle", SPARSE, CSC, "csc multi given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_from_buffer(wrong, chunk, chunk_bytes, offsets, lengths64, 1, 1.0, &batch,
                                                           &powder),
                        "bslz4_chunk2sparse_csc_from_buffer", "handle", SPARSE, CSC,
                        "csc from_buffer given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_coo(wrong, chunk, chunk_bytes, 1.0, &coo, &powder),
                        "bslz4_chunk2sparse_csc_coo", "handle", SPARSE, CSC, "csc coo given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_from_frames(wrong, chunks, lengths, 1, 1.0, &batch, &powder),
                        "bslz4_chunk2sparse_csc_from_frames", "handle", SPARSE, CSC,
                        "csc from_frames given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_set_top_pixels(wrong, 10, NULL, 0), "bslz4_chunk2sparse_csc_set_top_pixels",
                        "handle", SPARSE, CSC, "csc set_top_pixels given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_info(wrong, &bins, &acc), "bslz4_chunk2sparse_csc_info", "handle", SPARSE, CSC,
                        "csc info given a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_destroy(wrong), "bslz4_chunk2sparse_csc_destroy", "handle", SPARSE, CSC,
                        "csc destroy given a chunk2sparse handle (not freed as a csc)");
}

static void check_sparse_given_csc(bslz4_chunk2sparse_csc* csc, const unsigned char* chunk, size_t chunk_bytes) {
    bslz4_chunk2sparse* wrong = (bslz4_chunk2sparse*)(void*)csc;
    const void* chunks[1];
    size_t lengths[1], ni = 0;
    uint64_t offsets[1] = {0}, lengths64[1];
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_call(wrong, chunk, chunk_bytes, 1.0, &frame), "bslz4_chunk2sparse_call", "handle",
                        CSC, SPARSE, "chunk2sparse call given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_multi(wrong, chunks, lengths, 1, 1.0, &batch), "bslz4_chunk2sparse_multi",
                        "handle", CSC, SPARSE, "chunk2sparse multi given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_from_buffer(wrong, chunk, chunk_bytes, offsets, lengths64, 1, 1.0, &batch),
                        "bslz4_chunk2sparse_from_buffer", "handle", CSC, SPARSE,
                        "chunk2sparse from_buffer given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_coo(wrong, chunk, chunk_bytes, 1.0, &coo), "bslz4_chunk2sparse_coo", "handle",
                        CSC, SPARSE, "chunk2sparse coo given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_from_frames(wrong, chunks, lengths, 1, 1.0, &batch),
                        "bslz4_chunk2sparse_from_frames", "handle", CSC, SPARSE,
                        "chunk2sparse from_frames given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_set_top_pixels(wrong, 10, NULL, 0), "bslz4_chunk2sparse_set_top_pixels",
                        "handle", CSC, SPARSE, "chunk2sparse set_top_pixels given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_info(wrong, &ni, NULL, NULL, NULL), "bslz4_chunk2sparse_info", "handle", CSC,
                        SPARSE, "chunk2sparse info given a csc handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_destroy(wrong), "bslz4_chunk2sparse_destroy", "handle", CSC, SPARSE,
                        "chunk2sparse destroy given a csc handle (not freed as a chunk2sparse)");
}

/* Matrices and class handles passed for each other. */
static void check_matrix_confusions(bslz4_chunk2sparse* sparse, bslz4_matrix* matrix, const reference_case* c,
                                    const unsigned char* mask, const unsigned char* chunk, size_t chunk_bytes) {
    const size_t n = c->ni * c->nj;
    bslz4_matrix* wrong = (bslz4_matrix*)(void*)sparse;
    bslz4_matrix* out = NULL;
    bslz4_matrix_view view;
    bslz4_chunk2sparse_csc* csc = NULL;
    bslz4_frame frame;
    CHECK_CLASS_REFUSED(bslz4_matrix_view_of(wrong, &view), "bslz4_matrix_view_of", "matrix", SPARSE, MATRIX,
                        "matrix view of a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_matrix_fold_mask(wrong, mask, n, &out), "bslz4_matrix_fold_mask", "matrix", SPARSE, MATRIX,
                        "fold_mask of a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_matrix_fixed_point(wrong, c->pixel_type, 24, &out), "bslz4_matrix_fixed_point", "matrix",
                        SPARSE, MATRIX, "fixed_point of a chunk2sparse handle");
    CHECK(out == NULL, "no matrix made from a handle of another class");
    CHECK_CLASS_REFUSED(bslz4_matrix_destroy(wrong), "bslz4_matrix_destroy", "matrix", SPARSE, MATRIX,
                        "matrix destroy given a chunk2sparse handle (not freed as a matrix)");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_csc_create(mask, n, c->ni, c->nj, c->pixel_type, wrong, BSLZ4_ACC_F64, NULL, &csc),
                        "bslz4_chunk2sparse_csc_create", "matrix", SPARSE, MATRIX,
                        "csc create given a chunk2sparse handle as its matrix");
    CHECK(csc == NULL, "no csc handle made with a handle of another class as its matrix");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_call((bslz4_chunk2sparse*)(void*)matrix, chunk, chunk_bytes, 1.0, &frame),
                        "bslz4_chunk2sparse_call", "handle", MATRIX, SPARSE, "chunk2sparse call given a matrix");
}

/* Memory that is no handle at all (zeros, and bytes of a frame): refused as such. */
static void check_no_handle(const unsigned char* chunk, size_t chunk_bytes) {
    uint64_t zeros[64];
    bslz4_frame frame;
    bslz4_matrix_view view;
    memset(zeros, 0, sizeof zeros);
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_call((bslz4_chunk2sparse*)(void*)zeros, chunk, chunk_bytes, 1.0, &frame),
                        "bslz4_chunk2sparse_call", "handle", NULL, SPARSE, "zeroed memory as a chunk2sparse handle");
    CHECK_CLASS_REFUSED(bslz4_matrix_view_of((const bslz4_matrix*)(const void*)chunk, &view), "bslz4_matrix_view_of",
                        "matrix", NULL, MATRIX, "a chunk's bytes as a matrix");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_destroy((bslz4_chunk2sparse*)(void*)zeros), "bslz4_chunk2sparse_destroy",
                        "handle", NULL, SPARSE, "destroy of zeroed memory (nothing freed)");
}

void check_cpu_handle_classes(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes) {
    const size_t n = c->ni * c->nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_chunk2sparse_csc* csc = NULL;
    bslz4_matrix* matrix = NULL;
    bslz4_frame frame;
    bslz4_powder powder;
    CHECK_OK(row_sum_matrix(c->ni, c->nj, &matrix), "a matrix");
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &sparse), "a chunk2sparse handle");
    CHECK_OK(bslz4_chunk2sparse_csc_create(mask, n, c->ni, c->nj, c->pixel_type, matrix, BSLZ4_ACC_F64, NULL, &csc),
             "a csc handle");
    if (sparse && csc && matrix) {
        check_csc_given_sparse(sparse, chunk, chunk_bytes);
        check_sparse_given_csc(csc, chunk, chunk_bytes);
        check_matrix_confusions(sparse, matrix, c, mask, chunk, chunk_bytes);
        check_no_handle(chunk, chunk_bytes);
        /* Refused calls touched nothing: each handle still works as its own class. */
        CHECK_OK(bslz4_chunk2sparse_call(sparse, chunk, chunk_bytes, 1.0, &frame),
                 "the chunk2sparse handle works after being refused elsewhere");
        CHECK_OK(bslz4_chunk2sparse_csc_call(csc, chunk, chunk_bytes, 1.0, &frame, &powder),
                 "the csc handle works after being refused elsewhere");
        CHECK(powder.bins == c->ni, "and gives its powder");
    }
    CHECK_OK(bslz4_chunk2sparse_csc_destroy(csc), "the csc handle destroyed as its own class");
    CHECK_OK(bslz4_chunk2sparse_destroy(sparse), "the chunk2sparse handle destroyed as its own class");
    CHECK_OK(bslz4_matrix_destroy(matrix), "the matrix destroyed as its own class");
    free(mask);
}
