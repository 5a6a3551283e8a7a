// The fatbin embedded in the library (fatbin/embed_binary.py) and the module loaded from it,
// with an error for each way loading fails that names what was found and what is needed.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <memory>
#include <string>

#include "driver_objects.hpp"

extern const unsigned char bslz4_kernels_fatbin[];
extern const std::size_t bslz4_kernels_fatbin_size;

namespace bslz4::cuda::detail {

// Loads the kernels into the current context of device `sm` (e.g. 90).
Module load_kernels(int sm, const std::string& device_name);
// The kernels in device `ordinal`'s primary context (current), loaded once for all the
// objects that hold them at a time: a job's decoders and peak labellers, made side by side,
// would otherwise each load the whole module, one after another inside the driver.
std::shared_ptr<const Module> shared_kernels(int ordinal, int sm, const std::string& device_name);
CUfunction kernel(const Module& module, const std::string& name);

}  // namespace bslz4::cuda::detail
