/* The C API from C99 on the CPU. `test_c_api shared` decodes and lists every case of
 * ../shared/testdata ($BSLZ4_TESTDATA; exit 77 with the reason when it is not there);
 * `test_c_api local` does the same for tests/data ($BSLZ4_LOCAL_TESTDATA), then powders, top
 * pixels, bad frames in batches, and every error path (truncated chunks, outputs too small,
 * NULL pointers, wrong sizes and values, sizes and thread counts past the limits, handles of
 * the wrong class): each must give its status and a message naming the function. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"
#include "error_paths.h"
#include "frame_lists.h"
#include "handle_classes.h"
#include "reference_table.h"
#include "row_sum_matrix.h"
#include "sha256.h"
#include "size_limits.h"

/* Is pixel i of `pixels` (of type t) above cut, compared exactly (NaN never)? */
static int above(const void* pixels, int t, size_t i, double cut) {
    const long double c = cut;
    switch (t) {
        case BSLZ4_U8: return ((const uint8_t*)pixels)[i] > c;
        case BSLZ4_U16: return ((const uint16_t*)pixels)[i] > c;
        case BSLZ4_U32: return ((const uint32_t*)pixels)[i] > c;
        case BSLZ4_U64: return (long double)((const uint64_t*)pixels)[i] > c;
        case BSLZ4_I8: return ((const int8_t*)pixels)[i] > c;
        case BSLZ4_I16: return ((const int16_t*)pixels)[i] > c;
        case BSLZ4_I32: return ((const int32_t*)pixels)[i] > c;
        case BSLZ4_I64: return (long double)((const int64_t*)pixels)[i] > c;
        case BSLZ4_F32: return ((const float*)pixels)[i] > c;
        default: return ((const double*)pixels)[i] > c;
    }
}

/* A list (values, indices) equal to a dense threshold of `pixels` at cut. */
static int list_is_threshold(const bslz4_frame* f, const unsigned char* pixels, size_t n, int t, size_t elem, double cut) {
    size_t i, k = 0;
    for (i = 0; i < n; ++i)
        if (above(pixels, t, i, cut)) {
            if (k >= f->npixels || f->indices[k] != i ||
                memcmp((const unsigned char*)f->values + k * elem, pixels + i * elem, elem) != 0)
                return 0;
            ++k;
        }
    return k == f->npixels;
}

