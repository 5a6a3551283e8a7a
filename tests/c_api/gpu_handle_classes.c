#include "gpu_handle_classes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bslz4/bslz4.h"
#include "c_check.h"
#include "frame_lists.h"
#include "row_sum_matrix.h"

#define SPARSE "bslz4_chunk2sparse"
#define GPU "bslz4_gpu_chunk2sparse"
#define GPU_CSC "bslz4_gpu_chunk2sparse_csc"
#define MATRIX "bslz4_matrix"
#define ARRAY "bslz4_device_array"
#define PINNED "bslz4_pinned_memory"

/* Every function of the GPU CSC class given a bslz4_gpu_chunk2sparse. */
static void check_gpu_csc_given_gpu(bslz4_gpu_chunk2sparse* gpu, const unsigned char* chunk, size_t chunk_bytes,
                                    uint64_t dptr) {
    bslz4_gpu_chunk2sparse_csc* wrong = (bslz4_gpu_chunk2sparse_csc*)(void*)gpu;
    const void* chunks[1];
    size_t lengths[1], value = 0, bins = 0;
    uint64_t offsets[1] = {0}, lengths64[1];
    unsigned batch_size = 0, group = 0;
    int acc = 0;
    double seconds = 0;
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    bslz4_powder powder;
    bslz4_device_array* out = NULL;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_call(wrong, chunk, chunk_bytes, 1.0, &frame, &powder),
                        "bslz4_gpu_chunk2sparse_csc_call", "handle", GPU, GPU_CSC, "gpu csc call given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_multi(wrong, chunks, lengths, 1, 1.0, &batch, &powder),
                        "bslz4_gpu_chunk2sparse_csc_multi", "handle", GPU, GPU_CSC, "gpu csc multi given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_from_buffer(wrong, chunk, chunk_bytes, offsets, lengths64, 1, 1.0,
                                                               &batch, &powder),
                        "bslz4_gpu_chunk2sparse_csc_from_buffer", "handle", GPU, GPU_CSC,
                        "gpu csc from_buffer given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_coo(wrong, chunk, chunk_bytes, 1.0, &coo, &powder),
                        "bslz4_gpu_chunk2sparse_csc_coo", "handle", GPU, GPU_CSC, "gpu csc coo given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_from_device(wrong, dptr, offsets, lengths64, 1, 1.0, &batch, &powder),
                        "bslz4_gpu_chunk2sparse_csc_from_device", "handle", GPU, GPU_CSC,
                        "gpu csc from_device given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_integrate(wrong, chunks, lengths, 1, &out),
                        "bslz4_gpu_chunk2sparse_csc_integrate", "handle", GPU, GPU_CSC,
                        "gpu csc integrate given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_integrate_from_device(wrong, dptr, offsets, lengths64, 1, &out),
                        "bslz4_gpu_chunk2sparse_csc_integrate_from_device", "handle", GPU, GPU_CSC,
                        "gpu csc integrate_from_device given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_decompress(wrong, chunks, lengths, 1, &out),
                        "bslz4_gpu_chunk2sparse_csc_decompress", "handle", GPU, GPU_CSC,
                        "gpu csc decompress given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_decompress_from_device(wrong, dptr, offsets, lengths64, 1, &out),
                        "bslz4_gpu_chunk2sparse_csc_decompress_from_device", "handle", GPU, GPU_CSC,
                        "gpu csc decompress_from_device given a gpu handle");
    CHECK(out == NULL, "no device array made by a refused call");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_set_top_pixels(wrong, 10, NULL, 0),
                        "bslz4_gpu_chunk2sparse_csc_set_top_pixels", "handle", GPU, GPU_CSC,
                        "gpu csc set_top_pixels given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_reserve(wrong, 4, chunk_bytes), "bslz4_gpu_chunk2sparse_csc_reserve",
                        "handle", GPU, GPU_CSC, "gpu csc reserve given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_last_host(wrong, &value), "bslz4_gpu_chunk2sparse_csc_last_host",
                        "handle", GPU, GPU_CSC, "gpu csc last_host given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_cap(wrong, &value), "bslz4_gpu_chunk2sparse_csc_cap", "handle", GPU,
                        GPU_CSC, "gpu csc cap given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_info(wrong, &batch_size, &group, &bins, &acc),
                        "bslz4_gpu_chunk2sparse_csc_info", "handle", GPU, GPU_CSC, "gpu csc info given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_time_on_device(wrong, chunks, lengths, 1, 1.0, 1, &seconds),
                        "bslz4_gpu_chunk2sparse_csc_time_on_device", "handle", GPU, GPU_CSC,
                        "gpu csc time_on_device given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_destroy(wrong), "bslz4_gpu_chunk2sparse_csc_destroy", "handle", GPU,
                        GPU_CSC, "gpu csc destroy given a gpu handle (not freed as a gpu csc)");
}

