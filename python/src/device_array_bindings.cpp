// bslz4::cuda::DeviceArray (decompress, integrate) as a Python object that CuPy, PyTorch and JAX
// take without a copy: __dlpack__ / __dlpack_device__ (DLPack capsules, classic or 1.0
// versioned) and __cuda_array_interface__ (version 3). The arrays are complete on the GPU when
// the call that made them returns, so no stream is waited for or handed over. And the reverse:
// the device pointer of a DLPack capsule another library made, for the *_from_device calls.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/cuda/device_array.hpp"
#include "bslz4/error.hpp"
#include "gpu_bindings.hpp"

namespace py = pybind11;

namespace bslz4::python {

namespace {

using cuda::DeviceArray;

const char* numpy_name(const std::string& dtype) {
    if (dtype == "u8") return "uint8";
    if (dtype == "u16") return "uint16";
    if (dtype == "u32") return "uint32";
    if (dtype == "i8") return "int8";
    if (dtype == "i16") return "int16";
    if (dtype == "i32") return "int32";
    if (dtype == "i64") return "int64";
    if (dtype == "f32") return "float32";
    if (dtype == "f64") return "float64";
    throw Error(ErrorCode::bad_argument, "device array of unknown type " + dtype);
}

// A capsule's destructor: a tensor nobody took (the name unchanged) is still ours to delete;
// one renamed "used_..." belongs to its consumer.
extern "C" void delete_unused_tensor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor")) {
        auto* t = static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule, "dltensor"));
        if (t && t->deleter) t->deleter(t);
    }
}

extern "C" void delete_unused_versioned_tensor(PyObject* capsule) {
    if (PyCapsule_IsValid(capsule, "dltensor_versioned")) {
        auto* t = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule, "dltensor_versioned"));
        if (t && t->deleter) t->deleter(t);
    }
}

