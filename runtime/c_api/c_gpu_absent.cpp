// The GPU functions of a library built without the GPU runtime: each exists (the ABI does not
// depend on the build options) and says BSLZ4_E_NO_GPU_SUPPORT; bslz4_gpu_available answers 0.
#include "bslz4/bslz4.h"
#include "c_status.hpp"

namespace {
const char* const kNoGpuSupport = "this bslz4 was built without GPU support (-Dgpu=disabled, or no nvcc at build time)";

int no_gpu_support(const char* function) {
    return bslz4::c_api::fail(BSLZ4_E_NO_GPU_SUPPORT, function, kNoGpuSupport);
}
}  // namespace

int bslz4_gpu_available(int* available, const char** reason) {
    if (!available) return bslz4::c_api::fail(BSLZ4_E_BAD_ARGUMENT, "bslz4_gpu_available", "available is NULL");
    *available = 0;
    if (reason) *reason = kNoGpuSupport;
    return BSLZ4_OK;
}

int bslz4_gpu_device_count(int*) {
    return no_gpu_support("bslz4_gpu_device_count");
}

int bslz4_gpu_built_architectures(const char**) {
    return no_gpu_support("bslz4_gpu_built_architectures");
}

int bslz4_gpu_release_shared(void) {
    return no_gpu_support("bslz4_gpu_release_shared");
}

int bslz4_gpu_device_buffer_create(const void*, size_t, int, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_device_buffer_create");
}

int bslz4_device_array_destroy(bslz4_device_array*) {
    return BSLZ4_OK;  // nothing can have been made
}

int bslz4_device_array_pointer(const bslz4_device_array*, uint64_t*) {
    return no_gpu_support("bslz4_device_array_pointer");
}

int bslz4_device_array_bytes(const bslz4_device_array*, size_t*) {
    return no_gpu_support("bslz4_device_array_bytes");
}

int bslz4_device_array_device(const bslz4_device_array*, int*) {
    return no_gpu_support("bslz4_device_array_device");
}

int bslz4_device_array_shape(const bslz4_device_array*, size_t*, size_t, size_t*) {
    return no_gpu_support("bslz4_device_array_shape");
}

int bslz4_device_array_dtype(const bslz4_device_array*, const char**) {
    return no_gpu_support("bslz4_device_array_dtype");
}

int bslz4_device_array_copy_to_host(const bslz4_device_array*, void*, size_t) {
    return no_gpu_support("bslz4_device_array_copy_to_host");
}

int bslz4_device_array_to_dlpack(const bslz4_device_array*, void**) {
    return no_gpu_support("bslz4_device_array_to_dlpack");
}

int bslz4_gpu_chunk2sparse_create(const uint8_t*, size_t, size_t, size_t, int, const bslz4_options*, bslz4_gpu_chunk2sparse**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_create");
}

int bslz4_gpu_chunk2sparse_destroy(bslz4_gpu_chunk2sparse*) {
    return BSLZ4_OK;  // nothing can have been made
}

int bslz4_gpu_chunk2sparse_call(bslz4_gpu_chunk2sparse*, const void*, size_t, double, bslz4_frame*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_call");
}

int bslz4_gpu_chunk2sparse_multi(bslz4_gpu_chunk2sparse*, const void* const*, const size_t*, size_t, double, bslz4_batch*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_multi");
}

int bslz4_gpu_chunk2sparse_from_buffer(bslz4_gpu_chunk2sparse*, const void*, size_t, const uint64_t*, const uint64_t*, size_t, double, bslz4_batch*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_from_buffer");
}

int bslz4_gpu_chunk2sparse_coo(bslz4_gpu_chunk2sparse*, const void*, size_t, double, bslz4_coo*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_coo");
}

int bslz4_gpu_chunk2sparse_from_device(bslz4_gpu_chunk2sparse*, uint64_t, const uint64_t*, const uint64_t*, size_t, double, bslz4_batch*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_from_device");
}

int bslz4_gpu_chunk2sparse_decompress(bslz4_gpu_chunk2sparse*, const void* const*, const size_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_decompress");
}

int bslz4_gpu_chunk2sparse_decompress_from_device(bslz4_gpu_chunk2sparse*, uint64_t, const uint64_t*, const uint64_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_decompress_from_device");
}

int bslz4_gpu_chunk2sparse_set_top_pixels(bslz4_gpu_chunk2sparse*, size_t, const double*, size_t) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_set_top_pixels");
}

int bslz4_gpu_chunk2sparse_reserve(bslz4_gpu_chunk2sparse*, size_t, size_t) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_reserve");
}

int bslz4_gpu_chunk2sparse_last_host(const bslz4_gpu_chunk2sparse*, size_t*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_last_host");
}