/* Every function of the GPU class given a bslz4_gpu_chunk2sparse_csc. */
static void check_gpu_given_gpu_csc(bslz4_gpu_chunk2sparse_csc* csc, const unsigned char* chunk, size_t chunk_bytes,
                                    uint64_t dptr) {
    bslz4_gpu_chunk2sparse* wrong = (bslz4_gpu_chunk2sparse*)(void*)csc;
    const void* chunks[1];
    size_t lengths[1], value = 0;
    uint64_t offsets[1] = {0}, lengths64[1];
    unsigned batch_size = 0, group = 0;
    int device = 0;
    double seconds = 0;
    bslz4_frame frame;
    bslz4_batch batch;
    bslz4_coo coo;
    bslz4_device_array* out = NULL;
    chunks[0] = chunk;
    lengths[0] = chunk_bytes;
    lengths64[0] = chunk_bytes;
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_call(wrong, chunk, chunk_bytes, 1.0, &frame), "bslz4_gpu_chunk2sparse_call",
                        "handle", GPU_CSC, GPU, "gpu call given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_multi(wrong, chunks, lengths, 1, 1.0, &batch), "bslz4_gpu_chunk2sparse_multi",
                        "handle", GPU_CSC, GPU, "gpu multi given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_from_buffer(wrong, chunk, chunk_bytes, offsets, lengths64, 1, 1.0, &batch),
                        "bslz4_gpu_chunk2sparse_from_buffer", "handle", GPU_CSC, GPU,
                        "gpu from_buffer given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_coo(wrong, chunk, chunk_bytes, 1.0, &coo), "bslz4_gpu_chunk2sparse_coo",
                        "handle", GPU_CSC, GPU, "gpu coo given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_from_device(wrong, dptr, offsets, lengths64, 1, 1.0, &batch),
                        "bslz4_gpu_chunk2sparse_from_device", "handle", GPU_CSC, GPU,
                        "gpu from_device given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_decompress(wrong, chunks, lengths, 1, &out),
                        "bslz4_gpu_chunk2sparse_decompress", "handle", GPU_CSC, GPU, "gpu decompress given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_decompress_from_device(wrong, dptr, offsets, lengths64, 1, &out),
                        "bslz4_gpu_chunk2sparse_decompress_from_device", "handle", GPU_CSC, GPU,
                        "gpu decompress_from_device given a gpu csc handle");
    CHECK(out == NULL, "no device array made by a refused call");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_set_top_pixels(wrong, 10, NULL, 0), "bslz4_gpu_chunk2sparse_set_top_pixels",
                        "handle", GPU_CSC, GPU, "gpu set_top_pixels given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_reserve(wrong, 4, chunk_bytes), "bslz4_gpu_chunk2sparse_reserve", "handle",
                        GPU_CSC, GPU, "gpu reserve given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_last_host(wrong, &value), "bslz4_gpu_chunk2sparse_last_host", "handle",
                        GPU_CSC, GPU, "gpu last_host given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_cap(wrong, &value), "bslz4_gpu_chunk2sparse_cap", "handle", GPU_CSC, GPU,
                        "gpu cap given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_info(wrong, &batch_size, &group, &device), "bslz4_gpu_chunk2sparse_info",
                        "handle", GPU_CSC, GPU, "gpu info given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_time_on_device(wrong, chunks, lengths, 1, 1.0, 1, &seconds),
                        "bslz4_gpu_chunk2sparse_time_on_device", "handle", GPU_CSC, GPU,
                        "gpu time_on_device given a gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_destroy(wrong), "bslz4_gpu_chunk2sparse_destroy", "handle", GPU_CSC, GPU,
                        "gpu destroy given a gpu csc handle (not freed as a gpu handle)");
}

