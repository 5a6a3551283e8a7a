// The calls every decoder class of the module shares (CPU and GPU, with and without a matrix),
// written once over the C++ class: arguments converted with the GIL held, the decoding and the
// lists written into the Python object's arrays without it, one call at a time per object.
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "batch_outputs.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/error.hpp"
#include "call_guard.hpp"
#include "chunk_buffers.hpp"

namespace bslz4::python {

// A C++ decoder object and what its results' arrays look like. The C++ classes keep their
// results in their own buffers, so two calls at once on one object would overwrite each other:
// a second thread's call is refused (as the GPU classes refuse it), never serialised.
template <class Engine>
struct EngineHandle {
    template <class... Args>
    EngineHandle(std::size_t pixels_, std::size_t pixel_bytes_, std::size_t powder_row_bytes_, Args&&... args)
        : engine(std::forward<Args>(args)...), pixels(pixels_), pixel_bytes(pixel_bytes_), powder_row_bytes(powder_row_bytes_) {}

    Engine engine;
    std::size_t pixels, pixel_bytes, powder_row_bytes;
    std::atomic<std::thread::id> busy{};  // the thread in a call (call_guard.hpp)
};

// The library's one guard (call_guard.hpp), over the whole call: the conversion of the results
// into the object's arrays is the call's too.
using bslz4::detail::CallGuard;

inline void write_results(const BatchOutputs& out, const SparseBatch& batch, double cut) { out.write(batch, cut); }
inline void write_results(const BatchOutputs& out, const IntegratedBatch& batch, double cut) {
    out.write(batch.sparse, cut);
    out.write(batch.powder);
}

// Byte offsets or lengths: a 1-D sequence of integers >= 0.
inline std::vector<std::uint64_t> byte_positions(const pybind11::handle& obj, const char* what) {
    auto a = pybind11::array_t<std::int64_t, pybind11::array::c_style | pybind11::array::forcecast>::ensure(obj);
    if (!a || a.ndim() != 1)
        throw Error(ErrorCode::bad_argument, std::string(what) + ": expected a 1-D sequence of integers");
    std::vector<std::uint64_t> out(static_cast<std::size_t>(a.size()));
    const std::int64_t* p = a.data();
    for (std::size_t k = 0; k < out.size(); ++k) {
        if (p[k] < 0)
            throw Error(ErrorCode::bad_argument, std::string(what) + "[" + std::to_string(k) + "] is negative");
        out[k] = static_cast<std::uint64_t>(p[k]);
    }
    return out;
}

template <class Handle>
void run_multi(Handle& h, const pybind11::handle& chunks, double cut, const pybind11::tuple& out) {
    HeldBuffers held;
    const std::vector<ByteView> views = held.hold_each(chunks, "chunks");
    BatchOutputs outputs(out, views.size(), h.pixels, h.pixel_bytes, h.powder_row_bytes);
    pybind11::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    write_results(outputs, h.engine.multi(views, cut, outputs.rows()), cut);
}

template <class Handle>
void run_from_buffer(Handle& h, const pybind11::handle& base, const pybind11::handle& offsets,
                     const pybind11::handle& lengths, double cut, const pybind11::tuple& out) {
    HeldBuffers held;
    const ByteView bytes = held.hold(base, "base");
    const std::vector<std::uint64_t> offs = byte_positions(offsets, "offsets");
    const std::vector<std::uint64_t> lens = byte_positions(lengths, "lengths");
    if (offs.empty()) throw Error(ErrorCode::bad_argument, "from_buffer: no chunks were given");
    BatchOutputs outputs(out, offs.size(), h.pixels, h.pixel_bytes, h.powder_row_bytes);
    pybind11::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    write_results(outputs, h.engine.from_buffer(bytes, offs, lens, cut, outputs.rows()), cut);
}

template <class Handle>
void set_top_pixels(Handle& h, std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    pybind11::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    h.engine.set_top_pixels(howmany, std::move(thresholds));
}

}  // namespace bslz4::python
