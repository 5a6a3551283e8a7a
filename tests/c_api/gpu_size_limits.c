#include "gpu_size_limits.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"
#include "frame_lists.h"

/* The last message says `text` (after a failure CHECK_FAILS accepted). */
static void check_message(int failed_as_expected, const char* text, const char* what) {
    if (failed_as_expected) CHECK(strstr(bslz4_last_error(), text) != NULL, what);
}

/* What is refused before a device is needed: the same with or without one. */
static void check_before_the_device(int expected) {
    unsigned char mask[4] = {1, 1, 1, 1};
    bslz4_options options;
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_pinned_memory* pinned = NULL;
    bslz4_device_array* array = NULL;
    bslz4_options_init(&options);
    options.threads = 30000;
    check_message(CHECK_FAILS(bslz4_gpu_chunk2sparse_create(mask, 4, 2, 2, BSLZ4_U16, &options, &gpu), expected,
                              "bslz4_gpu_chunk2sparse_create", "gpu options with threads past BSLZ4_MAX_THREADS"),
                  expected == BSLZ4_E_BAD_ARGUMENT ? "options.threads is 30000" : "", "the message names the option");
    CHECK(gpu == NULL, "no gpu handle");
    CHECK_FAILS(bslz4_gpu_pinned_memory_create(SIZE_MAX, 0, &pinned), expected, "bslz4_gpu_pinned_memory_create",
                "pinned memory of SIZE_MAX bytes");
    CHECK(pinned == NULL, "no pinned memory");
    CHECK_FAILS(bslz4_gpu_device_buffer_create(mask, SIZE_MAX, 0, &array), expected, "bslz4_gpu_device_buffer_create",
                "a device buffer of SIZE_MAX host bytes");
    CHECK(array == NULL, "no device array");
}

void check_gpu_size_limits_without_gpu(int built_without_gpu) {
    check_before_the_device(built_without_gpu ? BSLZ4_E_NO_GPU_SUPPORT : BSLZ4_E_BAD_ARGUMENT);
}

void check_gpu_size_limits(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes) {
    const size_t n = c->ni * c->nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_device_array *array = NULL, *frames = NULL;
    const void* chunks[1];
    size_t lengths[1], shape[4], ndim = 0;
    uint64_t offsets[1] = {0}, lengths64[1], dptr = 0;
    unsigned char host[16];
    double seconds = 0;
    bslz4_frame frame;
    bslz4_batch batch;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    check_before_the_device(BSLZ4_E_BAD_ARGUMENT);
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &gpu), "a gpu handle");
    CHECK_OK(bslz4_gpu_device_buffer_create(chunk, chunk_bytes, 0, &array), "a device array");
    if (gpu && array && bslz4_device_array_pointer(array, &dptr) == BSLZ4_OK) {
        /* reserve: a count of SIZE_MAX frames, one whose lists would not fit in a size_t, chunks
           of SIZE_MAX bytes (this wrapped into a small reservation). */
        CHECK_FAILS(bslz4_gpu_chunk2sparse_reserve(gpu, SIZE_MAX, chunk_bytes), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_reserve", "reserve for SIZE_MAX frames");
        check_message(CHECK_FAILS(bslz4_gpu_chunk2sparse_reserve(gpu, BSLZ4_MAX_BYTES / sizeof(void*), chunk_bytes),
                                  BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_chunk2sparse_reserve",
                                  "reserve for 2^60 frames, whose lists no buffer holds"),
                      "their results", "the message says why");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_reserve(gpu, 8, SIZE_MAX), BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_chunk2sparse_reserve",
                    "reserve for chunks of SIZE_MAX bytes");
        CHECK_OK(bslz4_gpu_chunk2sparse_reserve(gpu, 8, chunk_bytes), "a reserve within the limits");
        /* Counts and sizes of the calls. */
        CHECK_FAILS(bslz4_gpu_chunk2sparse_call(gpu, chunk, SIZE_MAX, 1.0, &frame), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_call", "a gpu call of a chunk of SIZE_MAX bytes");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_multi(gpu, chunks, lengths, SIZE_MAX, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_multi", "a gpu multi of SIZE_MAX chunks");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_from_device(gpu, dptr, offsets, lengths64, SIZE_MAX, 1.0, &batch),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_chunk2sparse_from_device", "from_device of SIZE_MAX chunks");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_decompress(gpu, chunks, lengths, SIZE_MAX, &frames), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_gpu_chunk2sparse_decompress", "decompress of SIZE_MAX chunks");
        CHECK(frames == NULL, "no frames array");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_time_on_device(gpu, chunks, lengths, SIZE_MAX, 1.0, 1, &seconds),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_chunk2sparse_time_on_device", "time_on_device of SIZE_MAX chunks");
        /* Rooms of device array reads. */
        CHECK_FAILS(bslz4_device_array_shape(array, shape, SIZE_MAX, &ndim), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_device_array_shape", "room for SIZE_MAX dimensions");
        CHECK_FAILS(bslz4_device_array_copy_to_host(array, host, SIZE_MAX), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_device_array_copy_to_host", "a copy into SIZE_MAX bytes of room");
        CHECK_OK(bslz4_gpu_chunk2sparse_call(gpu, chunk, chunk_bytes, 1.0, &frame), "the handle works after");
    }
    bslz4_device_array_destroy(array);
    bslz4_gpu_chunk2sparse_destroy(gpu);
    free(mask);
}