/* Device arrays and pinned memory given for each other. */
static void check_array_and_pinned(bslz4_device_array* array, bslz4_pinned_memory* pinned) {
    bslz4_device_array* not_array = (bslz4_device_array*)(void*)pinned;
    bslz4_pinned_memory* not_pinned = (bslz4_pinned_memory*)(void*)array;
    uint64_t dptr = 0;
    size_t value = 0, shape[4], ndim = 0;
    int device = 0, is_pinned = 0;
    const char* dtype = NULL;
    void *data = NULL, *tensor = NULL;
    unsigned char host[16];
    CHECK_CLASS_REFUSED(bslz4_device_array_pointer(not_array, &dptr), "bslz4_device_array_pointer", "array", PINNED, ARRAY,
                        "device array pointer of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_bytes(not_array, &value), "bslz4_device_array_bytes", "array", PINNED, ARRAY,
                        "device array bytes of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_device(not_array, &device), "bslz4_device_array_device", "array", PINNED, ARRAY,
                        "device array device of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_shape(not_array, shape, 4, &ndim), "bslz4_device_array_shape", "array", PINNED,
                        ARRAY, "device array shape of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_dtype(not_array, &dtype), "bslz4_device_array_dtype", "array", PINNED, ARRAY,
                        "device array dtype of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_copy_to_host(not_array, host, sizeof host), "bslz4_device_array_copy_to_host",
                        "array", PINNED, ARRAY, "device array copy of pinned memory");
    CHECK_CLASS_REFUSED(bslz4_device_array_to_dlpack(not_array, &tensor), "bslz4_device_array_to_dlpack", "array", PINNED,
                        ARRAY, "DLPack export of pinned memory");
    CHECK(tensor == NULL, "no tensor");
    CHECK_CLASS_REFUSED(bslz4_device_array_destroy(not_array), "bslz4_device_array_destroy", "array", PINNED, ARRAY,
                        "device array destroy given pinned memory (not freed as an array)");
    CHECK_CLASS_REFUSED(bslz4_pinned_memory_data(not_pinned, &data, &value, &is_pinned), "bslz4_pinned_memory_data",
                        "memory", ARRAY, PINNED, "pinned memory data of a device array");
    CHECK_CLASS_REFUSED(bslz4_pinned_memory_destroy(not_pinned), "bslz4_pinned_memory_destroy", "memory", ARRAY, PINNED,
                        "pinned memory destroy given a device array (not freed as pinned memory)");
}

/* CPU and GPU handles, matrices and device arrays given across the CPU / GPU line. */
static void check_across(bslz4_chunk2sparse* cpu, bslz4_gpu_chunk2sparse* gpu, bslz4_device_array* array,
                         const reference_case* c, const unsigned char* mask, const unsigned char* chunk,
                         size_t chunk_bytes) {
    const size_t n = c->ni * c->nj;
    bslz4_gpu_chunk2sparse_csc* csc = NULL;
    bslz4_matrix_view view;
    bslz4_frame frame;
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_call((bslz4_gpu_chunk2sparse*)(void*)cpu, chunk, chunk_bytes, 1.0, &frame),
                        "bslz4_gpu_chunk2sparse_call", "handle", SPARSE, GPU, "gpu call given a cpu handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_call((bslz4_chunk2sparse*)(void*)gpu, chunk, chunk_bytes, 1.0, &frame),
                        "bslz4_chunk2sparse_call", "handle", GPU, SPARSE, "cpu call given a gpu handle");
    CHECK_CLASS_REFUSED(bslz4_chunk2sparse_destroy((bslz4_chunk2sparse*)(void*)gpu), "bslz4_chunk2sparse_destroy", "handle",
                        GPU, SPARSE, "cpu destroy given a gpu handle (not freed as a cpu handle)");
    CHECK_CLASS_REFUSED(bslz4_matrix_view_of((const bslz4_matrix*)(const void*)array, &view), "bslz4_matrix_view_of",
                        "matrix", ARRAY, MATRIX, "matrix view of a device array");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_create(mask, n, c->ni, c->nj, c->pixel_type,
                                                          (const bslz4_matrix*)(const void*)array, BSLZ4_ACC_F64, NULL,
                                                          &csc),
                        "bslz4_gpu_chunk2sparse_csc_create", "matrix", ARRAY, MATRIX,
                        "gpu csc create given a device array as its matrix");
    CHECK(csc == NULL, "no gpu csc handle");
    CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_from_lists((bslz4_gpu_chunk2sparse*)(void*)cpu, NULL, BSLZ4_ACC_F64, &csc),
                        "bslz4_gpu_chunk2sparse_csc_from_lists", "lists", SPARSE, GPU, "a gpu csc made from a cpu handle");
    CHECK(csc == NULL, "no gpu csc handle from a cpu handle");
}

