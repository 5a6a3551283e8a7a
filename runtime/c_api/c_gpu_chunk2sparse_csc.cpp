// bslz4_gpu_chunk2sparse_csc: the GPU Chunk2SparseCSC (lists and powders) behind C functions.
#include "bslz4/bslz4.h"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "c_device_array.hpp"
#include "c_gpu_lists_handle.hpp"
#include "c_gpu_setup.hpp"
#include "c_in_call.hpp"
#include "c_matrix.hpp"
#include "c_sparse_calls.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

using GpuCSC = cuda::Chunk2SparseCSC;

struct bslz4_gpu_chunk2sparse_csc : Handle<GpuCSC, true, HandleClass::gpu_chunk2sparse_csc> {
    using Handle::Handle;
};

int bslz4_gpu_chunk2sparse_csc_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj, int pixel_type,
                                      const bslz4_matrix* matrix, int acc, const bslz4_options* options,
                                      bslz4_gpu_chunk2sparse_csc** handle) {
    return create_call("bslz4_gpu_chunk2sparse_csc_create", handle, [&] {
        const ByteView m = mask_of(mask, mask_bytes, ni, nj);
        const PixelType t = pixel_type_from(pixel_type);
        const IntegrationMatrix& x = matrix_of(matrix);
        const Accumulator a = accumulator_from(acc);
        const cuda::Chunk2SparseOptions o = gpu_options(options);
        require_gpu();
        return new bslz4_gpu_chunk2sparse_csc(m, ni, nj, t, x, a, o);
    });
}

int bslz4_gpu_chunk2sparse_csc_from_lists(bslz4_gpu_chunk2sparse* lists, const bslz4_matrix* matrix, int acc,
                                          bslz4_gpu_chunk2sparse_csc** handle) {
    return create_call("bslz4_gpu_chunk2sparse_csc_from_lists", handle, [&] {
        const InCall in_call(lists, "lists");  // no other thread in a call on the lists handle while its engine moves
        const IntegrationMatrix& x = matrix_of(matrix);
        const Accumulator a = accumulator_from(acc);
        // A throw leaves the lists engine where it was; after success, calls on the lists handle
        // are refused by the moved-from engine (live_engine).
        return new bslz4_gpu_chunk2sparse_csc(std::move(lists->engine), x, a);
    });
}

int bslz4_gpu_chunk2sparse_csc_destroy(bslz4_gpu_chunk2sparse_csc* handle) {
    return destroy_call("bslz4_gpu_chunk2sparse_csc_destroy", handle, "handle");
}

int bslz4_gpu_chunk2sparse_csc_call(bslz4_gpu_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes,
                                    double cut, bslz4_frame* frame, bslz4_powder* powder) {
    return frame_call("bslz4_gpu_chunk2sparse_csc_call", handle, chunk, chunk_bytes, cut, frame, powder);
}

int bslz4_gpu_chunk2sparse_csc_multi(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                     const size_t* chunk_bytes, size_t nchunks, double cut, bslz4_batch* batch,
                                     bslz4_powder* powder) {
    return multi_call("bslz4_gpu_chunk2sparse_csc_multi", handle, chunks, chunk_bytes, nchunks, cut, batch, powder);
}

int bslz4_gpu_chunk2sparse_csc_from_buffer(bslz4_gpu_chunk2sparse_csc* handle, const void* base, size_t base_bytes,
                                           const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                           double cut, bslz4_batch* batch, bslz4_powder* powder) {
    return from_buffer_call("bslz4_gpu_chunk2sparse_csc_from_buffer", handle, base, base_bytes, offsets, lengths,
                            nchunks, cut, batch, powder);
}

int bslz4_gpu_chunk2sparse_csc_coo(bslz4_gpu_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes,
                                   double cut, bslz4_coo* coo, bslz4_powder* powder) {
    return coo_call("bslz4_gpu_chunk2sparse_csc_coo", handle, chunk, chunk_bytes, cut, coo, powder);
}

int bslz4_gpu_chunk2sparse_csc_from_device(bslz4_gpu_chunk2sparse_csc* handle, uint64_t device_pointer,
                                           const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                           double cut, bslz4_batch* batch, bslz4_powder* powder) {
    return from_device_call("bslz4_gpu_chunk2sparse_csc_from_device", handle, device_pointer, offsets, lengths, nchunks,
                            cut, batch, powder);
}

