#include "chunk_buffers.hpp"

#include <string>

#include "bslz4/error.hpp"

namespace py = pybind11;

namespace bslz4::python {

HeldBuffers::~HeldBuffers() {
    for (auto& b : buffers_) PyBuffer_Release(b.get());
}

ByteView HeldBuffers::hold(py::handle obj, const std::string& what) {
    if (!PyObject_CheckBuffer(obj.ptr()))
        throw py::type_error(what + ": expected bytes, a memoryview or a numpy array (the buffer protocol), got " +
                             std::string(Py_TYPE(obj.ptr())->tp_name));
    auto view = std::make_unique<Py_buffer>();
    if (PyObject_GetBuffer(obj.ptr(), view.get(), PyBUF_SIMPLE) != 0) {
        // The exporter's own reason (numpy: "ndarray is not C-contiguous") goes into ours.
        py::error_already_set reason;
        throw py::value_error(what + ": " + std::string(reason.what()) + " (a contiguous buffer is needed)");
    }
    ByteView bytes(view->buf, static_cast<std::size_t>(view->len));
    buffers_.push_back(std::move(view));
    return bytes;
}

std::vector<ByteView> HeldBuffers::hold_each(py::handle sequence, const char* what) {
    if (PyBytes_Check(sequence.ptr()) || PyByteArray_Check(sequence.ptr()) || PyMemoryView_Check(sequence.ptr()))
        throw py::type_error(std::string(what) + ": expected a sequence of chunks (a list), got one buffer");
    std::vector<ByteView> views;
    if (PyList_Check(sequence.ptr()) || PyTuple_Check(sequence.ptr())) {
        const auto n = static_cast<std::size_t>(PySequence_Size(sequence.ptr()));
        views.reserve(n);
        buffers_.reserve(buffers_.size() + n);
    }
    std::size_t k = 0;
    for (py::handle item : py::iter(sequence)) {
        views.push_back(hold(item, std::string(what) + "[" + std::to_string(k) + "]"));
        ++k;
    }
    if (views.empty()) throw Error(ErrorCode::bad_argument, std::string(what) + ": no chunks were given");
    return views;
}

}  // namespace bslz4::python
