// The CPU classes (bslz4::Chunk2Sparse, bslz4::Chunk2SparseCSC) as the module's CpuLists and
// CpuPowders, driven by bslz4.chunk2sparse and bslz4.chunk2sparseCSC (python/bslz4/_cpu.py).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/pixel_type.hpp"
#include "engine_calls.hpp"
#include "module_parts.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

using CpuLists = EngineHandle<Chunk2Sparse>;
using CpuPowders = EngineHandle<Chunk2SparseCSC>;

Chunk2SparseOptions cpu_options(const std::string& codec, unsigned threads, std::optional<std::size_t> howmany,
                                std::optional<std::vector<double>> thresholds) {
    Chunk2SparseOptions o;
    o.codec = parse_codec(codec);
    o.threads = threads;
    o.howmany = howmany;
    o.thresholds = std::move(thresholds);
    return o;
}

inline void copy_results(const BatchOutputs& out, const SparseBatch& batch, double cut) { out.copy(batch, cut); }
inline void copy_results(const BatchOutputs& out, const IntegratedBatch& batch, double cut) {
    out.copy(batch.sparse, cut);
    out.write(batch.powder);
}

// Dense frames (ni*nj pixels of the object's type each), through the C++ from_frames: the
// steps after the decode, with the same results as multi on the frames' chunks.
template <class Handle>
void run_from_frames(Handle& h, const py::handle& frames, double cut, const py::tuple& out) {
    HeldBuffers held;
    const std::vector<ByteView> views = held.hold_each(frames, "frames");
    BatchOutputs outputs(out, views.size(), h.pixels, h.pixel_bytes, h.powder_row_bytes);
    py::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    copy_results(outputs, h.engine.from_frames(views, cut), cut);
}

template <class Handle, class Class>
void bind_calls(Class& c) {
    c.def("multi", &run_multi<Handle>, py::arg("chunks"), py::arg("cut"), py::arg("out"))
        .def("from_buffer", &run_from_buffer<Handle>, py::arg("base"), py::arg("offsets"), py::arg("lengths"),
             py::arg("cut"), py::arg("out"))
        .def("from_frames", &run_from_frames<Handle>, py::arg("frames"), py::arg("cut"), py::arg("out"))
        .def("set_top_pixels", &set_top_pixels<Handle>, py::arg("howmany"), py::arg("thresholds"));
}

}  // namespace

void bind_cpu_classes(py::module_& m) {
    py::class_<CpuLists> lists(m, "CpuLists", "bslz4::Chunk2Sparse (see bslz4.chunk2sparse)");
    lists.def(py::init([](const py::handle& mask, std::size_t ni, std::size_t nj, const std::string& type,
                          const std::string& codec, unsigned threads, std::optional<std::size_t> howmany,
                          std::optional<std::vector<double>> thresholds) {
                  HeldBuffers held;
                  const ByteView mask_bytes = held.hold(mask, "mask");
                  const PixelType t = parse_pixel_type(type);
                  Chunk2SparseOptions o = cpu_options(codec, threads, howmany, std::move(thresholds));
                  py::gil_scoped_release nogil;
                  return std::make_unique<CpuLists>(ni * nj, pixel_size(t), 0, mask_bytes, ni, nj, t, o);
              }),
              py::arg("mask"), py::arg("ni"), py::arg("nj"), py::arg("dtype"), py::arg("codec"), py::arg("threads"),
              py::arg("howmany"), py::arg("thresholds"))
        .def_property_readonly("threads", [](CpuLists& h) { return h.engine.threads(); });
    bind_calls<CpuLists>(lists);

    py::class_<CpuPowders> powders(m, "CpuPowders", "bslz4::Chunk2SparseCSC (see bslz4.chunk2sparseCSC)");
    powders
        .def(py::init([](const py::handle& mask, std::size_t ni, std::size_t nj, const std::string& type,
                         const IntegrationMatrix& matrix, const std::string& acc, const std::string& codec,
                         unsigned threads, std::optional<std::size_t> howmany,
                         std::optional<std::vector<double>> thresholds) {
                 HeldBuffers held;
                 const ByteView mask_bytes = held.hold(mask, "mask");
                 const PixelType t = parse_pixel_type(type);
                 const Accumulator a = parse_accumulator(acc);
                 Chunk2SparseOptions o = cpu_options(codec, threads, howmany, std::move(thresholds));
                 py::gil_scoped_release nogil;
                 return std::make_unique<CpuPowders>(ni * nj, pixel_size(t), matrix.bins * accumulator_size(a), mask_bytes,
                                                     ni, nj, t, matrix, a, o);
             }),
             py::arg("mask"), py::arg("ni"), py::arg("nj"), py::arg("dtype"), py::arg("matrix"), py::arg("acc"),
             py::arg("codec"), py::arg("threads"), py::arg("howmany"), py::arg("thresholds"))
        .def_property_readonly("bins", [](CpuPowders& h) { return h.engine.bins(); });
    bind_calls<CpuPowders>(powders);
}

}  // namespace bslz4::python
