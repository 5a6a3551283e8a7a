/* The C API's GPU functions from C99, against its CPU functions: every reference case the GPU
 * decodes ($BSLZ4_TESTDATA, else $BSLZ4_LOCAL_TESTDATA), lists bit for bit (call, multi,
 * from_buffer, coo, from_device), dense frames (decompress and decompress_from_device), powders
 * (f64, i64 bit for bit; call, multi, from_device, integrate, integrate_from_device), top pixels,
 * bad frames and errors with the CPU's status and message, handles of the wrong class and sizes
 * past the limits refused. Without a GPU, or in a library built without the GPU runtime, the
 * GPU functions must still answer with a status and a message (the class and limit checks
 * that need no device included); then the program exits 77 (skipped), or 1 with
 * BSLZ4_REQUIRE_GPU=1. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "bslz4/cuda/dlpack.h"
#include "c_check.h"
#include "frame_lists.h"
#include "gpu_handle_classes.h"
#include "gpu_size_limits.h"
#include "reference_table.h"
#include "row_sum_matrix.h"

/* The message of the last failure without its function's name (CPU and GPU calls differ there). */
static const char* reason_of_last_error(void) {
    const char* m = bslz4_last_error();
    const char* colon = strstr(m, ": ");
    return colon ? colon + 2 : m;
}

static int gpu_decodes(const reference_case* c) {
    return c->codec == BSLZ4_CODEC_LZ4 && c->pixel_type != BSLZ4_U64 && c->pixel_type != BSLZ4_I64 &&
           c->pixel_type != BSLZ4_F64;
}

static int device_array_is(const bslz4_device_array* a, const void* expected, size_t bytes) {
    unsigned char* host = (unsigned char*)malloc(bytes ? bytes : 1);
    size_t got = 0;
    int same = host && bslz4_device_array_bytes(a, &got) == BSLZ4_OK && got == bytes &&
               bslz4_device_array_copy_to_host(a, host, bytes) == BSLZ4_OK && memcmp(host, expected, bytes) == 0;
    free(host);
    return same;
}

/* A DLPack tensor of a frames array (1, ni, nj) on the array's memory, which outlives the array
 * until the tensor's deleter runs. Destroys the array. */
static int check_dlpack(bslz4_device_array* frames, size_t ni, size_t nj) {
    void* exported = NULL;
    uint64_t dptr = 0;
    int ok = bslz4_device_array_to_dlpack(frames, &exported) == BSLZ4_OK && exported &&
             bslz4_device_array_pointer(frames, &dptr) == BSLZ4_OK;
    DLManagedTensorVersioned* t = (DLManagedTensorVersioned*)exported;
    bslz4_device_array_destroy(frames);
    if (!ok) return 0;
    ok = t->version.major == 1 && t->dl_tensor.ndim == 3 && t->dl_tensor.device.device_type == kDLCUDA &&
         t->dl_tensor.shape[0] == 1 && (size_t)t->dl_tensor.shape[1] == ni && (size_t)t->dl_tensor.shape[2] == nj &&
         (uint64_t)(uintptr_t)t->dl_tensor.data == dptr && t->deleter != NULL;
    if (t->deleter) t->deleter(t);
    return ok;
}

