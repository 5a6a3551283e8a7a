// Whole-chunk decode and encode, and the synthetic Eiger frames the C++ bench decodes (so the
// Python benchmark times the same bytes).
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/cpu_count.hpp"
#include "bslz4/cpu_path.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/encode.hpp"
#include "bslz4/pixel_type.hpp"
#include "synthetic/synthetic_eiger.hpp"
#include "chunk_buffers.hpp"
#include "module_parts.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

py::bytes as_bytes(const std::vector<std::uint8_t>& v) {
    return py::bytes(reinterpret_cast<const char*>(v.data()), v.size());
}

SyntheticProfile parse_profile(const std::string& name) {
    for (SyntheticProfile p : {SyntheticProfile::dense, SyntheticProfile::sparse, SyntheticProfile::very_sparse})
        if (name == synthetic_profile_name(p)) return p;
    throw Error(ErrorCode::bad_argument, "profile '" + name + "': expected dense, sparse or very-sparse");
}

}  // namespace

void bind_codec(py::module_& m) {
    m.def(
        "decode_chunk",
        [](const py::handle& chunk, std::size_t elem_size, const std::string& codec) {
            HeldBuffers held;
            const ByteView bytes = held.hold(chunk, "chunk");
            const Codec c = parse_codec(codec);
            std::vector<std::uint8_t> out;
            {
                py::gil_scoped_release nogil;
                out = decode_chunk(bytes, elem_size, c);
            }
            return as_bytes(out);
        },
        py::arg("chunk"), py::arg("elem_size"), py::arg("codec"));
    m.def(
        "encode_chunk",
        [](const py::handle& pixels, std::size_t elem_size, const std::string& codec, std::size_t block_bytes) {
            HeldBuffers held;
            const ByteView bytes = held.hold(pixels, "pixels");
            EncodeOptions o;
            o.codec = parse_codec(codec);
            o.block_bytes = block_bytes;
            std::vector<std::uint8_t> out;
            {
                py::gil_scoped_release nogil;
                out = encode_chunk(bytes, elem_size, o);
            }
            return as_bytes(out);
        },
        py::arg("pixels"), py::arg("elem_size"), py::arg("codec"), py::arg("block_bytes") = 0);
    m.def(
        "synthetic_eiger_frame",
        [](std::size_t ni, std::size_t nj, const std::string& type, std::uint64_t index, const std::string& profile) {
            const PixelType t = parse_pixel_type(type);
            const SyntheticProfile p = parse_profile(profile);
            std::vector<std::uint8_t> out;
            {
                py::gil_scoped_release nogil;
                out = synthetic_eiger_frame(ni, nj, t, index, p);
            }
            return as_bytes(out);
        },
        py::arg("ni"), py::arg("nj"), py::arg("dtype"), py::arg("index"), py::arg("profile") = "dense");
    m.def("synthetic_eiger_mask", [](std::size_t ni, std::size_t nj) { return as_bytes(synthetic_eiger_mask(ni, nj)); });
    m.attr("eiger4m_shape") = py::make_tuple(kEiger4mRows, kEiger4mCols);
    m.def("usable_cpu_count", &usable_cpu_count);
    m.def("cpu_path", [] { return std::string(cpu_path_name(active_cpu_path())); },
          "The CPU decoder's instruction-set path a decoder made now uses: portable, avx2 or avx512 "
          "(CPUID, or BSLZ4_CPU_PATH).");
}

}  // namespace bslz4::python
