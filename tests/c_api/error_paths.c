/* The C API's error paths on the CPU and its one-call-at-a-time rule (see error_paths.h). */
#include "error_paths.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "bslz4/bslz4.h"
#include "c_check.h"
#include "frame_lists.h"
#include "handle_classes.h"
#include "reference_table.h"
#include "row_sum_matrix.h"
#include "sha256.h"
#include "size_limits.h"

static void* fail_in_a_thread(void* message) {
    size_t decoded;
    bslz4_decoded_size("short", 5, &decoded);
    strncpy((char*)message, bslz4_last_error(), 255);
    return NULL;
}

/* Two threads calling one handle: each call either runs or is refused with a message naming
   the other thread's call, never a race on the handle's buffers (TSan checks that in CI). */
typedef struct {
    bslz4_chunk2sparse* handle;
    const loaded* l;
    size_t done, refused, other;
} calls_in_a_thread;

static void* call_repeatedly(void* p) {
    calls_in_a_thread* t = (calls_in_a_thread*)p;
    bslz4_frame frame;
    size_t k;
    for (k = 0; k < 300; ++k) {
        const int s = bslz4_chunk2sparse_call(t->handle, t->l->chunk, t->l->chunk_bytes, 0.0, &frame);
        if (s == BSLZ4_OK)
            ++t->done;
        else if (s == BSLZ4_E_BAD_ARGUMENT && strstr(bslz4_last_error(), "in a call on another thread"))
            ++t->refused;
        else
            ++t->other;
    }
    return NULL;
}

void check_one_call_at_a_time(const loaded* l) {
    const size_t n = l->c.ni * l->c.nj;
    unsigned char* mask = mask_of_ones(n);
    calls_in_a_thread a = {NULL, l, 0, 0, 0}, b;
    pthread_t thread;
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &a.handle), "a handle");
    b = a;
    CHECK(pthread_create(&thread, NULL, call_repeatedly, &b) == 0, "a second thread");
    call_repeatedly(&a);
    pthread_join(thread, NULL);
    CHECK(a.other == 0 && b.other == 0, "every call on the shared handle ran or was refused as busy");
    CHECK(a.done + a.refused == 300 && b.done + b.refused == 300 && a.done + b.done > 0, "each thread's calls counted");
    printf("one handle, two threads: %zu calls ran, %zu refused as busy\n", a.done + b.done, a.refused + b.refused);
    bslz4_chunk2sparse_destroy(a.handle);
    free(mask);
}