py::object dlpack(const DeviceArray& a, const py::object& stream, const py::object& max_version,
                  const py::object& dl_device, const py::object& copy) {
    (void)stream;  // complete when made: the consumer may read it on any stream
    if (!copy.is_none() && copy.cast<bool>())
        throw py::buffer_error("a bslz4 device array is exported without a copy only (copy=True refused)");
    if (!dl_device.is_none()) {
        auto d = dl_device.cast<py::tuple>();
        if (d.size() != 2 || d[0].cast<int>() != kDLCUDA || d[1].cast<int>() != a.device())
            throw py::buffer_error("a bslz4 device array lives on CUDA device " + std::to_string(a.device()) +
                                   " and is not copied elsewhere");
    }
    bool versioned = false;
    if (!max_version.is_none()) versioned = max_version.cast<py::tuple>()[0].cast<int>() >= 1;
    if (versioned) {
        DLManagedTensorVersioned* t = a.to_dlpack_versioned();
        PyObject* cap = PyCapsule_New(t, "dltensor_versioned", delete_unused_versioned_tensor);
        if (!cap) {
            t->deleter(t);
            throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(cap);
    }
    DLManagedTensor* t = a.to_dlpack();
    PyObject* cap = PyCapsule_New(t, "dltensor", delete_unused_tensor);
    if (!cap) {
        t->deleter(t);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(cap);
}

// A DLPack tensor of part of an array (bslz4.cuda.DeviceArray's views: a slice, a row): the
// array's own tensor, which holds its memory, wrapped in one whose data pointer, shape and
// strides are the view's. The data pointer carries the offset (byte_offset 0), as PyTorch's
// exports do, so consumers that ignore byte_offset read the right bytes too.
template <class Managed>
struct ViewTensor {
    Managed outer{};
    Managed* whole = nullptr;
    std::vector<std::int64_t> shape, strides;

    static void release(Managed* self) {
        auto* v = static_cast<ViewTensor*>(self->manager_ctx);
        if (v->whole && v->whole->deleter) v->whole->deleter(v->whole);
        delete v;
    }
};

template <class Managed>
Managed* view_tensor(Managed* whole, std::uint64_t offset, const std::vector<std::int64_t>& shape,
                     const std::vector<std::int64_t>& strides) {
    auto* v = new ViewTensor<Managed>;
    v->whole = whole;
    v->shape = shape;
    v->strides = strides;
    v->outer = *whole;  // version and flags (versioned), device, dtype
    DLTensor& t = v->outer.dl_tensor;
    t.data = static_cast<char*>(whole->dl_tensor.data) + whole->dl_tensor.byte_offset + offset;
    t.byte_offset = 0;
    t.ndim = static_cast<std::int32_t>(v->shape.size());
    t.shape = v->shape.empty() ? nullptr : v->shape.data();
    t.strides = v->strides.empty() ? nullptr : v->strides.data();
    v->outer.manager_ctx = v;
    v->outer.deleter = &ViewTensor<Managed>::release;
    return &v->outer;
}

// offset in bytes from the array's first byte; shape and strides (in elements) of the view.
py::object dlpack_view(const DeviceArray& a, std::uint64_t offset, const std::vector<std::int64_t>& shape,
                       const std::vector<std::int64_t>& strides, bool versioned) {
    if (shape.size() != strides.size()) throw Error(ErrorCode::bad_argument, "a view's shape and strides differ in length");
    if (versioned) {
        DLManagedTensorVersioned* t = view_tensor(a.to_dlpack_versioned(), offset, shape, strides);
        PyObject* cap = PyCapsule_New(t, "dltensor_versioned", delete_unused_versioned_tensor);
        if (!cap) {
            t->deleter(t);
            throw py::error_already_set();
        }
        return py::reinterpret_steal<py::object>(cap);
    }
    DLManagedTensor* t = view_tensor(a.to_dlpack(), offset, shape, strides);
    PyObject* cap = PyCapsule_New(t, "dltensor", delete_unused_tensor);
    if (!cap) {
        t->deleter(t);
        throw py::error_already_set();
    }
    return py::reinterpret_steal<py::object>(cap);
}

py::tuple shape_of(const DeviceArray& a) {
    py::tuple t(a.shape().size());
    for (std::size_t k = 0; k < a.shape().size(); ++k) t[k] = a.shape()[k];
    return t;
}

py::dict cuda_array_interface(const DeviceArray& a) {
    py::dict d;
    d["shape"] = shape_of(a);
    d["typestr"] = py::dtype(numpy_name(a.dtype())).attr("str");
    d["data"] = py::make_tuple(a.device_pointer(), false);
    d["version"] = 3;
    d["strides"] = py::none();
    d["stream"] = py::none();  // nothing to wait for
    return d;
}

py::array to_host(const DeviceArray& a) {
    std::vector<py::ssize_t> shape(a.shape().begin(), a.shape().end());
    py::array out(py::dtype(numpy_name(a.dtype())), shape);
    if (static_cast<std::size_t>(out.nbytes()) != a.bytes())
        throw Error(ErrorCode::bad_argument, "internal: a device array's bytes do not fit its shape");
    void* data = out.mutable_data();
    const auto room = static_cast<std::size_t>(out.nbytes());
    {
        py::gil_scoped_release nogil;
        a.copy_to_host(data, room);
    }
    return out;
}

// (device pointer of the first element, device type, device ordinal, bytes) of a DLPack
// capsule, left unconsumed: the capsule keeps owning the memory while the caller holds it.
py::tuple capsule_pointer(const py::capsule& capsule) {
    const DLTensor* t = nullptr;
    if (PyCapsule_IsValid(capsule.ptr(), "dltensor_versioned")) {
        auto* m = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
        if (m->version.major != 1) throw Error(ErrorCode::bad_argument, "a DLPack tensor of an unknown major version");
        t = &m->dl_tensor;
    } else if (PyCapsule_IsValid(capsule.ptr(), "dltensor")) {
        t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"))->dl_tensor;
    } else {
        throw Error(ErrorCode::bad_argument, "not an unused DLPack capsule");
    }
    std::uint64_t elems = 1;
    for (std::int32_t k = 0; k < t->ndim; ++k) elems *= static_cast<std::uint64_t>(t->shape[k]);
    if (t->strides) {  // C-contiguous, or the bytes are not one run
        std::int64_t expect = 1;
        for (std::int32_t k = t->ndim - 1; k >= 0; --k) {
            if (t->shape[k] != 1 && t->strides[k] != expect)
                throw Error(ErrorCode::bad_argument, "device chunks must be one contiguous array");
            expect *= t->shape[k];
        }
    }
    const std::uint64_t bytes = elems * ((t->dtype.bits * t->dtype.lanes + 7u) / 8u);
    return py::make_tuple(reinterpret_cast<std::uint64_t>(t->data) + t->byte_offset, static_cast<int>(t->device.device_type),
                          t->device.device_id, bytes);
}

}  // namespace

void bind_device_array(py::module_& m) {
    py::class_<DeviceArray>(m, "DeviceArray",
                            "An array left on the GPU (decompress, integrate): owned by Python, freed with the last "
                            "of it and the tensors made from it; CuPy, PyTorch and JAX take it without a copy")
        .def_property_readonly("shape", &shape_of)
        .def_property_readonly("dtype", [](const DeviceArray& a) { return py::dtype(numpy_name(a.dtype())); })
        .def_property_readonly("nbytes", &DeviceArray::bytes)
        .def_property_readonly("device", &DeviceArray::device)
        .def_property_readonly("ptr", &DeviceArray::device_pointer, "the device pointer (a CUdeviceptr)")
        .def_property_readonly("__cuda_array_interface__", &cuda_array_interface)
        .def("__dlpack__", &dlpack, py::kw_only(), py::arg("stream") = py::none(), py::arg("max_version") = py::none(),
             py::arg("dl_device") = py::none(), py::arg("copy") = py::none())
        .def("__dlpack_device__", [](const DeviceArray& a) { return py::make_tuple(static_cast<int>(kDLCUDA), a.device()); })
        .def("get", &to_host, "a numpy copy")
        .def("_dlpack_view", &dlpack_view, py::arg("offset"), py::arg("shape"), py::arg("strides"), py::arg("versioned"),
             "a DLPack capsule of part of the array (bslz4.cuda.DeviceArray's views)")
        .def("__repr__", [](const DeviceArray& a) {
            return "<bslz4 DeviceArray shape=" + py::str(shape_of(a)).cast<std::string>() + " dtype=" + numpy_name(a.dtype()) +
                   " device=" + std::to_string(a.device()) + ">";
        });
    m.def("dlpack_capsule_pointer", &capsule_pointer, py::arg("capsule"));
}

}  // namespace bslz4::python