void check_gpu_handle_classes(const reference_case* c, const unsigned char* chunk, size_t chunk_bytes) {
    const size_t n = c->ni * c->nj;
    unsigned char* mask = mask_of_ones(n);
    bslz4_chunk2sparse* cpu = NULL;
    bslz4_gpu_chunk2sparse* gpu = NULL;
    bslz4_gpu_chunk2sparse_csc* csc = NULL;
    bslz4_matrix* matrix = NULL;
    bslz4_device_array* array = NULL;
    bslz4_pinned_memory* pinned = NULL;
    bslz4_frame frame;
    bslz4_powder powder;
    uint64_t dptr = 0;
    size_t bytes = 0;
    void* data = NULL;
    CHECK_OK(row_sum_matrix(c->ni, c->nj, &matrix), "a matrix");
    CHECK_OK(bslz4_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &cpu), "a cpu handle");
    CHECK_OK(bslz4_gpu_chunk2sparse_create(mask, n, c->ni, c->nj, c->pixel_type, NULL, &gpu), "a gpu handle");
    CHECK_OK(bslz4_gpu_chunk2sparse_csc_create(mask, n, c->ni, c->nj, c->pixel_type, matrix, BSLZ4_ACC_F64, NULL, &csc),
             "a gpu csc handle");
    CHECK_OK(bslz4_gpu_device_buffer_create(chunk, chunk_bytes, 0, &array), "a device array");
    CHECK_OK(bslz4_gpu_pinned_memory_create(chunk_bytes, 0, &pinned), "pinned memory");
    if (cpu && gpu && csc && matrix && array && pinned && bslz4_device_array_pointer(array, &dptr) == BSLZ4_OK) {
        check_gpu_csc_given_gpu(gpu, chunk, chunk_bytes, dptr);
        check_gpu_given_gpu_csc(csc, chunk, chunk_bytes, dptr);
        check_array_and_pinned(array, pinned);
        check_across(cpu, gpu, array, c, mask, chunk, chunk_bytes);
        /* Refused calls touched nothing: each works as its own class. */
        CHECK_OK(bslz4_gpu_chunk2sparse_call(gpu, chunk, chunk_bytes, 1.0, &frame),
                 "the gpu handle works after being refused elsewhere");
        CHECK_OK(bslz4_gpu_chunk2sparse_csc_call(csc, chunk, chunk_bytes, 1.0, &frame, &powder),
                 "the gpu csc handle works after being refused elsewhere");
        CHECK_OK(bslz4_device_array_bytes(array, &bytes), "the device array works after being refused elsewhere");
        CHECK(bytes == chunk_bytes, "and has its size");
        CHECK_OK(bslz4_pinned_memory_data(pinned, &data, &bytes, NULL), "the pinned memory works after being refused elsewhere");
        CHECK(data != NULL && bytes == chunk_bytes, "and has its size");
    }
    CHECK_OK(bslz4_pinned_memory_destroy(pinned), "pinned memory destroyed as its own class");
    CHECK_OK(bslz4_device_array_destroy(array), "the device array destroyed as its own class");
    CHECK_OK(bslz4_gpu_chunk2sparse_csc_destroy(csc), "the gpu csc handle destroyed as its own class");
    CHECK_OK(bslz4_gpu_chunk2sparse_destroy(gpu), "the gpu handle destroyed as its own class");
    CHECK_OK(bslz4_chunk2sparse_destroy(cpu), "the cpu handle destroyed as its own class");
    CHECK_OK(bslz4_matrix_destroy(matrix), "the matrix destroyed as its own class");
    free(mask);
}

