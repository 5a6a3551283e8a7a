// Lent views read and copied into the caller's buffers, sizes checked: bslz4_batch_frame,
// bslz4_frame_copy, bslz4_coo_copy, bslz4_powder_copy, bslz4_powder_value.
#include <cstring>
#include <limits>
#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/powder.hpp"
#include "c_arguments.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

namespace {

void check_room(std::size_t needed, std::size_t given, const char* what) {
    if (needed > given)
        throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, std::string(what) + ": room for " + std::to_string(given) + ", " +
                                                     std::to_string(needed) + " needed");
}

Powder powder_of(const bslz4_powder* p) {
    require(p, "powder");
    return Powder{p->nframes, p->bins, accumulator_from(p->acc), p->data, p->powder_scale};
}

}  // namespace

int bslz4_batch_frame(const bslz4_batch* batch, size_t f, bslz4_frame* frame) {
    return guarded("bslz4_batch_frame", [&] {
        require(batch, "batch");
        require(frame, "frame");
        if (f >= batch->nframes)
            throw Error(ErrorCode::bad_argument, "frame " + std::to_string(f) + " of a batch of " + std::to_string(batch->nframes));
        const std::size_t bpp = pixel_size(pixel_type_from(batch->pixel_type));
        const std::size_t at = size_product(f, batch->row_length, "the frame's place in the batch");
        // Its values' and indices' byte offsets must not wrap either (a view's fields may be anything).
        size_product(at, bpp > sizeof(std::uint32_t) ? bpp : sizeof(std::uint32_t), "the frame's place in the batch");
        *frame = bslz4_frame{batch->npixels[f],
                             static_cast<const std::uint8_t*>(batch->values) + at * bpp,
                             batch->indices + at,
                             batch->pixel_type,
                             batch->last_cut ? batch->last_cut[f] : std::numeric_limits<double>::quiet_NaN(),
                             batch->last_nabove ? batch->last_nabove[f] : 0};
        return BSLZ4_OK;
    });
}

int bslz4_frame_copy(const bslz4_frame* frame, void* values, size_t values_bytes, uint32_t* indices,
                     size_t indices_capacity) {
    return guarded("bslz4_frame_copy", [&] {
        require(frame, "frame");
        checked_bytes(values_bytes, "values_bytes");
        checked_count<std::uint32_t>(indices_capacity, "indices_capacity");
        const std::size_t bytes = size_product(frame->npixels, pixel_size(pixel_type_from(frame->pixel_type)), "frame values");
        check_room(bytes, values_bytes, "values (bytes)");
        check_room(frame->npixels, indices_capacity, "indices");
        if (frame->npixels) {
            require(values, "values");
            require(indices, "indices");
            std::memcpy(values, frame->values, bytes);
            std::memcpy(indices, frame->indices, size_product(frame->npixels, sizeof(std::uint32_t), "frame indices"));
        }
        return BSLZ4_OK;
    });
}

int bslz4_coo_copy(const bslz4_coo* coo, uint32_t* row, uint32_t* col, size_t capacity, void* values,
                   size_t values_bytes) {
    return guarded("bslz4_coo_copy", [&] {
        require(coo, "coo");
        checked_count<std::uint32_t>(capacity, "capacity");
        checked_bytes(values_bytes, "values_bytes");
        const std::size_t bytes = size_product(coo->npixels, pixel_size(pixel_type_from(coo->pixel_type)), "coo values");
        check_room(coo->npixels, capacity, "row and col");
        check_room(bytes, values_bytes, "values (bytes)");
        if (coo->npixels) {
            require(row, "row");
            require(col, "col");
            require(values, "values");
            std::memcpy(row, coo->row, coo->npixels * sizeof(std::uint32_t));
            std::memcpy(col, coo->col, coo->npixels * sizeof(std::uint32_t));
            std::memcpy(values, coo->values, bytes);
        }
        return BSLZ4_OK;
    });
}

int bslz4_powder_copy(const bslz4_powder* powder, void* out, size_t out_bytes) {
    return guarded("bslz4_powder_copy", [&] {
        const Powder p = powder_of(powder);
        checked_bytes(out_bytes, "out_bytes");
        const std::size_t bytes = size_product(size_product(p.nframes, p.bins, "powder"), accumulator_size(p.acc), "powder");
        check_room(bytes, out_bytes, "out (bytes)");
        if (bytes) {
            require(out, "out");
            std::memcpy(out, p.data, bytes);
        }
        return BSLZ4_OK;
    });
}

int bslz4_powder_value(const bslz4_powder* powder, size_t f, size_t b, double* value) {
    return guarded("bslz4_powder_value", [&] {
        const Powder p = powder_of(powder);
        require(value, "value");
        if (f >= p.nframes || b >= p.bins)
            throw Error(ErrorCode::bad_argument, "frame " + std::to_string(f) + ", bin " + std::to_string(b) + " of a powder of " +
                                                     std::to_string(p.nframes) + " x " + std::to_string(p.bins));
        *value = p.value(f, b);
        return BSLZ4_OK;
    });
}