/* One case: returns 1 when the GPU decoded it (0 for a block size it refuses, as it must). */
static int check_case(const char* dir, const reference_case* c) {
    const size_t n = c->ni * c->nj, bytes = n * c->elem_size;
    size_t chunk_bytes = 0, k, shape[3], ndim = 0;
    unsigned char* chunk = read_case_file(dir, c->name, "bslz4", &chunk_bytes);
    unsigned char* pixels = (unsigned char*)malloc(bytes ? bytes : 1);
    unsigned char* mask = mask_of_ones(n);
    unsigned char* padded = (unsigned char*)malloc(2 * chunk_bytes + 16);
    bslz4_options options;
    bslz4_chunk2sparse* cpu = NULL;
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_frame want, got;
    bslz4_batch want_batch, got_batch;
    bslz4_coo want_coo, got_coo;
    bslz4_device_array *frames = NULL, *device_chunks = NULL;
    const void* chunks[3];
    size_t lengths3[3];
    uint64_t offsets[2], lengths[2], dptr = 0;
    void* keep_values = NULL;
    uint32_t* keep_indices = NULL;
    const char* dtype = "";
    int status, decoded = 1;

    CHECK(chunk && pixels && mask && padded, c->name);
    if (!chunk || !pixels || !mask || !padded) goto done;
    CHECK_OK(bslz4_decode(chunk, chunk_bytes, c->elem_size, c->codec, pixels, bytes), c->name);
    bslz4_options_init(&options);
    options.threads = 1;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, &options, &cpu), c->name);
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &gpu), c->name);
    if (!cpu || !gpu) goto done;

    CHECK_OK(bslz4_chunk2sparse_call(cpu, chunk, chunk_bytes, 1.0, &want), c->name);
    status = bslz4_gpu_chunk2sparse_call(gpu, chunk, chunk_bytes, 1.0, &got);
    if (status != BSLZ4_OK) {
        /* Only chunks of other than 8 kB blocks may be refused, and as a bad argument. */
        CHECK(status == BSLZ4_E_BAD_ARGUMENT && c->block_bytes != 8192, c->name);
        decoded = 0;
        goto done;
    }
    CHECK(same_list(&want, &got, c->elem_size), c->name);
    keep_values = malloc(want.npixels * c->elem_size + 1);
    keep_indices = (uint32_t*)malloc(want.npixels * sizeof *keep_indices + 1);
    CHECK_OK(bslz4_frame_copy(&want, keep_values, want.npixels * c->elem_size, keep_indices, want.npixels), c->name);
    want.values = keep_values;
    want.indices = keep_indices;

    chunks[0] = chunks[1] = chunks[2] = chunk;
    lengths3[0] = lengths3[1] = lengths3[2] = chunk_bytes;
    CHECK_OK(bslz4_chunk2sparse_multi(cpu, chunks, lengths3, 3, 1.0, &want_batch), c->name);
    CHECK_OK(bslz4_gpu_chunk2sparse_multi(gpu, chunks, lengths3, 3, 1.0, &got_batch), c->name);
    CHECK(same_batch(&want_batch, &got_batch, c->elem_size), c->name);

    memcpy(padded + 5, chunk, chunk_bytes);
    memcpy(padded + 5 + chunk_bytes + 3, chunk, chunk_bytes);
    offsets[0] = 5;
    offsets[1] = 5 + chunk_bytes + 3;
    lengths[0] = lengths[1] = chunk_bytes;
    CHECK_OK(bslz4_gpu_chunk2sparse_from_buffer(gpu, padded, 2 * chunk_bytes + 16, offsets, lengths, 2, 1.0, &got_batch),
             c->name);
    CHECK_OK(bslz4_batch_frame(&got_batch, 1, &got), c->name);
    CHECK(got_batch.nframes == 2 && same_list(&want, &got, c->elem_size), c->name);

    /* The same buffer in device memory. */
    CHECK_OK(bslz4_gpu_device_buffer_create(padded, 2 * chunk_bytes + 16, 0, &device_chunks), c->name);
    CHECK_OK(bslz4_device_array_pointer(device_chunks, &dptr), c->name);
    CHECK_OK(bslz4_gpu_chunk2sparse_from_device(gpu, dptr, offsets, lengths, 2, 1.0, &got_batch), c->name);
    for (k = 0; k < 2; ++k) {
        CHECK_OK(bslz4_batch_frame(&got_batch, k, &got), c->name);
        CHECK(same_list(&want, &got, c->elem_size), c->name);
    }

    CHECK_OK(bslz4_chunk2sparse_coo(cpu, chunk, chunk_bytes, 1.0, &want_coo), c->name);
    CHECK_OK(bslz4_gpu_chunk2sparse_coo(gpu, chunk, chunk_bytes, 1.0, &got_coo), c->name);
    CHECK(want_coo.npixels == got_coo.npixels &&
              memcmp(want_coo.row, got_coo.row, got_coo.npixels * sizeof(uint32_t)) == 0 &&
              memcmp(want_coo.col, got_coo.col, got_coo.npixels * sizeof(uint32_t)) == 0 &&
              memcmp(want_coo.values, got_coo.values, got_coo.npixels * c->elem_size) == 0,
          c->name);

    /* Dense frames left on the GPU: the CPU decoder's pixels. */
    CHECK_OK(bslz4_gpu_chunk2sparse_decompress(gpu, chunks, lengths3, 1, &frames), c->name);
    CHECK_OK(bslz4_device_array_shape(frames, shape, 3, &ndim), c->name);
    CHECK_OK(bslz4_device_array_dtype(frames, &dtype), c->name);
    CHECK(ndim == 3 && shape[0] == 1 && shape[1] == c->ni && shape[2] == c->nj && pixel_type_named(dtype) == c->pixel_type,
          c->name);
    CHECK(device_array_is(frames, pixels, bytes), c->name);
    CHECK(check_dlpack(frames, c->ni, c->nj), c->name);
    frames = NULL; /* check_dlpack destroyed it before the tensor */
    CHECK_OK(bslz4_gpu_chunk2sparse_decompress_from_device(gpu, dptr, offsets + 1, lengths + 1, 1, &frames), c->name);
    CHECK(device_array_is(frames, pixels, bytes), c->name);

