// bslz4::Error as Python exceptions: bad arguments and refused matrices are ValueError, bad
// data is bslz4.DecodeError (python/bslz4/_errors.py: the message, the code's name, and the
// frame and block the message names), memory MemoryError, the driver's failures RuntimeError.
#include <pybind11/pybind11.h>

#include <exception>

#include "bslz4/error.hpp"
#include "module_parts.hpp"

namespace py = pybind11;

namespace bslz4::python {

void raise_python(const Error& e) {
    const ErrorCode code = e.code();
    if (code == ErrorCode::bad_argument || code == ErrorCode::bad_matrix) {
        PyErr_SetString(PyExc_ValueError, e.what());
    } else if (code == ErrorCode::out_of_memory) {
        PyErr_SetString(PyExc_MemoryError, e.what());
    } else if (is_chunk_fault(code)) {
        py::object cls = py::module_::import("bslz4._errors").attr("DecodeError");
        PyErr_SetObject(cls.ptr(), py::make_tuple(e.what(), error_code_name(code)).ptr());
    } else {
        PyErr_SetString(PyExc_RuntimeError, e.what());
    }
}

void bind_errors(py::module_& m) {
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const Error& e) {
            raise_python(e);
        }
    });
    m.def("error_code_names", [] {
        py::list names;
        for (int c = static_cast<int>(ErrorCode::ok); c <= static_cast<int>(ErrorCode::unspecified); ++c)
            names.append(error_code_name(static_cast<ErrorCode>(c)));
        return names;
    });
}

}  // namespace bslz4::python
