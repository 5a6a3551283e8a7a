// libcuda loaded at run time: no link against libcuda or libcudart, so the library and tools
// run (CPU only) on hosts without a driver. Loaded once; "no driver, and why" is a status.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>

namespace bslz4::cuda::detail {

// The CUDA API version the entry points are resolved at (cuGetProcAddress): stable ABIs
// (cuMemAlloc_v2, cuStreamDestroy_v2, ...) that every driver able to run our kernels has.
constexpr int kPinnedApiVersion = 12000;

struct DriverApi {
#define X(name) decltype(&::name) name = nullptr;
#include "driver_symbols.inc"
#undef X
    int driver_version = 0;  // cuDriverGetVersion: 13000 = CUDA 13.0
    // Optional (drivers for CUDA 12.4 and newer; null before): where a kernel's parameters lie,
    // which the runtime checks against kernel_abi.h. Declared here, as 11.x and 12.0-12.3
    // headers lack it.
    CUresult (*cuFuncGetParamInfo)(CUfunction, std::size_t, std::size_t*, std::size_t*) = nullptr;
};

// The loaded and initialised driver; throws bslz4::Error saying why there is none (no
// libcuda.so.1, a symbol missing, cuInit failing, a driver older than the kernels need).
const DriverApi& driver();

// How the entry points are looked up: cuGetProcAddress_v2 (drivers for CUDA 12.0 and newer), else
// cuGetProcAddress (CUDA 11.3 to 11.8 drivers, which can run kernels an 11.x nvcc built).
// driver() takes the first the driver has.
enum class ProcLookup { newest, v1 };
// A driver API resolved afresh with `how` (driver() keeps its own): for the tests, which check
// that both lookups give the same entry points.
DriverApi load_driver(ProcLookup how);

// "13.0" for cuDriverGetVersion's 13000.
std::string cuda_version_text(int version);

// "" when driver() works, else its message. Never throws.
std::string driver_unavailable_reason();

}  // namespace bslz4::cuda::detail