done:
    bslz4_device_array_destroy(frames);
    bslz4_device_array_destroy(device_chunks);
    bslz4_gpu_chunk2sparse_destroy(gpu);
    bslz4_chunk2sparse_destroy(cpu);
    free(keep_values);
    free(keep_indices);
    free(padded);
    free(mask);
    free(pixels);
    free(chunk);
    return decoded;
}

/* The case called name and its chunk (malloc'ed; NULL when missing). */
static unsigned char* load_named(const char* dir, const char* name, reference_case* c, size_t* chunk_bytes) {
    reference_case* cases = NULL;
    char why[4300];
    const size_t ncases = read_reference_table(dir, &cases, why, sizeof why);
    size_t k;
    memset(c, 0, sizeof *c);
    for (k = 0; k < ncases; ++k)
        if (strcmp(cases[k].name, name) == 0) *c = cases[k];
    free(cases);
    CHECK(c->elem_size != 0, name);
    return c->elem_size ? read_case_file(dir, name, "bslz4", chunk_bytes) : NULL;
}

/* Powders of the row-sum matrix: f64 to 1e-12 of the CPU's, i64 bit for bit, from every call. */
static void check_powders(const char* dir, const char* name) {
    reference_case c;
    size_t k, chunk_bytes = 0, n, bins, powder_bytes, last_host = 0, cap = 0;
    unsigned char *chunk = load_named(dir, name, &c, &chunk_bytes), *mask = NULL, *host = NULL, *cpu_powder = NULL;
    bslz4_matrix *m = NULL, *fixed = NULL;
    const void* chunks[2];
    size_t lengths2[2];
    uint64_t offsets[2], lengths[2], dptr = 0;
    bslz4_device_array *device_chunks = NULL, *out = NULL;
    int acc;
    if (!chunk) return;
    n = c.ni * c.nj;
    bins = c.ni;
    mask = mask_of_ones(n);
    mask[1] = 0;
    CHECK_OK(row_sum_matrix(c.ni, c.nj, &m), name);
    CHECK_OK(bslz4_matrix_fixed_point(m, c.pixel_type, 24, &fixed), name);
    chunks[0] = chunks[1] = chunk;
    lengths2[0] = lengths2[1] = chunk_bytes;
    offsets[0] = 0;
    offsets[1] = 0;
    lengths[0] = lengths[1] = chunk_bytes;
    CHECK_OK(bslz4_gpu_device_buffer_create(chunk, chunk_bytes, 0, &device_chunks), name);
    CHECK_OK(bslz4_device_array_pointer(device_chunks, &dptr), name);
    for (acc = BSLZ4_ACC_F64; acc <= BSLZ4_ACC_I64; acc += 2) {
        const bslz4_matrix* matrix = acc == BSLZ4_ACC_I64 ? fixed : m;
        bslz4_chunk2sparse_csc* cpu = NULL;
        bslz4_gpu_chunk2sparse_csc* gpu = NULL;
        bslz4_batch want_batch, got_batch;
        bslz4_powder want, got;
        bslz4_frame frame;
        bslz4_coo coo;
        size_t f, b;
        int close = 1;
        double a, e;
        powder_bytes = 2 * bins * 8;
        CHECK_OK(bslz4_chunk2sparse_csc_create(mask, n, c.ni, c.nj, c.pixel_type, matrix, acc, NULL, &cpu), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_create(mask, n, c.ni, c.nj, c.pixel_type, matrix, acc, NULL, &gpu), name);
        if (!cpu || !gpu) {
            bslz4_chunk2sparse_csc_destroy(cpu);
            bslz4_gpu_chunk2sparse_csc_destroy(gpu);
            continue;
        }
        CHECK_OK(bslz4_chunk2sparse_csc_multi(cpu, chunks, lengths2, 2, 10.0, &want_batch, &want), name);
        cpu_powder = (unsigned char*)malloc(powder_bytes);
        CHECK_OK(bslz4_powder_copy(&want, cpu_powder, powder_bytes), name);
        want.data = cpu_powder;
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_multi(gpu, chunks, lengths2, 2, 10.0, &got_batch, &got), name);
        CHECK(same_batch(&want_batch, &got_batch, c.elem_size), "GPU CSC lists");
        for (f = 0; f < 2; ++f)
            for (b = 0; b < bins; ++b) {
                bslz4_powder_value(&want, f, b, &e);
                bslz4_powder_value(&got, f, b, &a);
                close = close && (acc == BSLZ4_ACC_I64 ? a == e : (a - e <= 1e-12 * e && e - a <= 1e-12 * e));
            }
        CHECK(close, acc == BSLZ4_ACC_I64 ? "i64 powders" : "f64 powders");
        if (acc == BSLZ4_ACC_I64) CHECK(memcmp(got.data, cpu_powder, powder_bytes) == 0, "i64 bit for bit");

        CHECK_OK(bslz4_gpu_chunk2sparse_csc_call(gpu, chunk, chunk_bytes, 10.0, &frame, &got), name);
        CHECK(got.nframes == 1 && (acc != BSLZ4_ACC_I64 || memcmp(got.data, cpu_powder, bins * 8) == 0), "call's powder");
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_from_buffer(gpu, chunk, chunk_bytes, offsets, lengths, 2, 10.0, &got_batch,
                                                        &got),
                 name);
        CHECK(got.nframes == 2 && (acc != BSLZ4_ACC_I64 || memcmp(got.data, cpu_powder, powder_bytes) == 0),
              "from_buffer's powder");
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_from_device(gpu, dptr, offsets, lengths, 2, 10.0, &got_batch, &got), name);
        CHECK(same_batch(&want_batch, &got_batch, c.elem_size), "from_device's lists");
        CHECK(got.nframes == 2 && (acc != BSLZ4_ACC_I64 || memcmp(got.data, cpu_powder, powder_bytes) == 0),
              "from_device's powder");
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_coo(gpu, chunk, chunk_bytes, 10.0, &coo, &got), name);
        CHECK(got.nframes == 1, "coo's powder");

        /* The matrix added to a lists handle: its lists and the same powders; a refused matrix
         * leaves the lists handle listing, a taken one leaves it spent. */
        {
            bslz4_gpu_chunk2sparse* lists = NULL;
            bslz4_gpu_chunk2sparse_csc* made = NULL;
            bslz4_batch lists_batch;
            CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, NULL, &lists), name);
            if (lists) {
                CHECK_FAILS(bslz4_gpu_chunk2sparse_csc_from_lists(lists, m, BSLZ4_ACC_I64, &made), BSLZ4_E_BAD_MATRIX,
                            "bslz4_gpu_chunk2sparse_csc_from_lists", "a float matrix for acc i64");
                CHECK(made == NULL, "no handle from a refused matrix");
                CHECK_OK(bslz4_gpu_chunk2sparse_multi(lists, chunks, lengths2, 2, 10.0, &lists_batch), name);
                CHECK(same_batch(&want_batch, &lists_batch, c.elem_size), "the lists handle lists after a refused matrix");
                CHECK_OK(bslz4_gpu_chunk2sparse_csc_from_lists(lists, matrix, acc, &made), name);
                if (made) {
                    CHECK_OK(bslz4_gpu_chunk2sparse_csc_multi(made, chunks, lengths2, 2, 10.0, &got_batch, &got), name);
                    CHECK(same_batch(&want_batch, &got_batch, c.elem_size), "lists of the handle made from the lists handle");
                    close = got.nframes == 2;
                    for (f = 0; f < 2; ++f)
                        for (b = 0; b < bins; ++b) {
                            bslz4_powder_value(&want, f, b, &e);
                            bslz4_powder_value(&got, f, b, &a);
                            close = close && (acc == BSLZ4_ACC_I64 ? a == e : (a - e <= 1e-12 * e && e - a <= 1e-12 * e));
                        }
                    CHECK(close, "powders of the handle made from the lists handle");
                    CHECK_OK(bslz4_gpu_chunk2sparse_csc_destroy(made), name);
                    made = NULL;
                }
                CHECK_FAILS(bslz4_gpu_chunk2sparse_multi(lists, chunks, lengths2, 2, 10.0, &lists_batch), BSLZ4_E_BAD_ARGUMENT,
                            "bslz4_gpu_chunk2sparse_multi", "a lists handle whose engine was taken");
                CHECK_FAILS(bslz4_gpu_chunk2sparse_csc_from_lists(lists, matrix, acc, &made), BSLZ4_E_BAD_ARGUMENT,
                            "bslz4_gpu_chunk2sparse_csc_from_lists", "a lists handle taken twice");
                CHECK(made == NULL, "no handle from a spent lists handle");
                CHECK_OK(bslz4_gpu_chunk2sparse_destroy(lists), "a spent lists handle is destroyed");
            }
        }

        /* Powders left on the GPU. */
        host = (unsigned char*)malloc(powder_bytes);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_integrate(gpu, chunks, lengths2, 2, &out), name);
        CHECK_FAILS(bslz4_device_array_copy_to_host(out, host, powder_bytes - 1), BSLZ4_E_OUTPUT_TOO_SMALL,
                    "bslz4_device_array_copy_to_host", "a powder into a buffer one byte short");
        CHECK_OK(bslz4_device_array_copy_to_host(out, host, powder_bytes), name);
        close = 1;
        for (k = 0; k < 2 * bins; ++k) {
            if (acc == BSLZ4_ACC_I64) {
                close = close && memcmp(host + 8 * k, cpu_powder + 8 * k, 8) == 0;
            } else {
                memcpy(&a, host + 8 * k, 8);
                memcpy(&e, cpu_powder + 8 * k, 8);
                close = close && a - e <= 1e-12 * e && e - a <= 1e-12 * e;
            }
        }
        CHECK(close, "integrate's powders");
        bslz4_device_array_destroy(out);
        out = NULL;
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_integrate_from_device(gpu, dptr, offsets, lengths, 2, &out), name);
        CHECK(acc != BSLZ4_ACC_I64 || device_array_is(out, cpu_powder, powder_bytes), "integrate_from_device's powders");
        bslz4_device_array_destroy(out);
        out = NULL;
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_decompress(gpu, chunks, lengths2, 1, &out), name);
        bslz4_device_array_destroy(out);
        out = NULL;
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_decompress_from_device(gpu, dptr, offsets, lengths, 1, &out), name);
        bslz4_device_array_destroy(out);
        out = NULL;

        /* Top pixels: the CPU's lists. */
        CHECK_OK(bslz4_chunk2sparse_csc_set_top_pixels(cpu, 50, NULL, BSLZ4_DEFAULT_THRESHOLDS), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_set_top_pixels(gpu, 50, NULL, BSLZ4_DEFAULT_THRESHOLDS), name);
        CHECK_OK(bslz4_chunk2sparse_csc_multi(cpu, chunks, lengths2, 2, 1.0, &want_batch, &want), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_multi(gpu, chunks, lengths2, 2, 1.0, &got_batch, &got), name);
        CHECK(same_batch(&want_batch, &got_batch, c.elem_size) && got_batch.npixels[0] <= 50, "top pixels");

        CHECK_OK(bslz4_gpu_chunk2sparse_csc_reserve(gpu, 4, chunk_bytes), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_last_host(gpu, &last_host), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_cap(gpu, &cap), name);
        {
            size_t info_bins = 0;
            int info_acc = -1;
            double seconds = 0;
            CHECK_OK(bslz4_gpu_chunk2sparse_csc_info(gpu, NULL, NULL, &info_bins, &info_acc), name);
            CHECK(info_bins == bins && info_acc == acc, "the GPU handle's bins and accumulator");
            CHECK_OK(bslz4_gpu_chunk2sparse_csc_time_on_device(gpu, chunks, lengths2, 2, 1.0, 2, &seconds), name);
            CHECK(seconds > 0, "kernel time with powders");
        }
        CHECK(cap == n * c.elem_size / (4 + c.elem_size), "cap = frame bytes / (4 + bytes per pixel)");
        free(host);
        free(cpu_powder);
        host = cpu_powder = NULL;
        bslz4_chunk2sparse_csc_destroy(cpu);
        bslz4_gpu_chunk2sparse_csc_destroy(gpu);
    }
    bslz4_device_array_destroy(device_chunks);
    bslz4_matrix_destroy(m);
    bslz4_matrix_destroy(fixed);
    free(mask);
    free(chunk);
}

