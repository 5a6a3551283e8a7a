// Integration matrices: the C++ normalise_matrix, fold_mask and fixed_point_matrix over the
// arrays bslz4._matrix takes from a scipy or pyFAI matrix (no copies until the canonical form).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <string>
#include <type_traits>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"
#include "chunk_buffers.hpp"
#include "module_parts.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

IntegrationMatrix normalise(const std::string& layout, std::size_t bins, std::size_t pixels,
                            const py::array_t<float, py::array::c_style>& data, const py::array& indices,
                            const py::array& indptr) {
    MatrixInput in;
    if (layout == "csc") in.layout = MatrixLayout::csc;
    else if (layout == "csr") in.layout = MatrixLayout::csr;
    else throw Error(ErrorCode::bad_argument, "matrix layout '" + layout + "': expected csc or csr");
    const py::dtype index_type = indices.dtype();
    if (!index_type.is(indptr.dtype()))
        throw Error(ErrorCode::bad_argument, "matrix indices and indptr must have the same type");
    if (index_type.is(py::dtype::of<std::int32_t>())) in.index_type = IndexType::i32;
    else if (index_type.is(py::dtype::of<std::uint32_t>())) in.index_type = IndexType::u32;
    else throw Error(ErrorCode::bad_argument, "matrix indices must be int32 or uint32");
    if (!(indices.flags() & py::array::c_style) || !(indptr.flags() & py::array::c_style))
        throw Error(ErrorCode::bad_argument, "matrix indices and indptr must be contiguous");
    in.bins = bins;
    in.pixels = pixels;
    in.data = data.data();
    in.data_size = static_cast<std::size_t>(data.size());
    in.indices = indices.data();
    in.indices_size = static_cast<std::size_t>(indices.size());
    in.indptr = indptr.data();
    in.indptr_size = static_cast<std::size_t>(indptr.size());
    py::gil_scoped_release nogil;
    return normalise_matrix(in);
}

}  // namespace

void bind_matrices(py::module_& m) {
    py::class_<IntegrationMatrix>(m, "IntegrationMatrix",
                                  "bslz4::IntegrationMatrix: canonical CSR by bin, pixels ascending, duplicates merged")
        .def_property_readonly("bins", [](const IntegrationMatrix& x) { return x.bins; })
        .def_property_readonly("pixels", [](const IntegrationMatrix& x) { return x.pixels; })
        .def_property_readonly("nnz", &IntegrationMatrix::nnz)
        .def_property_readonly("fixed_point", &IntegrationMatrix::fixed_point)
        .def_property_readonly("powder_scale", [](const IntegrationMatrix& x) { return x.powder_scale; })
        .def(
            "csr_arrays",
            [](const IntegrationMatrix& x) {
                // Copies of the canonical form (CSR by bin): row_start, pixel, weight and the
                // fixed-point weights (empty unless fixed_point), for FixedPointMatrix.to_scipy.
                auto copy = [](const auto& v) {
                    using T = typename std::decay_t<decltype(v)>::value_type;
                    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
                    if (!v.empty()) std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(T));
                    return a;
                };
                return py::make_tuple(copy(x.row_start), copy(x.pixel), copy(x.weight), copy(x.fixed_weight));
            },
            "(row_start, pixel, weight, fixed_weight) numpy copies of the canonical CSR form");
    m.def("normalise_matrix", &normalise, py::arg("layout"), py::arg("bins"), py::arg("pixels"), py::arg("data"),
          py::arg("indices"), py::arg("indptr"));
    m.def(
        "fold_mask",
        [](const IntegrationMatrix& matrix, const py::handle& mask) {
            HeldBuffers held;
            const ByteView bytes = held.hold(mask, "mask");
            py::gil_scoped_release nogil;
            return fold_mask(matrix, bytes);
        },
        py::arg("matrix"), py::arg("mask"));
    m.def(
        "fixed_point_matrix",
        [](const IntegrationMatrix& matrix, const std::string& type, int weight_bits) {
            const PixelType t = parse_pixel_type(type);
            py::gil_scoped_release nogil;
            return fixed_point_matrix(matrix, t, weight_bits);
        },
        py::arg("matrix"), py::arg("dtype"), py::arg("weight_bits"));
}

}  // namespace bslz4::python