int bslz4_gpu_chunk2sparse_csc_integrate(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                         const size_t* chunk_bytes, size_t nchunks, bslz4_device_array** powders) {
    return device_array_call("bslz4_gpu_chunk2sparse_csc_integrate", handle, powders, [&](GpuCSC& e) {
        return e.integrate(views_of(chunks, chunk_bytes, nchunks, "chunks"));
    });
}

int bslz4_gpu_chunk2sparse_csc_integrate_from_device(bslz4_gpu_chunk2sparse_csc* handle, uint64_t device_pointer,
                                                     const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                     bslz4_device_array** powders) {
    return device_array_call("bslz4_gpu_chunk2sparse_csc_integrate_from_device", handle, powders, [&](GpuCSC& e) {
        return e.integrate_from_device(device_pointer, values_of(offsets, nchunks, "offsets"),
                                       values_of(lengths, nchunks, "lengths"));
    });
}

int bslz4_gpu_chunk2sparse_csc_decompress(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                          const size_t* chunk_bytes, size_t nchunks, bslz4_device_array** frames) {
    return device_array_call("bslz4_gpu_chunk2sparse_csc_decompress", handle, frames, [&](GpuCSC& e) {
        return e.decompress(views_of(chunks, chunk_bytes, nchunks, "chunks"));
    });
}

int bslz4_gpu_chunk2sparse_csc_decompress_from_device(bslz4_gpu_chunk2sparse_csc* handle, uint64_t device_pointer,
                                                      const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                      bslz4_device_array** frames) {
    return device_array_call("bslz4_gpu_chunk2sparse_csc_decompress_from_device", handle, frames, [&](GpuCSC& e) {
        return e.decompress_from_device(device_pointer, values_of(offsets, nchunks, "offsets"),
                                        values_of(lengths, nchunks, "lengths"));
    });
}

int bslz4_gpu_chunk2sparse_csc_set_top_pixels(bslz4_gpu_chunk2sparse_csc* handle, size_t howmany,
                                              const double* thresholds, size_t nthresholds) {
    return set_top_pixels_call("bslz4_gpu_chunk2sparse_csc_set_top_pixels", handle, howmany, thresholds, nthresholds);
}

int bslz4_gpu_chunk2sparse_csc_reserve(bslz4_gpu_chunk2sparse_csc* handle, size_t frames, size_t chunk_bytes) {
    return reserve_call("bslz4_gpu_chunk2sparse_csc_reserve", handle, frames, chunk_bytes);
}

int bslz4_gpu_chunk2sparse_csc_last_host(const bslz4_gpu_chunk2sparse_csc* handle, size_t* frames) {
    return handle_query("bslz4_gpu_chunk2sparse_csc_last_host", handle, frames,
                        [](const GpuCSC& e) { return e.last_host(); });
}

int bslz4_gpu_chunk2sparse_csc_cap(const bslz4_gpu_chunk2sparse_csc* handle, size_t* pixels) {
    return handle_query("bslz4_gpu_chunk2sparse_csc_cap", handle, pixels, [](const GpuCSC& e) { return e.cap(); });
}

int bslz4_gpu_chunk2sparse_csc_info(const bslz4_gpu_chunk2sparse_csc* handle, unsigned* batch, unsigned* group,
                                    size_t* bins, int* acc) {
    return guarded("bslz4_gpu_chunk2sparse_csc_info", [&] {
        const InCall in_call(handle);
        if (batch) *batch = handle->engine.batch();
        if (group) *group = handle->engine.group();
        if (bins) *bins = handle->engine.bins();
        if (acc) *acc = accumulator_to_c(handle->engine.acc());
        return BSLZ4_OK;
    });
}

int bslz4_gpu_chunk2sparse_csc_time_on_device(bslz4_gpu_chunk2sparse_csc* handle, const void* const* chunks,
                                              const size_t* chunk_bytes, size_t nchunks, double cut, unsigned repeats,
                                              double* seconds) {
    return time_on_device_call("bslz4_gpu_chunk2sparse_csc_time_on_device", handle, chunks, chunk_bytes, nchunks, cut, repeats, seconds);
}