/* Bad frames and bad calls: the CPU's status and message. */
static void check_errors(const char* dir, const char* name) {
    char cpu_message[4096];
    reference_case c;
    size_t chunk_bytes = 0, n, last_host = 0, cap = 0;
    unsigned char *chunk = load_named(dir, name, &c, &chunk_bytes), *mask;
    bslz4_options options;
    bslz4_chunk2sparse* cpu = NULL;
    bslz4_gpu_chunk2sparse *gpu = NULL, *stop = NULL;
    bslz4_frame frame;
    bslz4_batch want, got;
    bslz4_device_array* device_chunks = NULL;
    const void* chunks[3];
    size_t lengths3[3];
    uint64_t offsets[1] = {0}, lengths[1], dptr = 0;
    int cpu_status;
    if (!chunk) return;
    n = c.ni * c.nj;
    mask = mask_of_ones(n);
    bslz4_options_init(&options);
    options.on_error = BSLZ4_ON_ERROR_REPORT;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, &options, &cpu), name);
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, &options, &gpu), name);
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, NULL, &stop), name);
    if (cpu && gpu && stop) {
        /* A truncated chunk, one frame: the same status and message. */
        cpu_status = bslz4_chunk2sparse_call(cpu, chunk, chunk_bytes / 2, 1.0, &frame);
        snprintf(cpu_message, sizeof cpu_message, "%s", reason_of_last_error());
        CHECK(cpu_status != BSLZ4_OK, "the CPU refuses half a chunk");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_call(gpu, chunk, chunk_bytes / 2, 1.0, &frame), cpu_status,
                    "bslz4_gpu_chunk2sparse_call", "half a chunk on the GPU");
        CHECK(strcmp(reason_of_last_error(), cpu_message) == 0, "the GPU's message is the CPU's");

        /* A bad frame in a batch: reported with the CPU's status, or failing the call. */
        chunks[0] = chunks[1] = chunks[2] = chunk;
        lengths3[0] = lengths3[2] = chunk_bytes;
        lengths3[1] = chunk_bytes - 1;
        CHECK_OK(bslz4_chunk2sparse_multi(cpu, chunks, lengths3, 3, 1.0, &want), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_multi(gpu, chunks, lengths3, 3, 1.0, &got), name);
        CHECK(got.nbad == 1 && got.bad[0].frame == 1 && want.nbad == 1 && got.bad[0].status == want.bad[0].status &&
                  strcmp(got.bad[0].message, want.bad[0].message) == 0,
              "the bad frame reported as the CPU reports it");
        CHECK(same_batch(&want, &got, c.elem_size), "the good frames");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_multi(stop, chunks, lengths3, 3, 1.0, &got), want.bad[0].status,
                    "bslz4_gpu_chunk2sparse_multi", "a bad frame stops the call");

        /* Device ranges past the allocation, and memory that is not the device's. */
        CHECK_OK(bslz4_gpu_device_buffer_create(chunk, chunk_bytes, 0, &device_chunks), name);
        CHECK_OK(bslz4_device_array_pointer(device_chunks, &dptr), name);
        lengths[0] = chunk_bytes + 1;
        CHECK_FAILS(bslz4_gpu_chunk2sparse_from_device(stop, dptr, offsets, lengths, 1, 1.0, &got), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_from_device", "a chunk past its allocation");
        lengths[0] = chunk_bytes;
        CHECK_FAILS(bslz4_gpu_chunk2sparse_from_device(stop, (uint64_t)(uintptr_t)chunk, offsets, lengths, 1, 1.0, &got),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_chunk2sparse_from_device", "host memory as a device pointer");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_from_device(stop, dptr, NULL, lengths, 1, 1.0, &got), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_from_device", "NULL offsets");
        CHECK_OK(bslz4_gpu_chunk2sparse_from_device(stop, dptr, offsets, lengths, 1, 1.0, &got), "the object works after");

        CHECK_OK(bslz4_gpu_chunk2sparse_reserve(stop, 8, chunk_bytes), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_last_host(stop, &last_host), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_cap(stop, &cap), name);
        CHECK(last_host <= 1 && cap == n * c.elem_size / (4 + c.elem_size), "last_host and cap");
        CHECK_OK(bslz4_gpu_chunk2sparse_set_top_pixels(stop, 10, NULL, 0), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_call(stop, chunk, chunk_bytes, 0.0, &frame), name);
        CHECK(frame.npixels <= 10, "top pixels on the GPU");
    }
    bslz4_gpu_chunk2sparse_destroy(gpu);
    gpu = NULL;
    CHECK_FAILS(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, BSLZ4_F64, NULL, &gpu), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_gpu_chunk2sparse_create", "f64 pixels on the GPU");
    CHECK_FAILS(bslz4_gpu_chunk2sparse_call(NULL, chunk, chunk_bytes, 1.0, &frame), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_gpu_chunk2sparse_call", "NULL handle");
    CHECK_FAILS(bslz4_gpu_chunk2sparse_create(mask, n - 1, c.ni, c.nj, c.pixel_type, NULL, &gpu), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_gpu_chunk2sparse_create", "a mask one byte short");
    CHECK_FAILS(bslz4_device_array_pointer(NULL, &dptr), BSLZ4_E_BAD_ARGUMENT, "bslz4_device_array_pointer",
                "NULL array");
    bslz4_device_array_destroy(device_chunks);
    bslz4_gpu_chunk2sparse_destroy(stop);
    bslz4_chunk2sparse_destroy(cpu);
    free(mask);
    free(chunk);
}

/* from_buffer from pinned memory, and the GPU options (batch, group, host unblocking): the CPU's
 * lists. */
static void check_pinned_and_options(const char* dir, const char* name) {
    reference_case c;
    size_t chunk_bytes = 0, n, bytes = 0, f;
    unsigned char *chunk = load_named(dir, name, &c, &chunk_bytes), *mask;
    bslz4_pinned_memory* pinned = NULL;
    bslz4_chunk2sparse* cpu = NULL;
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_options options;
    bslz4_batch want, got;
    uint64_t offsets[5], lengths[5];
    void* data = NULL;
    int is_pinned = 0, device = -1;
    unsigned batch = 0, group = 0;
    double seconds = 0;
    const unsigned char* chunks2[2];
    size_t lengths2[2];
    if (!chunk) return;
    chunks2[0] = chunks2[1] = chunk;
    lengths2[0] = lengths2[1] = chunk_bytes;
    n = c.ni * c.nj;
    mask = mask_of_ones(n);
    for (f = 0; f < 5; ++f) {
        offsets[f] = f * (chunk_bytes + 1);
        lengths[f] = chunk_bytes;
    }
    CHECK_OK(bslz4_gpu_pinned_memory_create(5 * (chunk_bytes + 1), 0, &pinned), name);
    CHECK_OK(bslz4_pinned_memory_data(pinned, &data, &bytes, &is_pinned), name);
    CHECK(data != NULL && bytes == 5 * (chunk_bytes + 1), "pinned memory of the size asked");
    printf("pinned memory: %s\n", is_pinned ? "pinned" : "pageable (the driver refused to pin)");
    for (f = 0; data && f < 5; ++f) memcpy((unsigned char*)data + offsets[f], chunk, chunk_bytes);
    bslz4_options_init(&options);
    options.batch = 2;
    options.group = 3;
    options.unblock = BSLZ4_UNBLOCK_CPU;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, NULL, &cpu), name);
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, &options, &gpu), name);
    if (cpu && gpu && data) {
        CHECK_OK(bslz4_chunk2sparse_from_buffer(cpu, data, bytes, offsets, lengths, 5, 1.0, &want), name);
        CHECK_OK(bslz4_gpu_chunk2sparse_from_buffer(gpu, data, bytes, offsets, lengths, 5, 1.0, &got), name);
        CHECK(same_batch(&want, &got, c.elem_size), "from pinned memory, batch 2, group 3, unblocked on the host");
        CHECK_OK(bslz4_gpu_chunk2sparse_info(gpu, &batch, &group, &device), name);
        CHECK(batch == 2 && group == 3 && device == 0, "the handle's batch, group and device");
        CHECK_OK(bslz4_gpu_chunk2sparse_time_on_device(gpu, (const void* const*)chunks2, lengths2, 2, 1.0, 3, &seconds),
                 name);
        CHECK(seconds > 0, "kernel time");
    }
    options.unblock = 7;
    CHECK_FAILS(bslz4_gpu_chunk2sparse_create(mask, n, c.ni, c.nj, c.pixel_type, &options, &gpu), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_gpu_chunk2sparse_create", "unblock out of range");
    CHECK_FAILS(bslz4_pinned_memory_data(NULL, &data, &bytes, NULL), BSLZ4_E_BAD_ARGUMENT, "bslz4_pinned_memory_data",
                "NULL memory");
    bslz4_chunk2sparse_destroy(cpu);
    bslz4_gpu_chunk2sparse_destroy(gpu);
    bslz4_pinned_memory_destroy(pinned);
    free(mask);
    free(chunk);
}

