// The GPU part of the module, present when the library was built with the GPU runtime.
#pragma once
#include <pybind11/pybind11.h>

namespace bslz4::python {

void bind_device_array(pybind11::module_& m);

}  // namespace bslz4::python