/* Everything a reference case can be checked for through the C API. */
static void check_case(const char* dir, const reference_case* c) {
    const size_t n = c->ni * c->nj, bytes = n * c->elem_size;
    size_t chunk_bytes = 0, raw_bytes = 0, decoded = 0, nblocks = 0, k, bound = 0, encoded_bytes = 0;
    unsigned char *chunk = read_case_file(dir, c->name, "bslz4", &chunk_bytes), *raw = NULL, *pixels, *mask, *buffer;
    unsigned char *encoded, *again;
    uint64_t decoded64 = 0, *starts, offsets[2], lengths[2];
    uint32_t block_field = 0, *first_indices;
    char hex[65];
    bslz4_options options;
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_frame frame, first, other;
    bslz4_batch batch;
    bslz4_coo coo;
    const void* two[2];
    size_t two_bytes[2];
    void* first_values;
    int ok = 1;

    if (!chunk) {
        CHECK(0, c->name);
        return;
    }
    CHECK(chunk_bytes == c->chunk_bytes, c->name);
    CHECK_OK(bslz4_decoded_size(chunk, chunk_bytes, &decoded), c->name);
    CHECK(decoded == bytes, c->name);
    CHECK_OK(bslz4_chunk_header(chunk, chunk_bytes, c->elem_size, &decoded64, &block_field), c->name);
    CHECK(decoded64 == bytes && block_field == c->block_bytes, c->name);

    /* The blocks: counted first (no room: BSLZ4_E_OUTPUT_TOO_SMALL with the count), then listed. */
    k = 0;
    if (bslz4_block_starts(chunk, chunk_bytes, c->elem_size, bytes, NULL, 0, &nblocks) != BSLZ4_OK)
        CHECK_FAILS(BSLZ4_E_OUTPUT_TOO_SMALL, BSLZ4_E_OUTPUT_TOO_SMALL, "bslz4_block_starts", c->name);
    starts = (uint64_t*)malloc((nblocks ? nblocks : 1) * sizeof *starts);
    CHECK_OK(bslz4_block_starts(chunk, chunk_bytes, c->elem_size, bytes, starts, nblocks, &k), c->name);
    CHECK(k == nblocks && (nblocks == 0 || starts[0] == 12), c->name);
    free(starts);

    /* Decoded pixels: the recorded sha256, and the .raw file where there is one. */
    pixels = (unsigned char*)malloc(bytes ? bytes : 1);
    CHECK_OK(bslz4_decode(chunk, chunk_bytes, c->elem_size, c->codec, pixels, bytes), c->name);
    sha256_hex(pixels, bytes, hex);
    CHECK(strcmp(hex, c->sha256) == 0, c->name);
    if (c->has_raw) {
        raw = read_case_file(dir, c->name, "raw", &raw_bytes);
        CHECK(raw && raw_bytes == bytes && memcmp(raw, pixels, bytes) == 0, c->name);
        free(raw);
    }

    /* Encoded again and decoded: the same pixels. */
    CHECK_OK(bslz4_encode_bound(bytes, c->elem_size, c->codec, c->block_bytes, &bound), c->name);
    encoded = (unsigned char*)malloc(bound);
    again = (unsigned char*)malloc(bytes ? bytes : 1);
    CHECK_OK(bslz4_encode(pixels, bytes, c->elem_size, c->codec, c->block_bytes, 3, encoded, bound, &encoded_bytes),
             c->name);
    CHECK_OK(bslz4_decode(encoded, encoded_bytes, c->elem_size, c->codec, again, bytes), c->name);
    CHECK(memcmp(again, pixels, bytes) == 0, c->name);
    free(encoded);
    free(again);

    /* Lists: one frame, a batch of two, the two from one buffer, and coordinates. */
    mask = mask_of_ones(n);
    CHECK_OK(bslz4_options_init(&options), c->name);
    options.threads = 1;
    options.codec = c->codec;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, &options, &sparse), c->name);
    if (!sparse) {
        free(mask);
        free(pixels);
        free(chunk);
        return;
    }
    CHECK_OK(bslz4_chunk2sparse_call(sparse, chunk, chunk_bytes, 1.0, &frame), c->name);
    CHECK(frame.pixel_type == c->pixel_type, c->name);
    CHECK(list_is_threshold(&frame, pixels, n, c->pixel_type, c->elem_size, 1.0), c->name);
    /* The view is the handle's until its next call: keep a copy in our own buffers. */
    first_values = malloc(frame.npixels * c->elem_size + 1);
    first_indices = (uint32_t*)malloc(frame.npixels * sizeof(uint32_t) + 1);
    CHECK_OK(bslz4_frame_copy(&frame, first_values, frame.npixels * c->elem_size, first_indices, frame.npixels),
             c->name);
    first = frame;
    first.values = first_values;
    first.indices = first_indices;

    two[0] = two[1] = chunk;
    two_bytes[0] = two_bytes[1] = chunk_bytes;
    CHECK_OK(bslz4_chunk2sparse_multi(sparse, two, two_bytes, 2, 1.0, &batch), c->name);
    CHECK(batch.nframes == 2 && batch.nbad == 0 && batch.status[0] == BSLZ4_OK && batch.status[1] == BSLZ4_OK, c->name);
    for (k = 0; k < 2; ++k) {
        CHECK_OK(bslz4_batch_frame(&batch, k, &other), c->name);
        ok = ok && same_list(&first, &other, c->elem_size);
    }
    CHECK(ok, c->name);

    buffer = (unsigned char*)malloc(2 * chunk_bytes + 7);
    memcpy(buffer + 3, chunk, chunk_bytes);
    memcpy(buffer + 3 + chunk_bytes + 4, chunk, chunk_bytes);
    offsets[0] = 3;
    offsets[1] = 3 + chunk_bytes + 4;
    lengths[0] = lengths[1] = chunk_bytes;
    CHECK_OK(bslz4_chunk2sparse_from_buffer(sparse, buffer, 2 * chunk_bytes + 7, offsets, lengths, 2, 1.0, &batch),
             c->name);
    CHECK_OK(bslz4_batch_frame(&batch, 1, &other), c->name);
    CHECK(batch.nframes == 2 && same_list(&first, &other, c->elem_size), c->name);
    free(buffer);

    CHECK_OK(bslz4_chunk2sparse_coo(sparse, chunk, chunk_bytes, 1.0, &coo), c->name);
    ok = coo.npixels == first.npixels;
    for (k = 0; ok && k < coo.npixels; ++k)
        ok = coo.row[k] == first_indices[k] / c->nj && coo.col[k] == first_indices[k] % c->nj &&
             memcmp((const unsigned char*)coo.values + k * c->elem_size,
                    (const unsigned char*)first_values + k * c->elem_size, c->elem_size) == 0;
    CHECK(ok, c->name);

    /* Dense frames give the same list as the chunk. */
    two[0] = pixels;
    two_bytes[0] = bytes;
    CHECK_OK(bslz4_chunk2sparse_from_frames(sparse, two, two_bytes, 1, 1.0, &batch), c->name);
    CHECK_OK(bslz4_batch_frame(&batch, 0, &other), c->name);
    CHECK(same_list(&first, &other, c->elem_size), c->name);

    bslz4_chunk2sparse_destroy(sparse);
    free(first_values);
    free(first_indices);
    free(mask);
    free(pixels);
    free(chunk);
}

