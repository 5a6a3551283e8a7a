// The calls the four classes share (operator(), multi, from_buffer, coo, from_frames,
// from_device, set_top_pixels), written once over the handle: each C function of a class is
// one of these templates with its own name for the messages.
#pragma once
#include <atomic>
#include <thread>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <utility>

#include "bslz4/bslz4.h"
#include "c_arguments.hpp"
#include "c_handle_class.hpp"
#include "c_in_call.hpp"
#include "c_results.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

// A C handle of class C: the C++ object and what it lends to C until its next call.
// Integrates: the class also gives powders (the CSC classes), so their calls need a
// bslz4_powder to fill.
template <class Engine, bool Integrates, HandleClass C>
struct Handle : Tagged<C> {
    static constexpr bool integrates = Integrates;
    Engine engine;
    LentResults lent;
    mutable std::atomic<std::thread::id> busy{};  // the thread in a call: see InCall (c_in_call.hpp)
    template <class... Args>
    explicit Handle(Args&&... args) : engine(std::forward<Args>(args)...) {}
};

template <class H>
void require_results(const void* result, const bslz4_powder* powder) {
    require(result, "result");
    if (H::integrates) require(powder, "powder");
}

template <class H, class Result>
int frame_call(const char* function, H* h, const void* chunk, std::size_t chunk_bytes, double cut, Result* result,
               bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require(chunk, "chunk");
        require_results<H>(result, powder);
        lend(h->engine(bytes_at(chunk, chunk_bytes, "chunk"), cut), h->lent, result, powder);
        return BSLZ4_OK;
    });
}

template <class H, class Result>
int coo_call(const char* function, H* h, const void* chunk, std::size_t chunk_bytes, double cut, Result* result,
             bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require(chunk, "chunk");
        require_results<H>(result, powder);
        lend(h->engine.coo(bytes_at(chunk, chunk_bytes, "chunk"), cut), h->lent, result, powder);
        return BSLZ4_OK;
    });
}

template <class H>
int multi_call(const char* function, H* h, const void* const* chunks, const std::size_t* chunk_bytes,
               std::size_t nchunks, double cut, bslz4_batch* batch, bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require_results<H>(batch, powder);
        lend(h->engine.multi(views_of(chunks, chunk_bytes, nchunks, "chunks"), cut), h->lent, batch, powder);
        return BSLZ4_OK;
    });
}

template <class H>
int from_frames_call(const char* function, H* h, const void* const* frames, const std::size_t* frame_bytes,
                     std::size_t nframes, double cut, bslz4_batch* batch, bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require_results<H>(batch, powder);
        lend(h->engine.from_frames(views_of(frames, frame_bytes, nframes, "frames"), cut), h->lent, batch, powder);
        return BSLZ4_OK;
    });
}

template <class H>
int from_buffer_call(const char* function, H* h, const void* base, std::size_t base_bytes, const std::uint64_t* offsets,
                     const std::uint64_t* lengths, std::size_t nchunks, double cut, bslz4_batch* batch,
                     bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require_results<H>(batch, powder);
        lend(h->engine.from_buffer(bytes_at(base, base_bytes, "base"), values_of(offsets, nchunks, "offsets"),
                                   values_of(lengths, nchunks, "lengths"), cut),
             h->lent, batch, powder);
        return BSLZ4_OK;
    });
}

template <class H>
int from_device_call(const char* function, H* h, std::uint64_t device_pointer, const std::uint64_t* offsets,
                     const std::uint64_t* lengths, std::size_t nchunks, double cut, bslz4_batch* batch,
                     bslz4_powder* powder) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require_results<H>(batch, powder);
        lend(h->engine.from_device(device_pointer, values_of(offsets, nchunks, "offsets"),
                                   values_of(lengths, nchunks, "lengths"), cut),
             h->lent, batch, powder);
        return BSLZ4_OK;
    });
}

template <class H>
int set_top_pixels_call(const char* function, H* h, std::size_t howmany, const double* thresholds,
                        std::size_t nthresholds) {
    return guarded(function, [&] {
        const InCall in_call(h);
        h->engine.set_top_pixels(howmany_from(howmany), thresholds_from(thresholds, nthresholds));
        return BSLZ4_OK;
    });
}

// The GPU classes' reserve and time_on_device.
template <class H>
int reserve_call(const char* function, H* h, std::size_t frames, std::size_t chunk_bytes) {
    return guarded(function, [&] {
        const InCall in_call(h);
        h->engine.reserve(checked_count<const void*>(frames, "frames"), checked_bytes(chunk_bytes, "chunk_bytes"));
        return BSLZ4_OK;
    });
}

template <class H>
int time_on_device_call(const char* function, H* h, const void* const* chunks, const std::size_t* chunk_bytes,
                        std::size_t nchunks, double cut, unsigned repeats, double* seconds) {
    return guarded(function, [&] {
        const InCall in_call(h);
        require(seconds, "seconds");
        *seconds = h->engine.time_on_device(views_of(chunks, chunk_bytes, nchunks, "chunks"), cut, repeats);
        return BSLZ4_OK;
    });
}

// *handle = make()'s new handle, or NULL when making it failed.
template <class H, class Make>
int create_call(const char* function, H** handle, Make&& make) {
    return guarded(function, [&] {
        require(handle, "handle");
        *handle = nullptr;
        *handle = make();
        return BSLZ4_OK;
    });
}

}  // namespace bslz4::c_api
