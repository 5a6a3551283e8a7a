// Chunks and buffers as the C++ classes take them (ByteView), from any Python object with the
// buffer protocol (bytes, memoryview, numpy arrays, what h5py's read_direct_chunk returns),
// without copies: each buffer is held until the call that uses it returns.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4::python {

class HeldBuffers {
public:
    HeldBuffers() = default;
    // Releases the buffers: destroy it where the GIL is held.
    ~HeldBuffers();
    HeldBuffers(const HeldBuffers&) = delete;
    HeldBuffers& operator=(const HeldBuffers&) = delete;

    // A contiguous buffer of obj's bytes. TypeError when obj has no buffer protocol,
    // ValueError when it is not contiguous; `what` names the argument in the message.
    ByteView hold(pybind11::handle obj, const std::string& what);
    // Each item of a sequence (chunks of a batch), in order.
    std::vector<ByteView> hold_each(pybind11::handle sequence, const char* what);

private:
    std::vector<std::unique_ptr<Py_buffer>> buffers_;
};

}  // namespace bslz4::python
