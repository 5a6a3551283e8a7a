#include "size_limits.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"
#include "frame_lists.h"
#include "row_sum_matrix.h"

/* The last message says `text` (after a failure CHECK_FAILS accepted). */
static void check_message(int failed_as_expected, const char* text, const char* what) {
    if (failed_as_expected) CHECK(strstr(bslz4_last_error(), text) != NULL, what);
}

/* options.threads past BSLZ4_MAX_THREADS: refused at create (30,000 threads were started for a
 * 64 x 48 frame); counts up to it are taken. */
static void check_thread_limit(void) {
    const size_t ni = 64, nj = 48;
    unsigned char* mask = mask_of_ones(ni * nj);
    const unsigned too_many[3] = {BSLZ4_MAX_THREADS + 1, 30000, UINT_MAX};
    bslz4_options options;
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_chunk2sparse_csc* csc = NULL;
    bslz4_matrix* matrix = NULL;
    unsigned threads = 0;
    size_t k;
    bslz4_options_init(&options);
    CHECK_OK(row_sum_matrix(ni, nj, &matrix), "a matrix");
    for (k = 0; k < 3; ++k) {
        char said[128];
        options.threads = too_many[k];
        snprintf(said, sizeof said, "options.threads is %u, more than the 1024 threads", too_many[k]);
        check_message(CHECK_FAILS(bslz4_chunk2sparse_create(mask, ni * nj, ni, nj, BSLZ4_U16, &options, &sparse),
                                  BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create",
                                  "threads past BSLZ4_MAX_THREADS refused at create"),
                      said, "the message names options.threads and the limit");
        CHECK(sparse == NULL, "no handle, no threads started");
        CHECK_FAILS(bslz4_chunk2sparse_csc_create(mask, ni * nj, ni, nj, BSLZ4_U16, matrix, BSLZ4_ACC_F64, &options, &csc),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_csc_create",
                    "threads past BSLZ4_MAX_THREADS refused at csc create");
        CHECK(csc == NULL, "no csc handle");
    }
    options.threads = 4;
    CHECK_OK(bslz4_chunk2sparse_create(mask, ni * nj, ni, nj, BSLZ4_U16, &options, &sparse), "4 threads are taken");
    CHECK_OK(bslz4_chunk2sparse_info(sparse, NULL, NULL, NULL, &threads), "info");
    CHECK(threads >= 1 && threads <= 4, "the handle runs at most the threads asked for");
    bslz4_chunk2sparse_destroy(sparse);
    bslz4_matrix_destroy(matrix);
    free(mask);
}