void check_gpu_handle_classes_without_gpu(int built_without_gpu) {
    unsigned char mask[4] = {1, 1, 1, 1};
    bslz4_chunk2sparse* cpu = NULL;
    bslz4_gpu_chunk2sparse_csc* csc = NULL;
    bslz4_matrix* matrix = NULL;
    bslz4_frame frame;
    size_t bytes = 0;
    void* data = NULL;
    CHECK_OK(bslz4_chunk2sparse_create(mask, 4, 2, 2, BSLZ4_U16, NULL, &cpu), "a cpu handle");
    CHECK_OK(row_sum_matrix(2, 2, &matrix), "a matrix");
    if (!cpu || !matrix) return;
    if (built_without_gpu) {
        CHECK_FAILS(bslz4_gpu_chunk2sparse_call((bslz4_gpu_chunk2sparse*)(void*)cpu, mask, 4, 1.0, &frame),
                    BSLZ4_E_NO_GPU_SUPPORT, "bslz4_gpu_chunk2sparse_call",
                    "a cpu handle given to a gpu function of a library without the GPU runtime");
        CHECK_FAILS(bslz4_gpu_chunk2sparse_csc_from_lists((bslz4_gpu_chunk2sparse*)(void*)cpu, matrix, BSLZ4_ACC_F64, &csc),
                    BSLZ4_E_NO_GPU_SUPPORT, "bslz4_gpu_chunk2sparse_csc_from_lists",
                    "a gpu csc from lists in a library without the GPU runtime");
        CHECK(csc == NULL, "no gpu csc handle");
    } else {
        CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_csc_from_lists((bslz4_gpu_chunk2sparse*)(void*)cpu, matrix, BSLZ4_ACC_F64,
                                                                  &csc),
                            "bslz4_gpu_chunk2sparse_csc_from_lists", "lists", SPARSE, GPU,
                            "a gpu csc made from a cpu handle, refused without a device");
        CHECK(csc == NULL, "no gpu csc handle");
        CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_call((bslz4_gpu_chunk2sparse*)(void*)cpu, mask, 4, 1.0, &frame),
                            "bslz4_gpu_chunk2sparse_call", "handle", SPARSE, GPU,
                            "gpu call given a cpu handle, refused without a device");
        CHECK_CLASS_REFUSED(bslz4_gpu_chunk2sparse_destroy((bslz4_gpu_chunk2sparse*)(void*)cpu),
                            "bslz4_gpu_chunk2sparse_destroy", "handle", SPARSE, GPU,
                            "gpu destroy given a cpu handle (not freed as a gpu handle)");
        CHECK_CLASS_REFUSED(bslz4_device_array_bytes((const bslz4_device_array*)(const void*)matrix, &bytes),
                            "bslz4_device_array_bytes", "array", MATRIX, ARRAY, "device array bytes of a matrix");
        CHECK_CLASS_REFUSED(bslz4_pinned_memory_data((const bslz4_pinned_memory*)(const void*)cpu, &data, &bytes, NULL),
                            "bslz4_pinned_memory_data", "memory", SPARSE, PINNED, "pinned memory data of a cpu handle");
    }
    CHECK_OK(bslz4_chunk2sparse_call(cpu, mask, 0, 1.0, &frame) == BSLZ4_E_TRUNCATED_CHUNK ? BSLZ4_OK : -1,
             "the cpu handle still answers as its own class");
    bslz4_chunk2sparse_destroy(cpu);
    bslz4_matrix_destroy(matrix);
}