/* Every error path gives its status and a message naming the function. */
void check_errors(const loaded* l) {
    const size_t n = l->c.ni * l->c.nj, bytes = n * l->c.elem_size;
    unsigned char* mask = mask_of_ones(n);
    unsigned char* out = (unsigned char*)malloc(bytes);
    unsigned char* damaged = (unsigned char*)malloc(l->chunk_bytes);
    bslz4_chunk2sparse* sparse = NULL;
    bslz4_options options;
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    size_t decoded, nblocks, chunk_bytes, capacity = 4;
    uint64_t offsets[1] = {0}, lengths[1], d64;
    uint32_t field, indices[4], row[4], col[4];
    unsigned char values[64];
    const void* chunks[1];
    size_t chunk_lengths[1];
    char other_thread[256] = "";
    pthread_t thread;
    int status;

    /* Truncated chunks: inside the header, and cut short in the blocks. */
    CHECK_FAILS(bslz4_decoded_size(l->chunk, 11, &decoded), BSLZ4_E_TRUNCATED_CHUNK, "bslz4_decoded_size",
                "a chunk shorter than its header");
    CHECK_FAILS(bslz4_decode(l->chunk, 8, l->c.elem_size, l->c.codec, out, bytes), BSLZ4_E_TRUNCATED_CHUNK,
                "bslz4_decode", "a chunk of 8 bytes");
    status = bslz4_decode(l->chunk, l->chunk_bytes / 2, l->c.elem_size, l->c.codec, out, bytes);
    CHECK(status == BSLZ4_E_TRUNCATED_CHUNK || status == BSLZ4_E_BAD_BLOCK_LENGTH,
          "a chunk cut in half: truncated or a block past its end");
    CHECK(strncmp(bslz4_last_error(), "bslz4_decode: ", 14) == 0, "its message");
    CHECK_FAILS(bslz4_chunk_header(l->chunk, 5, l->c.elem_size, &d64, &field), BSLZ4_E_TRUNCATED_CHUNK,
                "bslz4_chunk_header", "a header cut short");
    status = bslz4_block_starts(l->chunk, l->chunk_bytes - 1, l->c.elem_size, 0, NULL, 0, &nblocks);
    CHECK(status == BSLZ4_E_TRUNCATED_CHUNK || status == BSLZ4_E_BAD_BLOCK_LENGTH, "a chunk one byte short");
    CHECK(strncmp(bslz4_last_error(), "bslz4_block_starts: ", 20) == 0, "its message");
    /* A block's LZ4 data damaged: a code of the LZ4 family, not a crash. */
    memcpy(damaged, l->chunk, l->chunk_bytes);
    memset(damaged + 16, 0xff, l->chunk_bytes - 16 < 32 ? l->chunk_bytes - 16 : 32);
    status = bslz4_decode(damaged, l->chunk_bytes, l->c.elem_size, l->c.codec, out, bytes);
    CHECK(status != BSLZ4_OK && bslz4_last_error()[0] != '\0', "damaged LZ4 data");

    /* Outputs too small. */
    CHECK_FAILS(bslz4_decode(l->chunk, l->chunk_bytes, l->c.elem_size, l->c.codec, out, bytes - 1),
                BSLZ4_E_OUTPUT_TOO_SMALL, "bslz4_decode", "an output one byte short");
    CHECK_FAILS(bslz4_encode(l->pixels, bytes, l->c.elem_size, BSLZ4_CODEC_LZ4, 0, 3, out, 10, &chunk_bytes),
                BSLZ4_E_OUTPUT_TOO_SMALL, "bslz4_encode", "an encode into 10 bytes");
    CHECK(chunk_bytes > 10, "the size needed is given");
    CHECK_FAILS(bslz4_block_starts(l->chunk, l->chunk_bytes, l->c.elem_size, 0, NULL, 0, &nblocks),
                BSLZ4_E_OUTPUT_TOO_SMALL, "bslz4_block_starts", "no room for the block starts");
    CHECK(nblocks > 0, "the count needed is given");

    /* NULL pointers. */
    CHECK_FAILS(bslz4_decode(NULL, 100, 2, BSLZ4_CODEC_LZ4, out, bytes), BSLZ4_E_BAD_ARGUMENT, "bslz4_decode", "NULL chunk");
    CHECK_FAILS(bslz4_decode(l->chunk, l->chunk_bytes, l->c.elem_size, l->c.codec, NULL, bytes), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_decode", "NULL output");
    CHECK_FAILS(bslz4_decoded_size(l->chunk, l->chunk_bytes, NULL), BSLZ4_E_BAD_ARGUMENT, "bslz4_decoded_size",
                "NULL decoded_bytes");
    CHECK_FAILS(bslz4_options_init(NULL), BSLZ4_E_BAD_ARGUMENT, "bslz4_options_init", "NULL options");
    CHECK_FAILS(bslz4_chunk2sparse_create(NULL, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &sparse),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create", "NULL mask");
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, NULL), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_create", "NULL handle pointer");
    CHECK_FAILS(bslz4_chunk2sparse_call(NULL, l->chunk, l->chunk_bytes, 1.0, &frame), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_call", "NULL handle");
    CHECK_FAILS(bslz4_batch_frame(NULL, 0, &frame), BSLZ4_E_BAD_ARGUMENT, "bslz4_batch_frame", "NULL batch");

    /* Wrong sizes and values. */
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, n - 1, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &sparse),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create", "a mask one byte short");
    CHECK(sparse == NULL, "no handle after a failed create");
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, 10, NULL, &sparse), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_chunk2sparse_create", "pixel type 10");
    bslz4_options_init(&options);
    options.codec = 2;
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, &options, &sparse),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create", "codec 2");
    options.codec = BSLZ4_CODEC_LZ4;
    options.struct_size = 8;
    CHECK_FAILS(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, &options, &sparse),
                BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_create", "options not from bslz4_options_init");
    CHECK_FAILS(bslz4_decode(l->chunk, l->chunk_bytes, 3, l->c.codec, out, bytes), BSLZ4_E_BAD_HEADER, "bslz4_decode",
                "an element size the header's size is no multiple of");
    CHECK_FAILS(bslz4_decode(l->chunk, l->chunk_bytes, l->c.elem_size, 9, out, bytes), BSLZ4_E_BAD_ARGUMENT,
                "bslz4_decode", "codec 9");

    CHECK_OK(bslz4_chunk2sparse_create(mask, n, l->c.ni, l->c.nj, l->c.pixel_type, NULL, &sparse), "a handle");
    if (sparse) {
        CHECK_FAILS(bslz4_chunk2sparse_call(sparse, l->chunk, 8, 1.0, &frame), BSLZ4_E_TRUNCATED_CHUNK,
                    "bslz4_chunk2sparse_call", "a truncated chunk");
        CHECK_FAILS(bslz4_chunk2sparse_call(sparse, l->chunk, l->chunk_bytes, 1.0, NULL), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_chunk2sparse_call", "NULL result");
        CHECK_FAILS(bslz4_chunk2sparse_call(sparse, NULL, l->chunk_bytes, 1.0, &frame), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_chunk2sparse_call", "NULL chunk");
        CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, NULL, chunk_lengths, 1, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_chunk2sparse_multi", "NULL chunk array");
        chunks[0] = NULL;
        chunk_lengths[0] = 10;
        CHECK_FAILS(bslz4_chunk2sparse_multi(sparse, chunks, chunk_lengths, 1, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_chunk2sparse_multi", "a NULL chunk with a length");
        lengths[0] = l->chunk_bytes;
        offsets[0] = 1;
        CHECK_FAILS(bslz4_chunk2sparse_from_buffer(sparse, l->chunk, l->chunk_bytes, offsets, lengths, 1, 1.0, &batch),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_from_buffer", "a range past the buffer");
        CHECK_FAILS(bslz4_chunk2sparse_from_buffer(sparse, l->chunk, l->chunk_bytes, NULL, lengths, 1, 1.0, &batch),
                    BSLZ4_E_BAD_ARGUMENT, "bslz4_chunk2sparse_from_buffer", "NULL offsets");
        chunks[0] = l->pixels;
        chunk_lengths[0] = bytes - l->c.elem_size;
        CHECK_FAILS(bslz4_chunk2sparse_from_frames(sparse, chunks, chunk_lengths, 1, 1.0, &batch), BSLZ4_E_BAD_ARGUMENT,
                    "bslz4_chunk2sparse_from_frames", "a dense frame one pixel short");
        CHECK_FAILS(bslz4_chunk2sparse_coo(sparse, l->chunk, 8, 1.0, &coo), BSLZ4_E_TRUNCATED_CHUNK,
                    "bslz4_chunk2sparse_coo", "coo of a truncated chunk");

        /* Copies into the caller's buffers that are too small. */
        CHECK_OK(bslz4_chunk2sparse_call(sparse, l->chunk, l->chunk_bytes, 0.0, &frame), "a list");
        CHECK(frame.npixels > capacity, "more pixels than the small buffers hold");
        CHECK_FAILS(bslz4_frame_copy(&frame, values, sizeof values, indices, capacity), BSLZ4_E_OUTPUT_TOO_SMALL,
                    "bslz4_frame_copy", "a frame into 4 indices");
        CHECK_OK(bslz4_chunk2sparse_coo(sparse, l->chunk, l->chunk_bytes, 0.0, &coo), "coo");
        CHECK_FAILS(bslz4_coo_copy(&coo, row, col, capacity, values, sizeof values), BSLZ4_E_OUTPUT_TOO_SMALL,
                    "bslz4_coo_copy", "coo into 4 rows");
        chunks[0] = l->chunk;
        chunk_lengths[0] = l->chunk_bytes;
        CHECK_OK(bslz4_chunk2sparse_multi(sparse, chunks, chunk_lengths, 1, 1.0, &batch), "a batch of one");
        CHECK_FAILS(bslz4_batch_frame(&batch, 1, &frame), BSLZ4_E_BAD_ARGUMENT, "bslz4_batch_frame", "a frame past the batch");
        /* Sizes whose product does not fit in a size_t are refused, not wrapped past the room checks
           (the rooms the largest the limits allow, so that the wrap is what is refused). */
        frame.npixels = SIZE_MAX / 2;
        frame.pixel_type = BSLZ4_U32;
        if (CHECK_FAILS(bslz4_frame_copy(&frame, values, BSLZ4_MAX_BYTES, indices, BSLZ4_MAX_BYTES / 4),
                        BSLZ4_E_BAD_ARGUMENT, "bslz4_frame_copy", "a frame whose byte count wraps"))
            CHECK(strstr(bslz4_last_error(), "does not fit in a size_t") != NULL, "the wrap is what is named");
        bslz4_chunk2sparse_destroy(sparse);
    }
    bslz4_chunk2sparse_destroy(NULL);

    /* The message is the calling thread's: another thread's failure leaves this one's. */
    CHECK_FAILS(bslz4_decode(NULL, 1, 1, 0, out, 1), BSLZ4_E_BAD_ARGUMENT, "bslz4_decode", "before the thread");
    CHECK(pthread_create(&thread, NULL, fail_in_a_thread, other_thread) == 0, "a thread");
    pthread_join(thread, NULL);
    CHECK(strncmp(other_thread, "bslz4_decoded_size: ", 20) == 0, "the thread's own message");
    CHECK(strncmp(bslz4_last_error(), "bslz4_decode: chunk is NULL", 27) == 0, "this thread's message, unchanged");

    CHECK(strcmp(bslz4_status_name(BSLZ4_E_TRUNCATED_CHUNK), "truncated_chunk") == 0 &&
              strcmp(bslz4_status_name(BSLZ4_E_OUTPUT_TOO_SMALL), "output_too_small") == 0 &&
              strcmp(bslz4_status_name(999), "unknown") == 0,
          "status names");
    {
        size_t bound = 0;
        CHECK_FAILS(bslz4_encode_bound(SIZE_MAX - 7, 8, BSLZ4_CODEC_LZ4, 0, &bound), BSLZ4_E_BAD_ARGUMENT, "bslz4_encode_bound",
                    "a bound that would wrap");
    }
    CHECK(bslz4_pixel_size(BSLZ4_U16) == 2 && bslz4_pixel_size(BSLZ4_F64) == 8 && bslz4_pixel_size(42) == 0, "pixel sizes");
    free(mask);
    free(out);
    free(damaged);
}
