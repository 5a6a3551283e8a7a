// The GPU classes (bslz4::cuda::Chunk2Sparse, bslz4::cuda::Chunk2SparseCSC) as the module's
// GpuLists and GpuPowders, driven by bslz4.cuda (python/bslz4/cuda/_gpu.py); has_gpu_runtime
// says whether the library was built with them.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "module_parts.hpp"

#ifdef BSLZ4_HAVE_CUDA
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/pixel_type.hpp"
#include "engine_calls.hpp"
#include "gpu_bindings.hpp"
#endif

namespace py = pybind11;

namespace bslz4::python {

#ifdef BSLZ4_HAVE_CUDA
namespace {

using GpuLists = EngineHandle<cuda::Chunk2Sparse>;
using GpuPowders = EngineHandle<cuda::Chunk2SparseCSC>;

cuda::Chunk2SparseOptions gpu_options(unsigned batch, unsigned group, const std::string& unblock, int device,
                                      const std::string& codec, std::optional<std::size_t> howmany,
                                      std::optional<std::vector<double>> thresholds) {
    cuda::Chunk2SparseOptions o;
    o.batch = batch;
    o.group = group;
    if (unblock == "gpu") o.unblock = cuda::Unblock::gpu;
    else if (unblock == "cpu") o.unblock = cuda::Unblock::cpu;
    else throw Error(ErrorCode::bad_argument, "unblock '" + unblock + "': expected 'gpu' or 'cpu'");
    o.device = device;
    o.codec = parse_codec(codec);
    o.howmany = howmany;
    o.thresholds = std::move(thresholds);
    return o;
}

template <class Handle>
void run_from_device(Handle& h, std::uint64_t pointer, const py::handle& offsets, const py::handle& lengths, double cut,
                     const py::tuple& out) {
    const std::vector<std::uint64_t> offs = byte_positions(offsets, "offsets");
    const std::vector<std::uint64_t> lens = byte_positions(lengths, "lengths");
    if (offs.empty()) throw Error(ErrorCode::bad_argument, "from_device: no chunks were given");
    BatchOutputs outputs(out, offs.size(), h.pixels, h.pixel_bytes, h.powder_row_bytes);
    py::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    write_results(outputs, h.engine.from_device(pointer, offs, lens, cut, outputs.rows()), cut);
}

// decompress / integrate: the chunks in host memory, the result left on the GPU.
template <class Handle, class Call>
cuda::DeviceArray to_device_array(Handle& h, const py::handle& chunks, Call call) {
    HeldBuffers held;
    const std::vector<ByteView> views = held.hold_each(chunks, "chunks");
    py::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    return call(h.engine, views);
}

template <class Handle, class Call>
cuda::DeviceArray device_to_device_array(Handle& h, std::uint64_t pointer, const py::handle& offsets,
                                         const py::handle& lengths, Call call) {
    const std::vector<std::uint64_t> offs = byte_positions(offsets, "offsets");
    const std::vector<std::uint64_t> lens = byte_positions(lengths, "lengths");
    if (offs.empty()) throw Error(ErrorCode::bad_argument, "no chunks were given");
    py::gil_scoped_release nogil;
    CallGuard guard(h.busy);
    return call(h.engine, pointer, offs, lens);
}

template <class Handle, class Class>
void bind_gpu_calls(Class& c) {
    using Engine = decltype(Handle::engine);
    c.def("multi", &run_multi<Handle>, py::arg("chunks"), py::arg("cut"), py::arg("out"))
        .def("from_buffer", &run_from_buffer<Handle>, py::arg("base"), py::arg("offsets"), py::arg("lengths"),
             py::arg("cut"), py::arg("out"))
        .def("from_device", &run_from_device<Handle>, py::arg("pointer"), py::arg("offsets"), py::arg("lengths"),
             py::arg("cut"), py::arg("out"))
        .def("set_top_pixels", &set_top_pixels<Handle>, py::arg("howmany"), py::arg("thresholds"))
        .def(
            "decompress",
            [](Handle& h, const py::handle& chunks) {
                return to_device_array(h, chunks, [](Engine& e, const std::vector<ByteView>& v) { return e.decompress(v); });
            },
            py::arg("chunks"))
        .def(
            "decompress_from_device",
            [](Handle& h, std::uint64_t pointer, const py::handle& offsets, const py::handle& lengths) {
                return device_to_device_array(h, pointer, offsets, lengths,
                                              [](Engine& e, std::uint64_t p, const std::vector<std::uint64_t>& o,
                                                 const std::vector<std::uint64_t>& l) { return e.decompress_from_device(p, o, l); });
            },
            py::arg("pointer"), py::arg("offsets"), py::arg("lengths"))
        .def(
            "reserve",
            [](Handle& h, std::size_t frames, std::size_t chunk_bytes) {
                py::gil_scoped_release nogil;
                CallGuard guard(h.busy);
                h.engine.reserve(frames, chunk_bytes);
            },
            py::arg("frames"), py::arg("chunk_bytes"))
        .def_property_readonly("last_host", [](Handle& h) { return h.engine.last_host(); })
        .def_property_readonly("cap", [](Handle& h) { return h.engine.cap(); })
        .def_property_readonly("batch", [](Handle& h) { return h.engine.batch(); })
        .def_property_readonly("group", [](Handle& h) { return h.engine.group(); });
}

}  // namespace

void bind_gpu(py::module_& m) {
    m.attr("has_gpu_runtime") = true;
    m.def("gpu_available", &cuda::available);
    m.def("gpu_unavailable_reason", &cuda::unavailable_reason);
    m.def("device_count", &cuda::device_count);
    m.def("device_name", [](int ordinal) { return cuda::device_info(ordinal).name; }, py::arg("ordinal") = 0);
    m.def("release_shared", &cuda::release_shared);
    m.def("shared_count", &cuda::shared_count);
    m.def("built_architectures", &cuda::built_architectures);
    bind_device_array(m);

    py::class_<GpuLists> lists(m, "GpuLists", "bslz4::cuda::Chunk2Sparse (see bslz4.cuda.chunk2sparse)");
    lists.def(py::init([](const py::handle& mask, std::size_t ni, std::size_t nj, const std::string& type, unsigned batch,
                          unsigned group, const std::string& unblock, int device, const std::string& codec,
                          std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
                  HeldBuffers held;
                  const ByteView mask_bytes = held.hold(mask, "mask");
                  const PixelType t = parse_pixel_type(type);
                  cuda::Chunk2SparseOptions o =
                      gpu_options(batch, group, unblock, device, codec, howmany, std::move(thresholds));
                  py::gil_scoped_release nogil;
                  return std::make_unique<GpuLists>(ni * nj, pixel_size(t), 0, mask_bytes, ni, nj, t, o);
              }),
              py::arg("mask"), py::arg("ni"), py::arg("nj"), py::arg("dtype"), py::arg("batch"), py::arg("group"),
              py::arg("unblock"), py::arg("device"), py::arg("codec"), py::arg("howmany"), py::arg("thresholds"))
        .def_property_readonly("device", [](GpuLists& h) { return h.engine.device(); });
    bind_gpu_calls<GpuLists>(lists);

    py::class_<GpuPowders> powders(m, "GpuPowders", "bslz4::cuda::Chunk2SparseCSC (see bslz4.cuda.chunk2sparseCSC)");
    powders
        .def(py::init([](const py::handle& mask, std::size_t ni, std::size_t nj, const std::string& type,
                         const IntegrationMatrix& matrix, const std::string& acc, unsigned batch, unsigned group,
                         const std::string& unblock, int device, const std::string& codec,
                         std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
                 HeldBuffers held;
                 const ByteView mask_bytes = held.hold(mask, "mask");
                 const PixelType t = parse_pixel_type(type);
                 const Accumulator a = parse_accumulator(acc);
                 cuda::Chunk2SparseOptions o =
                     gpu_options(batch, group, unblock, device, codec, howmany, std::move(thresholds));
                 py::gil_scoped_release nogil;
                 return std::make_unique<GpuPowders>(ni * nj, pixel_size(t), matrix.bins * accumulator_size(a), mask_bytes,
                                                     ni, nj, t, matrix, a, o);
             }),
             py::arg("mask"), py::arg("ni"), py::arg("nj"), py::arg("dtype"), py::arg("matrix"), py::arg("acc"),
             py::arg("batch"), py::arg("group"), py::arg("unblock"), py::arg("device"), py::arg("codec"),
             py::arg("howmany"), py::arg("thresholds"))
        .def_static(
            "from_lists",
            [](GpuLists& lists, const IntegrationMatrix& matrix, const std::string& acc) {
                const Accumulator a = parse_accumulator(acc);
                py::gil_scoped_release nogil;
                CallGuard guard(lists.busy);  // no call of another thread on the lists object while its engine moves
                // A matrix refused leaves the lists object's engine where it was.
                return std::make_unique<GpuPowders>(lists.pixels, lists.pixel_bytes, matrix.bins * accumulator_size(a),
                                                    std::move(lists.engine), matrix, a);
            },
            py::arg("lists"), py::arg("matrix"), py::arg("acc"))
        .def_property_readonly("bins", [](GpuPowders& h) { return h.engine.bins(); })
        .def(
            "integrate",
            [](GpuPowders& h, const py::handle& chunks) {
                return to_device_array(h, chunks,
                                       [](cuda::Chunk2SparseCSC& e, const std::vector<ByteView>& v) { return e.integrate(v); });
            },
            py::arg("chunks"))
        .def(
            "integrate_from_device",
            [](GpuPowders& h, std::uint64_t pointer, const py::handle& offsets, const py::handle& lengths) {
                return device_to_device_array(
                    h, pointer, offsets, lengths,
                    [](cuda::Chunk2SparseCSC& e, std::uint64_t p, const std::vector<std::uint64_t>& o,
                       const std::vector<std::uint64_t>& l) { return e.integrate_from_device(p, o, l); });
            },
            py::arg("pointer"), py::arg("offsets"), py::arg("lengths"));
    bind_gpu_calls<GpuPowders>(powders);
}

#else

void bind_gpu(py::module_& m) { m.attr("has_gpu_runtime") = false; }

#endif

}  // namespace bslz4::python
