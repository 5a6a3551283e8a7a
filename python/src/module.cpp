// bslz4._bslz4: the C++ library's classes for the pure-Python package bslz4 (python/bslz4),
// which gives them the seed's (bslz4_to_sparse's) calls and return values.
#include <pybind11/pybind11.h>

#include "module_parts.hpp"

PYBIND11_MODULE(_bslz4, m) {
    m.doc() = "bslz4's C++ classes; use the package bslz4, not this module";
    bslz4::python::bind_errors(m);
    bslz4::python::bind_matrices(m);
    bslz4::python::bind_cpu_classes(m);
    bslz4::python::bind_codec(m);
    bslz4::python::bind_chunk_tools(m);
    bslz4::python::bind_gpu(m);
}