static size_t check_table(const char* dir, int skip_when_missing) {
    reference_case* cases = NULL;
    char why[4300];
    const size_t n = read_reference_table(dir, &cases, why, sizeof why);
    size_t k;
    if (n == 0) {
        if (skip_when_missing) return 0;
        CHECK(0, why);
        return 0;
    }
    for (k = 0; k < n; ++k) check_case(dir, &cases[k]);
    free(cases);
    return n;
}

/* A test case of the local table by name (read into *chunk), for the checks below: loaded_case.h. */

static int load(const char* dir, const char* name, loaded* out) {
    reference_case* cases = NULL;
    char why[4300];
    const size_t n = read_reference_table(dir, &cases, why, sizeof why);
    size_t k;
    memset(out, 0, sizeof *out);
    for (k = 0; k < n; ++k)
        if (strcmp(cases[k].name, name) == 0) out->c = cases[k];
    free(cases);
    if (!out->c.elem_size) {
        fprintf(stderr, "no case %s in %s\n", name, dir);
        return 0;
    }
    out->chunk = read_case_file(dir, name, "bslz4", &out->chunk_bytes);
    out->pixels = (unsigned char*)malloc(out->c.ni * out->c.nj * out->c.elem_size);
    return out->chunk && out->pixels &&
           bslz4_decode(out->chunk, out->chunk_bytes, out->c.elem_size, out->c.codec, out->pixels,
                        out->c.ni * out->c.nj * out->c.elem_size) == BSLZ4_OK;
}

static void unload(loaded* l) {
    free(l->chunk);
    free(l->pixels);
}

static double pixel_as_double(const loaded* l, size_t i) {
    switch (l->c.pixel_type) {
        case BSLZ4_U16: return ((const uint16_t*)l->pixels)[i];
        case BSLZ4_U32: return ((const uint32_t*)l->pixels)[i];
        default: return ((const uint8_t*)l->pixels)[i];
    }
}

/* Powders of a matrix summing each row of the frame (pixel 0 masked), from every call of the
 * CSC class, against sums done here: f64 exact (integer sums), f32 to 1e-6, i64 exact. */