/* Without a GPU the functions still answer: the status and a message, no crash. */
static void check_without_gpu(const char* reason) {
    const int expected = strstr(reason, "built without GPU support") ? BSLZ4_E_NO_GPU_SUPPORT : BSLZ4_E_NO_GPU;
    unsigned char mask[4] = {1, 1, 1, 1};
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_device_array* array = NULL;
    bslz4_pinned_memory* pinned = NULL;
    CHECK_FAILS(bslz4_gpu_chunk2sparse_create(mask, 4, 2, 2, BSLZ4_U16, NULL, &gpu), expected,
                "bslz4_gpu_chunk2sparse_create", "a GPU handle without a GPU");
    CHECK(gpu == NULL, "no handle");
    CHECK_FAILS(bslz4_gpu_device_buffer_create(mask, 4, 0, &array), expected, "bslz4_gpu_device_buffer_create",
                "device memory without a GPU");
    CHECK(array == NULL, "no array");
    CHECK_FAILS(bslz4_gpu_pinned_memory_create(16, 0, &pinned), expected, "bslz4_gpu_pinned_memory_create",
                "pinned memory without a GPU");
    CHECK(pinned == NULL, "no pinned memory");
    CHECK_OK(bslz4_gpu_chunk2sparse_destroy(NULL), "destroying nothing");
    check_gpu_handle_classes_without_gpu(expected == BSLZ4_E_NO_GPU_SUPPORT);
    check_gpu_size_limits_without_gpu(expected == BSLZ4_E_NO_GPU_SUPPORT);
}

