// bslz4_chunk2sparse: the CPU Chunk2Sparse behind C functions.
#include "bslz4/bslz4.h"
#include "bslz4/chunk2sparse.hpp"
#include "c_options.hpp"
#include "c_sparse_calls.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

struct bslz4_chunk2sparse : Handle<Chunk2Sparse, false, HandleClass::chunk2sparse> {
    using Handle::Handle;
};

int bslz4_chunk2sparse_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj, int pixel_type,
                              const bslz4_options* options, bslz4_chunk2sparse** handle) {
    return create_call("bslz4_chunk2sparse_create", handle, [&] {
        return new bslz4_chunk2sparse(mask_of(mask, mask_bytes, ni, nj), ni, nj, pixel_type_from(pixel_type),
                                      cpu_options(options));
    });
}

int bslz4_chunk2sparse_destroy(bslz4_chunk2sparse* handle) {
    return destroy_call("bslz4_chunk2sparse_destroy", handle, "handle");
}

int bslz4_chunk2sparse_call(bslz4_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                            bslz4_frame* frame) {
    return frame_call("bslz4_chunk2sparse_call", handle, chunk, chunk_bytes, cut, frame, nullptr);
}

int bslz4_chunk2sparse_multi(bslz4_chunk2sparse* handle, const void* const* chunks, const size_t* chunk_bytes,
                             size_t nchunks, double cut, bslz4_batch* batch) {
    return multi_call("bslz4_chunk2sparse_multi", handle, chunks, chunk_bytes, nchunks, cut, batch, nullptr);
}

int bslz4_chunk2sparse_from_buffer(bslz4_chunk2sparse* handle, const void* base, size_t base_bytes,
                                   const uint64_t* offsets, const uint64_t* lengths, size_t nchunks, double cut,
                                   bslz4_batch* batch) {
    return from_buffer_call("bslz4_chunk2sparse_from_buffer", handle, base, base_bytes, offsets, lengths, nchunks, cut,
                            batch, nullptr);
}

int bslz4_chunk2sparse_coo(bslz4_chunk2sparse* handle, const void* chunk, size_t chunk_bytes, double cut,
                           bslz4_coo* coo) {
    return coo_call("bslz4_chunk2sparse_coo", handle, chunk, chunk_bytes, cut, coo, nullptr);
}

int bslz4_chunk2sparse_from_frames(bslz4_chunk2sparse* handle, const void* const* frames, const size_t* frame_bytes,
                                   size_t nframes, double cut, bslz4_batch* batch) {
    return from_frames_call("bslz4_chunk2sparse_from_frames", handle, frames, frame_bytes, nframes, cut, batch, nullptr);
}

int bslz4_chunk2sparse_set_top_pixels(bslz4_chunk2sparse* handle, size_t howmany, const double* thresholds,
                                      size_t nthresholds) {
    return set_top_pixels_call("bslz4_chunk2sparse_set_top_pixels", handle, howmany, thresholds, nthresholds);
}

int bslz4_chunk2sparse_info(const bslz4_chunk2sparse* handle, size_t* ni, size_t* nj, int* pixel_type,
                            unsigned* threads) {
    return guarded("bslz4_chunk2sparse_info", [&] {
        const InCall in_call(handle);
        if (ni) *ni = handle->engine.ni();
        if (nj) *nj = handle->engine.nj();
        if (pixel_type) *pixel_type = pixel_type_to_c(handle->engine.pixel_type());
        if (threads) *threads = handle->engine.threads();
        return BSLZ4_OK;
    });
}
