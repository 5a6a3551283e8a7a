// bslz4_gpu_chunk2sparse: the GPU Chunk2Sparse behind C functions.
#include "bslz4/bslz4.h"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "c_device_array.hpp"
#include "c_gpu_lists_handle.hpp"
#include "c_gpu_setup.hpp"
#include "c_sparse_calls.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

int bslz4_gpu_chunk2sparse_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj, int pixel_type,
                                  const bslz4_options* options, bslz4_gpu_chunk2sparse** handle) {
    return create_call("bslz4_gpu_chunk2sparse_create", handle, [&] {
        const ByteView m = mask_of(mask, mask_bytes, ni, nj);
        const PixelType t = pixel_type_from(pixel_type);
        const cuda::Chunk2SparseOptions o = gpu_options(options);
        require_gpu();
        return new bslz4_gpu_chunk2sparse(m, ni, nj, t, o);
    });
}

int bslz4_gpu_chunk2sparse_destroy(bslz4_gpu_chunk2sparse* handle) {
    return destroy_call("bslz4_gpu_chunk2sparse_destroy", handle, "handle");
}

int bslz4_gpu_chunk2sparse_call(bslz4_gpu_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                                bslz4_frame* frame) {
    return frame_call("bslz4_gpu_chunk2sparse_call", handle, chunk, chunk_bytes, cut, frame, nullptr);
}

int bslz4_gpu_chunk2sparse_multi(bslz4_gpu_chunk2sparse* handle, const void* const* chunks, const size_t* chunk_bytes,
                                 size_t nchunks, double cut, bslz4_batch* batch) {
    return multi_call("bslz4_gpu_chunk2sparse_multi", handle, chunks, chunk_bytes, nchunks, cut, batch, nullptr);
}

int bslz4_gpu_chunk2sparse_from_buffer(bslz4_gpu_chunk2sparse* handle, const void* base, size_t base_bytes,
                                       const uint64_t* offsets, const uint64_t* lengths, size_t nchunks, double cut,
                                       bslz4_batch* batch) {
    return from_buffer_call("bslz4_gpu_chunk2sparse_from_buffer", handle, base, base_bytes, offsets, lengths, nchunks,
                            cut, batch, nullptr);
}

int bslz4_gpu_chunk2sparse_coo(bslz4_gpu_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                               bslz4_coo* coo) {
    return coo_call("bslz4_gpu_chunk2sparse_coo", handle, chunk, chunk_bytes, cut, coo, nullptr);
}

int bslz4_gpu_chunk2sparse_from_device(bslz4_gpu_chunk2sparse* handle, uint64_t device_pointer,
                                       const uint64_t* offsets, const uint64_t* lengths, size_t nchunks, double cut,
                                       bslz4_batch* batch) {
    return from_device_call("bslz4_gpu_chunk2sparse_from_device", handle, device_pointer, offsets, lengths, nchunks, cut,
                            batch, nullptr);
}

int bslz4_gpu_chunk2sparse_decompress(bslz4_gpu_chunk2sparse* handle, const void* const* chunks,
                                      const size_t* chunk_bytes, size_t nchunks, bslz4_device_array** frames) {
    return device_array_call("bslz4_gpu_chunk2sparse_decompress", handle, frames, [&](cuda::Chunk2Sparse& e) {
        return e.decompress(views_of(chunks, chunk_bytes, nchunks, "chunks"));
    });
}

int bslz4_gpu_chunk2sparse_decompress_from_device(bslz4_gpu_chunk2sparse* handle, uint64_t device_pointer,
                                                  const uint64_t* offsets, const uint64_t* lengths, size_t nchunks,
                                                  bslz4_device_array** frames) {
    return device_array_call("bslz4_gpu_chunk2sparse_decompress_from_device", handle, frames, [&](cuda::Chunk2Sparse& e) {
        return e.decompress_from_device(device_pointer, values_of(offsets, nchunks, "offsets"),
                                        values_of(lengths, nchunks, "lengths"));
    });
}

int bslz4_gpu_chunk2sparse_set_top_pixels(bslz4_gpu_chunk2sparse* handle, size_t howmany, const double* thresholds,
                                          size_t nthresholds) {
    return set_top_pixels_call("bslz4_gpu_chunk2sparse_set_top_pixels", handle, howmany, thresholds, nthresholds);
}

int bslz4_gpu_chunk2sparse_reserve(bslz4_gpu_chunk2sparse* handle, size_t frames, size_t chunk_bytes) {
    return reserve_call("bslz4_gpu_chunk2sparse_reserve", handle, frames, chunk_bytes);
}

int bslz4_gpu_chunk2sparse_last_host(const bslz4_gpu_chunk2sparse* handle, size_t* frames) {
    return handle_query("bslz4_gpu_chunk2sparse_last_host", handle, frames,
                        [](const cuda::Chunk2Sparse& e) { return e.last_host(); });
}

int bslz4_gpu_chunk2sparse_cap(const bslz4_gpu_chunk2sparse* handle, size_t* pixels) {
    return handle_query("bslz4_gpu_chunk2sparse_cap", handle, pixels, [](const cuda::Chunk2Sparse& e) { return e.cap(); });
}

int bslz4_gpu_chunk2sparse_info(const bslz4_gpu_chunk2sparse* handle, unsigned* batch, unsigned* group, int* device) {
    return guarded("bslz4_gpu_chunk2sparse_info", [&] {
        const InCall in_call(handle);
        if (batch) *batch = handle->engine.batch();
        if (group) *group = handle->engine.group();
        if (device) *device = handle->engine.device();
        return BSLZ4_OK;
    });
}

int bslz4_gpu_chunk2sparse_time_on_device(bslz4_gpu_chunk2sparse* handle, const void* const* chunks,
                                          const size_t* chunk_bytes, size_t nchunks, double cut, unsigned repeats,
                                          double* seconds) {
    return time_on_device_call("bslz4_gpu_chunk2sparse_time_on_device", handle, chunks, chunk_bytes, nchunks, cut, repeats, seconds);
}