/* Counts of SIZE_MAX (a -1 cast) and past BSLZ4_MAX_BYTES: bad arguments, not internal errors. */
static void check_counts(bslz4_chunk2sparse* sparse, bslz4_chunk2sparse_csc* csc, const unsigned char* chunk,
                         size_t chunk_bytes) {
    const void* chunks[1];
    size_t lengths[1];
    uint64_t offsets[1] = {0}, lengths64[1];
    const double sixteen[BSLZ4_MAX_THRESHOLDS] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    const double seventeen[BSLZ4_MAX_THRESHOLDS + 1] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
    bslz4_batch batch;
    bslz4_powder powder;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    check_message(CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, chunks, lengths, SIZE_MAX, 1.0, &batch),
                              BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_multi", "multi of SIZE_MAX chunks"),
                  "chunks: 18446744073709551615 entries of 8 bytes, more than any array holds",
                  "the message names the array and its count");
    CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, chunks, lengths, BSLZ4_MAX_BYTES / sizeof(void*) + 1, 1.0, &batch),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_multi", "multi of one chunk more than BSLZ4_MAX_BYTES holds");
    CHECK_FAILS(bslz4_chunk2sparse_from_buffer(sparse, chunk, chunk_bytes, offsets, lengths64, SIZE_MAX, 1.0, &batch),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_from_buffer", "from_buffer of SIZE_MAX chunks");
    CHECK_FAILS(bslz4_chunk2sparse_from_frames(sparse, chunks, lengths, SIZE_MAX, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_from_frames", "from_frames of SIZE_MAX frames");
    CHECK_FAILS(bslz4_chunk2sparse_csc_multi(csc, chunks, lengths, SIZE_MAX, 1.0, &batch, &powder), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_csc_multi", "csc multi of SIZE_MAX chunks");
    /* Within the limit but more than can be had: out of memory, before a chunk is read. */
    CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, chunks, lengths, BSLZ4_MAX_BYTES / sizeof(void*), 1.0, &batch),
                BSLZ4_E_OUT_OF_MEMORY, "bslz4_chunk2sparse_multi",
                "multi of 2^60 chunks: out of memory (std::length_error), not internal");

    CHECK_OK(bslz4_chunk2sparse_set_top_pixels(sparse, 10, sixteen, BSLZ4_MAX_THRESHOLDS), "16 thresholds are taken");
    check_message(CHECK_FAILS(bslz4_chunk2sparse_set_top_pixels(sparse, 10, seventeen, BSLZ4_MAX_THRESHOLDS + 1),
                              BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_set_top_pixels",
                              "17 thresholds refused before they are read"),
                  "BSLZ4_MAX_THRESHOLDS", "the message names the limit");
    CHECK_FAILS(bslz4_chunk2sparse_set_top_pixels(sparse, 10, sixteen, SIZE_MAX - 1), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_set_top_pixels", "SIZE_MAX - 1 thresholds refused, not read past the array");
    CHECK_OK(bslz4_chunk2sparse_set_top_pixels(sparse, BSLZ4_EVERY_PIXEL, NULL, BSLZ4_DEFAULT_THRESHOLDS), "no limit again");
}

/* Buffer sizes (of data and of room) past BSLZ4_MAX_BYTES, in every function that takes one. */
static void check_buffer_sizes(bslz4_chunk2sparse* sparse, const reference_case* c, const unsigned char* chunk,
                               size_t chunk_bytes, const unsigned char* pixels) {
    const size_t bytes = c->ni * c->nj * c->elem_size;
    unsigned char* out = (unsigned char*)malloc(bytes);
    const void* chunks[1];
    size_t lengths[1], decoded = 0, nblocks = 0, chunk_size = 0, bound = 0;
    uint64_t offsets[1] = {0}, lengths64[1], starts[1], decoded64 = 0;
    uint32_t field = 0;
    bslz4_frame frame;
    bslz4_batch batch;
    chunks[0] = chunk;
    lengths[0] = SIZE_MAX;
    lengths64[0] = chunk_bytes;
    check_message(CHECK_FAILS(bslz4_chunk2sparse_call(sparse, chunk, SIZE_MAX, 1.0, &frame), BSLZ4_E_BAD_ARGUMENT,
                              "bslz4_chunk2sparse_call", "a chunk of SIZE_MAX bytes"),
                  "chunk: 18446744073709551615 bytes, more than any buffer holds (BSLZ4_MAX_BYTES",
                  "the message names the chunk, its size and the limit");
    check_message(CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, chunks, lengths, 1, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                              "bslz4_chunk2sparse_multi", "a batch's chunk of SIZE_MAX bytes"),
                  "chunks[0]: 18446744073709551615 bytes", "the message names the entry");
    CHECK_FAILS(bslz4_chunk2sparse_from_buffer(sparse, chunk, SIZE_MAX, offsets, lengths64, 1, 1.0, &batch),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_from_buffer", "a buffer of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_decoded_size(chunk, SIZE_MAX, &decoded), BSLZ4_E_BAD_ARGUMENT, "bslz4_decoded_size",
                "decoded_size of a chunk of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_decode(chunk, SIZE_MAX, c->elem_size, c->codec, out, bytes), BSLZ4_E_BAD_ARGUMENT, "bslz4_decode",
                "decode of a chunk of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_decode(chunk, chunk_bytes, c->elem_size, c->codec, out, SIZE_MAX), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_decode", "decode into SIZE_MAX bytes of room");
    CHECK_OK(bslz4_decode(chunk, chunk_bytes, c->elem_size, c->codec, out, BSLZ4_MAX_BYTES),
             "room of BSLZ4_MAX_BYTES is within the limit (only the decoded bytes are written)");
    CHECK(memcmp(out, pixels, bytes) == 0, "and decodes the frame");
    CHECK_FAILS(bslz4_chunk_header(chunk, SIZE_MAX, c->elem_size, &decoded64, &field), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk_header", "the header of a chunk of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_block_starts(chunk, chunk_bytes, c->elem_size, 0, starts, SIZE_MAX, &nblocks), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_block_starts", "room for SIZE_MAX block starts");
    CHECK_FAILS(bslz4_encode(pixels, SIZE_MAX, c->elem_size, BSLZ4_CODEC_LZ4, 0, 3, out, bytes, &chunk_size),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_encode", "an encode of SIZE_MAX raw bytes");
    CHECK_FAILS(bslz4_encode(pixels, bytes, c->elem_size, BSLZ4_CODEC_LZ4, 0, 3, out, SIZE_MAX, &chunk_size),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_encode", "an encode into SIZE_MAX bytes of room");
    CHECK_FAILS(bslz4_encode(pixels, bytes, c->elem_size, BSLZ4_CODEC_LZ4, SIZE_MAX, 3, out, bytes, &chunk_size),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_encode", "an encode of blocks of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_encode_bound(SIZE_MAX, c->elem_size, BSLZ4_CODEC_LZ4, 0, &bound), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_encode_bound", "the bound of SIZE_MAX raw bytes");
    free(out);
}

/* Frames and matrices too large for 32-bit indices, and matrix arrays past BSLZ4_MAX_BYTES. */
static void check_shapes(const reference_case* c) {
    const size_t n = c->ni * c->nj;
    unsigned char* mask = mask_of_ones(n);
    const float data[2] = {1, 1};
    const int32_t indices[2] = {0, 1}, indptr[3] = {0, 1, 2};
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_matrix *matrix = NULL, *made = NULL;
    bslz4_matrix_input in;
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, SIZE_MAX, SIZE_MAX, 2, c->pixel_type, NULL, &sparse), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_create", "a mask of SIZE_MAX bytes");
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, 0, SIZE_MAX, 2, c->pixel_type, NULL, &sparse), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_create", "a frame of SIZE_MAX x 2 pixels (the product wraps)");
    check_message(CHECK_FAILS(bslz4_chunk2sparse_create(mask, (size_t)65536 * 65536, 65536, 65536, c->pixel_type, NULL,
                                                        &sparse),
                              BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create", "a frame of 2^32 pixels"),
                  "does not fit 32-bit indices", "the message says why");
    CHECK(sparse == NULL, "no handle");

    /* A csc matrix of SIZE_MAX bins wrapped bins + 1 to 0 and overran its row starts. */
    in.layout = BSLZ4_LAYOUT_CSC;
    in.bins = SIZE_MAX;
    in.pixels = 2;
    in.data = data;
    in.data_size = 2;
    in.index_type = BSLZ4_INDEX_I32;
    in.indices = indices;
    in.indices_size = 2;
    in.indptr = indptr;
    in.indptr_size = 3;
    check_message(CHECK_FAILS(bslz4_matrix_normalise(&in, &made), BSLZ4_E_BAD_MATRIX, "bslz4_matrix_normalise",
                              "a matrix of SIZE_MAX bins refused, its row starts not overrun"),
                  "too large for 32-bit indices", "the message says why");
    in.bins = (size_t)1 << 32;
    CHECK_FAILS(bslz4_matrix_normalise(&in, &made), BSLZ4_E_BAD_MATRIX, "bslz4_matrix_normalise", "a matrix of 2^32 bins");
    in.bins = 2;
    in.data_size = SIZE_MAX;
    CHECK_FAILS(bslz4_matrix_normalise(&in, &made), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_normalise",
                "matrix weights of SIZE_MAX entries");
    in.data_size = 2;
    in.indptr_size = SIZE_MAX;
    CHECK_FAILS(bslz4_matrix_normalise(&in, &made), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_normalise",
                "a matrix indptr of SIZE_MAX entries");
    CHECK(made == NULL, "no matrix");
    CHECK_OK(row_sum_matrix(c->ni, c->nj, &matrix), "a matrix");
    CHECK_FAILS(bslz4_matrix_fold_mask(matrix, mask, SIZE_MAX, &made), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_fold_mask",
                "a mask of SIZE_MAX bytes to fold");
    bslz4_matrix_destroy(matrix);
    free(mask);
}

/* Copies into rooms past BSLZ4_MAX_BYTES, and a batch view whose row length wraps. */
static void check_copies(bslz4_chunk2sparse* sparse, bslz4_chunk2sparse_csc* csc, const unsigned char* chunk,
                         size_t chunk_bytes) {
    unsigned char values[64];
    uint32_t indices[16], row[16], col[16];
    size_t npixels[2] = {0, 0};
    bslz4_frame frame;
    bslz4_coo coo;
    bslz4_powder powder;
    bslz4_batch batch;
    CHECK_OK(bslz4_chunk2sparse_call(sparse, chunk, chunk_bytes, 1.0, &frame), "a list");
    CHECK_FAILS(bslz4_frame_copy(&frame, values, SIZE_MAX, indices, 16), BSLZ4_E_BAD_ARGUMENT, "bslz4_frame_copy",
                "a frame into SIZE_MAX bytes of room");
    CHECK_FAILS(bslz4_frame_copy(&frame, values, sizeof values, indices, SIZE_MAX), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_frame_copy", "a frame into room for SIZE_MAX indices");
    CHECK_OK(bslz4_chunk2sparse_coo(sparse, chunk, chunk_bytes, 1.0, &coo), "coordinates");
    CHECK_FAILS(bslz4_coo_copy(&coo, row, col, SIZE_MAX, values, sizeof values), BSLZ4_E_BAD_ARGUMENT, "bslz4_coo_copy",
                "coordinates into room for SIZE_MAX");
    CHECK_OK(bslz4_chunk2sparse_csc_call(csc, chunk, chunk_bytes, 1.0, &frame, &powder), "a powder");
    CHECK_FAILS(bslz4_powder_copy(&powder, values, SIZE_MAX), BSLZ4_E_BAD_ARGUMENT, "bslz4_powder_copy",
                "a powder into SIZE_MAX bytes of room");
    memset(&batch, 0, sizeof batch);
    batch.nframes = 2;
    batch.row_length = SIZE_MAX;
    batch.npixels = npixels;
    batch.values = values;
    batch.indices = indices;
    batch.pixel_type = BSLZ4_U16;
    CHECK_FAILS(bslz4_batch_frame(&batch, 1, &frame), BSLZ4_E_BAD_ARGUMENT, "bslz4_batch_frame",
                "frame 1 of a batch whose rows are SIZE_MAX long (the offset wraps)");
}

void check_cpu_size_limits(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes,
                           const unsigned char* pixels) {
    const size_t n = c->ni * c->nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_chunk2sparse_csc* csc = NULL;
    bslz4_matrix* matrix = NULL;
    check_thread_limit();
    CHECK_OK(row_sum_matrix(c->ni, c->nj, &matrix), "a matrix");
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &sparse), "a chunk2sparse handle");
    CHECK_OK(bslz4_chunk2sparse_csc_create(mask, n, c->ni, c->nj, c->pixel_type, matrix, BSLZ4_ACC_F64, NULL, &csc),
             "a csc handle");
    if (sparse && csc) {
        check_counts(sparse, csc, chunk, chunk_bytes);
        check_buffer_sizes(sparse, c, chunk, chunk_bytes, pixels);
        check_copies(sparse, csc, chunk, chunk_bytes);
    }
    check_shapes(c);
    bslz4_chunk2sparse_csc_destroy(csc);
    bslz4_chunk2sparse_destroy(sparse);
    bslz4_matrix_destroy(matrix);
    free(mask);
}