int bslz4_gpu_chunk2sparse_cap(const bslz4_gpu_chunk2sparse*, size_t*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_cap");
}

int bslz4_gpu_chunk2sparse_csc_create(const uint8_t*, size_t, size_t, size_t, int, const bslz4_matrix*, int, const bslz4_options*, bslz4_gpu_chunk2sparse_csc**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_create");
}

int bslz4_gpu_chunk2sparse_csc_from_lists(bslz4_gpu_chunk2sparse*, const bslz4_matrix*, int, bslz4_gpu_chunk2sparse_csc**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_from_lists");
}

int bslz4_gpu_chunk2sparse_csc_destroy(bslz4_gpu_chunk2sparse_csc*) {
    return BSLZ4_OK;  // nothing can have been made
}

int bslz4_gpu_chunk2sparse_csc_call(bslz4_gpu_chunk2sparse_csc*, const void*, size_t, double, bslz4_frame*, bslz4_powder*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_call");
}

int bslz4_gpu_chunk2sparse_csc_multi(bslz4_gpu_chunk2sparse_csc*, const void* const*, const size_t*, size_t, double, bslz4_batch*, bslz4_powder*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_multi");
}

int bslz4_gpu_chunk2sparse_csc_from_buffer(bslz4_gpu_chunk2sparse_csc*, const void*, size_t, const uint64_t*, const uint64_t*, size_t, double, bslz4_batch*, bslz4_powder*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_from_buffer");
}

int bslz4_gpu_chunk2sparse_csc_coo(bslz4_gpu_chunk2sparse_csc*, const void*, size_t, double, bslz4_coo*, bslz4_powder*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_coo");
}

int bslz4_gpu_chunk2sparse_csc_from_device(bslz4_gpu_chunk2sparse_csc*, uint64_t, const uint64_t*, const uint64_t*, size_t, double, bslz4_batch*, bslz4_powder*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_from_device");
}

int bslz4_gpu_chunk2sparse_csc_integrate(bslz4_gpu_chunk2sparse_csc*, const void* const*, const size_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_integrate");
}

int bslz4_gpu_chunk2sparse_csc_integrate_from_device(bslz4_gpu_chunk2sparse_csc*, uint64_t, const uint64_t*, const uint64_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_integrate_from_device");
}

int bslz4_gpu_chunk2sparse_csc_decompress(bslz4_gpu_chunk2sparse_csc*, const void* const*, const size_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_decompress");
}

int bslz4_gpu_chunk2sparse_csc_decompress_from_device(bslz4_gpu_chunk2sparse_csc*, uint64_t, const uint64_t*, const uint64_t*, size_t, bslz4_device_array**) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_decompress_from_device");
}

int bslz4_gpu_chunk2sparse_csc_set_top_pixels(bslz4_gpu_chunk2sparse_csc*, size_t, const double*, size_t) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_set_top_pixels");
}

int bslz4_gpu_chunk2sparse_csc_reserve(bslz4_gpu_chunk2sparse_csc*, size_t, size_t) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_reserve");
}

int bslz4_gpu_chunk2sparse_csc_last_host(const bslz4_gpu_chunk2sparse_csc*, size_t*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_last_host");
}

int bslz4_gpu_chunk2sparse_csc_cap(const bslz4_gpu_chunk2sparse_csc*, size_t*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_cap");
}

int bslz4_gpu_pinned_memory_create(size_t, int, bslz4_pinned_memory**) {
    return no_gpu_support("bslz4_gpu_pinned_memory_create");
}

int bslz4_pinned_memory_destroy(bslz4_pinned_memory*) {
    return BSLZ4_OK;  // nothing can have been made
}

int bslz4_pinned_memory_data(const bslz4_pinned_memory*, void**, size_t*, int*) {
    return no_gpu_support("bslz4_pinned_memory_data");
}

int bslz4_gpu_chunk2sparse_info(const bslz4_gpu_chunk2sparse*, unsigned*, unsigned*, int*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_info");
}

int bslz4_gpu_chunk2sparse_time_on_device(bslz4_gpu_chunk2sparse*, const void* const*, const size_t*, size_t, double,
                                          unsigned, double*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_time_on_device");
}

int bslz4_gpu_chunk2sparse_csc_info(const bslz4_gpu_chunk2sparse_csc*, unsigned*, unsigned*, size_t*, int*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_info");
}

int bslz4_gpu_chunk2sparse_csc_time_on_device(bslz4_gpu_chunk2sparse_csc*, const void* const*, const size_t*, size_t,
                                              double, unsigned, double*) {
    return no_gpu_support("bslz4_gpu_chunk2sparse_csc_time_on_device");
}