/* Handles of the wrong class and sizes past the limits, on the case called name. */
static void check_classes_and_limits(const char* dir, const char* name) {
    reference_case c;
    size_t chunk_bytes = 0;
    unsigned char* chunk = load_named(dir, name, &c, &chunk_bytes);
    if (!chunk) return;
    check_gpu_handle_classes(&c, chunk, chunk_bytes);
    check_gpu_size_limits(&c, chunk, chunk_bytes);
    free(chunk);
}

int main(void) {
    const char* require = getenv("BSLZ4_REQUIRE_GPU");
    const int required = require && strcmp(require, "1") == 0;
    const char *dir = getenv("BSLZ4_TESTDATA"), *reason = NULL, *archs = NULL;
    reference_case* cases = NULL;
    char why[4300];
    size_t ncases, k, decoded = 0;
    int available = 0, devices = 0;

    CHECK_OK(bslz4_gpu_available(&available, &reason), "bslz4_gpu_available");
    if (!available) {
        check_without_gpu(reason ? reason : "");
        if (c_check_failures) return 1;
        printf("%s: %s\n", required ? "FAILED (BSLZ4_REQUIRE_GPU=1)" : "SKIP: no usable GPU", reason ? reason : "");
        return required ? 1 : 77;
    }
    CHECK_OK(bslz4_gpu_device_count(&devices), "device count");
    CHECK_OK(bslz4_gpu_built_architectures(&archs), "architectures");
    printf("GPU: %d device(s), kernels for %s\n", devices, archs ? archs : "?");

    ncases = dir ? read_reference_table(dir, &cases, why, sizeof why) : 0;
    if (ncases == 0) {
        dir = getenv("BSLZ4_LOCAL_TESTDATA");
        if (!dir) dir = "tests/data";
        printf("no shared reference data: the local cases in %s\n", dir);
        ncases = read_reference_table(dir, &cases, why, sizeof why);
        CHECK(ncases > 0, why);
    }
    for (k = 0; k < ncases; ++k)
        if (gpu_decodes(&cases[k])) decoded += (size_t)check_case(dir, &cases[k]);
    free(cases);
    CHECK(decoded >= 100, "the GPU decoded the reference cases");
    check_powders(dir, "u16_eiger_514x1030");
    check_errors(dir, "u16_eiger_514x1030");
    check_pinned_and_options(dir, "u16_eiger_514x1030");
    check_classes_and_limits(dir, "u16_eiger_514x1030");
    CHECK_OK(bslz4_gpu_release_shared(), "release_shared");
    printf("gpu: %zu cases decoded on the GPU, %d checks, %d failed\n", decoded, c_check_count, c_check_failures);
    return c_check_failures ? 1 : 0;
}
