// bslz4_chunk2sparse_csc: the CPU Chunk2SparseCSC (lists and powders) behind C functions.
#include "bslz4/bslz4.h"
#include "bslz4/chunk2sparse_csc.hpp"
#include "c_matrix.hpp"
#include "c_options.hpp"
#include "c_sparse_calls.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

struct bslz4_chunk2sparse_csc : Handle<Chunk2SparseCSC, true, HandleClass::chunk2sparse_csc> {
    using Handle::Handle;
};

int bslz4_chunk2sparse_csc_create(const uint8_t* mask, size_t mask_bytes, size_t ni, size_t nj, int pixel_type,
                                  const bslz4_matrix* matrix, int acc, const bslz4_options* options,
                                  bslz4_chunk2sparse_csc** handle) {
    return create_call("bslz4_chunk2sparse_csc_create", handle, [&] {
        return new bslz4_chunk2sparse_csc(mask_of(mask, mask_bytes, ni, nj), ni, nj, pixel_type_from(pixel_type),
                                          matrix_of(matrix), accumulator_from(acc), cpu_options(options));
    });
}

int bslz4_chunk2sparse_csc_destroy(bslz4_chunk2sparse_csc* handle) {
    return destroy_call("bslz4_chunk2sparse_csc_destroy", handle, "handle");
}

int bslz4_chunk2sparse_csc_call(bslz4_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes, double cut,
                                bslz4_frame* frame, bslz4_powder* powder) {
    return frame_call("bslz4_chunk2sparse_csc_call", handle, chunk, chunk_bytes, cut, frame, powder);
}

int bslz4_chunk2sparse_csc_multi(bslz4_chunk2sparse_csc* handle, const void* const* chunks, const size_t* chunk_bytes,
                                 size_t nchunks, double cut, bslz4_batch* batch, bslz4_powder* powder) {
    return multi_call("bslz4_chunk2sparse_csc_multi", handle, chunks, chunk_bytes, nchunks, cut, batch, powder);
}

int bslz4_chunk2sparse_csc_from_buffer(bslz4_chunk2sparse_csc* handle, const void* base, size_t base_bytes,
                                       const uint64_t* offsets, const uint64_t* lengths, size_t nchunks, double cut,
                                       bslz4_batch* batch, bslz4_powder* powder) {
    return from_buffer_call("bslz4_chunk2sparse_csc_from_buffer", handle, base, base_bytes, offsets, lengths, nchunks,
                            cut, batch, powder);
}

int bslz4_chunk2sparse_csc_coo(bslz4_chunk2sparse_csc* handle, const void* chunk, size_t chunk_bytes, double cut,
                               bslz4_coo* coo, bslz4_powder* powder) {
    return coo_call("bslz4_chunk2sparse_csc_coo", handle, chunk, chunk_bytes, cut, coo, powder);
}

int bslz4_chunk2sparse_csc_from_frames(bslz4_chunk2sparse_csc* handle, const void* const* frames,
                                       const size_t* frame_bytes, size_t nframes, double cut, bslz4_batch* batch,
                                       bslz4_powder* powder) {
    return from_frames_call("bslz4_chunk2sparse_csc_from_frames", handle, frames, frame_bytes, nframes, cut, batch,
                            powder);
}

int bslz4_chunk2sparse_csc_set_top_pixels(bslz4_chunk2sparse_csc* handle, size_t howmany, const double* thresholds,
                                          size_t nthresholds) {
    return set_top_pixels_call("bslz4_chunk2sparse_csc_set_top_pixels", handle, howmany, thresholds, nthresholds);
}

int bslz4_chunk2sparse_csc_info(const bslz4_chunk2sparse_csc* handle, size_t* bins, int* acc) {
    return guarded("bslz4_chunk2sparse_csc_info", [&] {
        const InCall in_call(handle);
        if (bins) *bins = handle->engine.bins();
        if (acc) *acc = accumulator_to_c(handle->engine.acc());
        return BSLZ4_OK;
    });
}