static void check_powders(const loaded* l) {
    const size_t ni = l->c.ni, nj = l->c.nj, n = ni * nj;
    double* expected = (double*)calloc(ni, sizeof *expected);
    unsigned char* mask = mask_of_ones(n);
    /* A matrix refused: indptr ends past its 2 weights. */
    const float bad_data[2] = {1, 1};
    const int32_t bad_indices[2] = {0, 1}, bad_indptr[3] = {0, 1, 3};
    bslz4_matrix_input in;
    bslz4_matrix *m = NULL, *folded = NULL, *fixed = NULL;
    bslz4_matrix_view view;
    bslz4_chunk2sparse_csc* csc = NULL;
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    bslz4_powder powder;
    const void* chunks[3];
    size_t chunk_bytes[3], i, b, f;
    int acc, ok;
    double v;
    for (i = 1; i < n; ++i) expected[i / nj] += pixel_as_double(l, i);
    mask[0] = 0;
    CHECK_OK(row_sum_matrix(ni, nj, &m), "normalise a row-sum matrix");
    CHECK_OK(bslz4_matrix_view_of(m, &view), "the matrix's view");
    CHECK(view.bins == ni && view.pixels == n && view.nnz == n && view.fixed_weight == NULL, "canonical form");
    CHECK_OK(bslz4_matrix_fold_mask(m, mask, n, &folded), "fold the mask");
    CHECK_OK(bslz4_matrix_view_of(folded, &view), "the folded matrix's view");
    CHECK(view.nnz == n - 1 && view.row_start[1] == nj - 1, "the masked pixel's weight is dropped");
    bslz4_matrix_destroy(folded);
    folded = NULL;
    CHECK_OK(bslz4_matrix_fixed_point(m, l->c.pixel_type, 24, &fixed), "fixed point");
    CHECK_OK(bslz4_matrix_view_of(fixed, &view), "the fixed-point view");
    CHECK(view.fixed_weight != NULL && view.powder_scale > 0, "fixed weights and their scale");

    for (acc = BSLZ4_ACC_F64; acc <= BSLZ4_ACC_I64; ++acc) {
        const double tolerance = acc == BSLZ4_ACC_F32 ? 1e-4 : 0; /* float sums of ~1,000 pixels */
        CHECK_OK(bslz4_chunk2sparse_csc_create(mask, n, ni, nj, l->c.pixel_type, acc == BSLZ4_ACC_I64 ? fixed : m, acc,
                                               NULL, &csc),
                 "a CSC handle");
        if (!csc) continue;
        {
            size_t info_bins = 0;
            int info_acc = -1;
            CHECK_OK(bslz4_chunk2sparse_csc_info(csc, &info_bins, &info_acc), "csc info");
            CHECK(info_bins == ni && info_acc == acc, "the handle's bins and accumulator");
        }
        CHECK_OK(bslz4_chunk2sparse_csc_call(csc, l->chunk, l->chunk_bytes, 1.0, &frame, &powder), "csc call");
        ok = powder.nframes == 1 && powder.bins == ni && powder.acc == acc;
        for (b = 0; ok && b < ni; ++b) {
            ok = bslz4_powder_value(&powder, 0, b, &v) == BSLZ4_OK &&
                 (v - expected[b] <= tolerance * expected[b] && expected[b] - v <= tolerance * expected[b]);
        }
        CHECK(ok, acc == BSLZ4_ACC_F64 ? "f64 powder" : acc == BSLZ4_ACC_F32 ? "f32 powder" : "i64 powder");

        chunks[0] = chunks[1] = chunks[2] = l->chunk;
        chunk_bytes[0] = chunk_bytes[1] = chunk_bytes[2] = l->chunk_bytes;
        CHECK_OK(bslz4_chunk2sparse_csc_multi(csc, chunks, chunk_bytes, 3, 1.0, &batch, &powder), "csc multi");
        ok = batch.nframes == 3 && powder.nframes == 3 && powder.bins == ni;
        for (f = 0; ok && f < 3; ++f)
            for (b = 0; ok && b < ni; ++b)
                ok = bslz4_powder_value(&powder, f, b, &v) == BSLZ4_OK &&
                     (v - expected[b] <= tolerance * expected[b] && expected[b] - v <= tolerance * expected[b]);
        CHECK(ok, "every frame of a batch has the powder");
        {
            uint64_t offsets[1] = {0}, lengths[1];
            lengths[0] = l->chunk_bytes;
            CHECK_OK(bslz4_chunk2sparse_csc_from_buffer(csc, l->chunk, l->chunk_bytes, offsets, lengths, 1, 1.0, &batch,
                                                        &powder),
                     "csc from_buffer");
            CHECK(bslz4_powder_value(&powder, 0, 1, &v) == BSLZ4_OK && v - expected[1] <= tolerance * expected[1] &&
                      expected[1] - v <= tolerance * expected[1],
                  "from_buffer's powder");
        }
        CHECK_OK(bslz4_chunk2sparse_csc_coo(csc, l->chunk, l->chunk_bytes, 1.0, &coo, &powder), "csc coo");
        CHECK(powder.nframes == 1 && bslz4_powder_value(&powder, 0, ni - 1, &v) == BSLZ4_OK &&
                  v - expected[ni - 1] <= tolerance * expected[ni - 1] && expected[ni - 1] - v <= tolerance * expected[ni - 1],
              "coo's powder");
        chunks[0] = l->pixels;
        chunk_bytes[0] = n * l->c.elem_size;
        CHECK_OK(bslz4_chunk2sparse_csc_from_frames(csc, chunks, chunk_bytes, 1, 1.0, &batch, &powder), "csc from_frames");
        CHECK(bslz4_powder_value(&powder, 0, 0, &v) == BSLZ4_OK && v - expected[0] <= tolerance * expected[0] &&
                  expected[0] - v <= tolerance * expected[0],
              "from_frames' powder");
        {
            /* Into the caller's buffer: too small is an error, the right size a copy. */
            const size_t need = ni * (acc == BSLZ4_ACC_F32 ? 4 : 8);
            unsigned char* out = (unsigned char*)malloc(need);
            CHECK_FAILS(bslz4_powder_copy(&powder, out, need - 1), BSLZ4_E_OUTPUT_TOO_SMALL, "bslz4_powder_copy",
                        "a powder into a buffer one byte short");
            CHECK_OK(bslz4_powder_copy(&powder, out, need), "a powder into the caller's buffer");
            CHECK(memcmp(out, powder.data, need) == 0, "the copied powder");
            free(out);
        }
        bslz4_chunk2sparse_csc_destroy(csc);
        csc = NULL;
    }
    CHECK_FAILS(bslz4_chunk2sparse_csc_create(mask, n, ni, nj, l->c.pixel_type, m, 7, NULL, &csc), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_csc_create", "an accumulator out of range");
    CHECK(csc == NULL, "no handle after a failed create");
    CHECK_FAILS(bslz4_chunk2sparse_csc_create(mask, n, ni, nj, l->c.pixel_type, NULL, BSLZ4_ACC_F64, NULL, &csc),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_csc_create", "a NULL matrix");
    CHECK_FAILS(bslz4_chunk2sparse_csc_create(mask, n, ni, nj, l->c.pixel_type, m, BSLZ4_ACC_F64, NULL, &csc) == BSLZ4_OK
                    ? bslz4_chunk2sparse_csc_call(csc, l->chunk, l->chunk_bytes, 1.0, &frame, NULL)
                    : -1,
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_csc_call", "a NULL powder");
    bslz4_chunk2sparse_csc_destroy(csc);

    /* Refused matrices: BSLZ4_E_BAD_MATRIX with the library's reason. */
    in.layout = BSLZ4_LAYOUT_CSR;
    in.bins = 2;
    in.pixels = 2;
    in.data = bad_data;
    in.data_size = 2;
    in.index_type = BSLZ4_INDEX_I32;
    in.indices = bad_indices;
    in.indices_size = 2;
    in.indptr = bad_indptr;
    in.indptr_size = 3;
    CHECK_FAILS(bslz4_matrix_normalise(&in, &folded), BSLZ4_E_BAD_MATRIX, "bslz4_matrix_normalise",
                "indptr ending past the weights");
    in.layout = 5;
    CHECK_FAILS(bslz4_matrix_normalise(&in, &folded), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_normalise", "a layout out of range");
    CHECK_FAILS(bslz4_matrix_fold_mask(m, mask, n - 1, &folded), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_fold_mask",
                "a mask of the wrong size");
    CHECK_FAILS(bslz4_matrix_fixed_point(m, BSLZ4_F32, 24, &folded), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_fixed_point",
                "a fixed-point matrix for float pixels");
    CHECK_FAILS(bslz4_matrix_view_of(NULL, &view), BSLZ4_E_BAD_ARGUMENT, "bslz4_matrix_view_of", "a NULL matrix");

    bslz4_matrix_destroy(m);
    bslz4_matrix_destroy(fixed);
    bslz4_matrix_destroy(NULL);
    free(expected);
    free(mask);
}

/* Top pixels: the first howmany of the full list (no thresholds), and bad thresholds refused. */
static void check_top_pixels(const loaded* l) {
    const size_t n = l->c.ni * l->c.nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_frame all, top;
    uint32_t* indices;
    const double unsorted[2] = {10, 5};
    size_t howmany;
    size_t ni = 0, nj = 0;
    int pixel_type = -1;
    unsigned threads = 0;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &sparse), "a handle");
    if (!sparse) return;
    CHECK_OK(bslz4_chunk2sparse_info(sparse, &ni, &nj, &pixel_type, &threads), "info");
    CHECK(ni == l->c.ni && nj == l->c.nj && pixel_type == l->c.pixel_type && threads >= 1, "the handle's shape, type, threads");
    CHECK_OK(bslz4_chunk2sparse_info(sparse, NULL, NULL, NULL, NULL), "info with no outputs wanted");
    CHECK_OK(bslz4_chunk2sparse_call(sparse, l->chunk, l->chunk_bytes, 0.0, &all), "every pixel above 0");
    indices = (uint32_t*)malloc(all.npixels * sizeof *indices + 1);
    memcpy(indices, all.indices, all.npixels * sizeof *indices);
    howmany = all.npixels / 2;
    CHECK(howmany > 0, "the case has pixels above 0");
    CHECK_OK(bslz4_chunk2sparse_set_top_pixels(sparse, howmany, NULL, 0), "top pixels, no thresholds");
    CHECK_OK(bslz4_chunk2sparse_call(sparse, l->chunk, l->chunk_bytes, 0.0, &top), "listed with top pixels");
    CHECK(top.npixels == howmany && memcmp(top.indices, indices, howmany * sizeof *indices) == 0,
          "the first howmany pixels in pixel order");
    CHECK(top.last_nabove == all.npixels && top.last_cut == 0.0, "last_cut and last_nabove");
    CHECK_FAILS(bslz4_chunk2sparse_set_top_pixels(sparse, howmany, unsorted, 2), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_set_top_pixels", "thresholds not in increasing order");
    CHECK_FAILS(bslz4_chunk2sparse_set_top_pixels(sparse, howmany, NULL, 3), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_set_top_pixels", "NULL thresholds with a count");
    CHECK_OK(bslz4_chunk2sparse_set_top_pixels(sparse, BSLZ4_EVERY_PIXEL, NULL, BSLZ4_DEFAULT_THRESHOLDS), "no limit");
    CHECK_OK(bslz4_chunk2sparse_call(sparse, l->chunk, l->chunk_bytes, 0.0, &top), "listed without the limit");
    CHECK(top.npixels == all.npixels, "every pixel again");
    bslz4_chunk2sparse_destroy(sparse);
    free(indices);
    free(mask);
}

/* Bad frames in batches: reported (status, message) with BSLZ4_ON_ERROR_REPORT, the call's
 * failure naming the frame without. */
static void check_bad_frames(const loaded* l) {
    const size_t n = l->c.ni * l->c.nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_options options;
    bslz4_chunk2sparse *report = NULL, *stop = NULL;
    bslz4_batch batch;
    const void* chunks[3];
    size_t bytes[3];
    chunks[0] = chunks[1] = chunks[2] = l->chunk;
    bytes[0] = bytes[2] = l->chunk_bytes;
    bytes[1] = 8; /* frame 1 stops inside its header */
    bslz4_options_init(&options);
    options.on_error = BSLZ4_ON_ERROR_REPORT;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, &options, &report), "report");
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &stop), "stop");
    if (report && stop) {
        CHECK_OK(bslz4_chunk2sparse_multi(report, chunks, bytes, 3, 1.0, &batch), "a batch with a bad frame, reported");
        CHECK(batch.nframes == 3 && batch.status[0] == BSLZ4_OK && batch.status[1] == BSLZ4_E_TRUNCATED_CHUNK &&
                  batch.status[2] == BSLZ4_OK && batch.npixels[1] == 0,
              "the bad frame's status, the others ok");
        CHECK(batch.nbad == 1 && batch.bad[0].frame == 1 && batch.bad[0].status == BSLZ4_E_TRUNCATED_CHUNK &&
                  strncmp(batch.bad[0].message, "frame 1: ", 9) == 0,
              "the bad frame's message");
        CHECK(batch.npixels[0] == batch.npixels[2], "the good frames listed");
        if (CHECK_FAILS(bslz4_chunk2sparse_multi(stop, chunks, bytes, 3, 1.0, &batch), BSLZ4_E_TRUNCATED_CHUNK,
                        "bslz4_chunk2sparse_multi", "a batch with a bad frame, stopped"))
            CHECK(strstr(bslz4_last_error(), "frame 1: ") != NULL, "the message names the frame");
    }
    bslz4_chunk2sparse_destroy(report);
    bslz4_chunk2sparse_destroy(stop);
    free(mask);
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "local";
    const char* dir;
    size_t cases;
    loaded eiger, top;
    if (strcmp(bslz4_version(), BSLZ4_VERSION_STRING) != 0) {
        fprintf(stderr, "FAILED: the library is %s, the header %s\n", bslz4_version(), BSLZ4_VERSION_STRING);
        return 1;
    }
    if (strcmp(mode, "shared") == 0) {
        dir = getenv("BSLZ4_TESTDATA");
        if (!dir) dir = "../shared/testdata";
        cases = check_table(dir, 1);
        if (cases == 0) {
            printf("SKIP: no shared reference data at %s (a clone without ../shared); tests/data is checked instead\n", dir);
            return 77;
        }
        CHECK(cases >= 280, "every shared case");
    } else {
        dir = getenv("BSLZ4_LOCAL_TESTDATA");
        if (!dir) dir = "tests/data";
        cases = check_table(dir, 0);
        if (load(dir, "u16_eiger_514x1030", &eiger)) {
            check_powders(&eiger);
            check_errors(&eiger);
            check_cpu_size_limits(&eiger.c, eiger.chunk, eiger.chunk_bytes, eiger.pixels);
            check_cpu_handle_classes(&eiger.c, eiger.chunk, eiger.chunk_bytes);
            check_bad_frames(&eiger);
            check_one_call_at_a_time(&eiger);
        } else {
            CHECK(0, "the local case u16_eiger_514x1030");
        }
        unload(&eiger);
        if (load(dir, "u32_eiger_2x12", &top)) {
            check_powders(&top);
            check_top_pixels(&top);
        } else {
            CHECK(0, "the local case u32_eiger_2x12");
        }
        unload(&top);
    }
    printf("%s: %zu cases, %d checks, %d failed\n", mode, cases, c_check_count, c_check_failures);
    return c_check_failures ? 1 : 0;
}
