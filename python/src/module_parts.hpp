// The parts of the _bslz4 extension module, each binding one area of the library.
#pragma once
#include <pybind11/pybind11.h>

namespace bslz4 {
class Error;
}

namespace bslz4::python {

// Sets Python's error for e, as bind_errors' translator does (the _scan module raises through it).
void raise_python(const Error& e);

void bind_errors(pybind11::module_& m);        // bslz4::Error -> ValueError, bslz4.DecodeError, ...
void bind_matrices(pybind11::module_& m);      // normalise_matrix, fold_mask, fixed_point_matrix
void bind_cpu_classes(pybind11::module_& m);   // CpuLists, CpuPowders
void bind_codec(pybind11::module_& m);         // decode_chunk, encode_chunk, synthetic frames
void bind_chunk_tools(pybind11::module_& m);   // decompress_chunks, chunk_block_starts (many chunks a call)
void bind_gpu(pybind11::module_& m);           // GPU classes and DeviceArray (has_gpu_runtime)

}  // namespace bslz4::python
