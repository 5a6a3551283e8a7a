#include "driver_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "bslz4/error.hpp"
#include "cuda_error.hpp"

namespace bslz4::cuda::detail {

namespace {

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

DriverApi load() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* why = dlerror();
        throw Error(ErrorCode::gpu_fault, std::string("no NVIDIA driver: cannot load libcuda.so.1 (") + (why ? why : "not found") + ")");
    }
    // The library stays loaded for the life of the process (drivers do not support unloading).
    using GetProc = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
    auto get_proc = reinterpret_cast<GetProc>(dlsym(lib, "cuGetProcAddress_v2"));
    if (!get_proc)
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (CUDA 12.0 or newer needed)");
    DriverApi api;
    CUdriverProcAddressQueryResult found;
#define X(name)                                                                                              \
    if (get_proc(#name, reinterpret_cast<void**>(&api.name), kPinnedApiVersion, CU_GET_PROC_ADDRESS_DEFAULT, \
                 &found) != CUDA_SUCCESS ||                                                                  \
        found != CU_GET_PROC_ADDRESS_SUCCESS || !api.name)                                                   \
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver lacks " #name " (API version " + version_text(kPinnedApiVersion) + ")");
#include "driver_symbols.inc"
#undef X
    check(api, api.cuInit(0), "cuInit(0)");
    check(api, api.cuDriverGetVersion(&api.driver_version), "cuDriverGetVersion");
    // Kernels from a CUDA N toolkit need a driver for CUDA N (major version).
    if (api.driver_version / 1000 < CUDA_VERSION / 1000)
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver supports CUDA " + version_text(api.driver_version) +
                    "; the kernels were built with CUDA " + version_text(CUDA_VERSION) + " and need a driver for CUDA " +
                    std::to_string(CUDA_VERSION / 1000) + ".0 or newer");
    return api;
}

struct Loaded {
    DriverApi api;
    std::string error;
};

// Not const: the tests swap an entry point (through driver()) to make the driver refuse.
Loaded& loaded() {
    static Loaded once = [] {
        Loaded l;
        try {
            l.api = load();
        } catch (const std::exception& e) {
            l.error = e.what();
        }
        return l;
    }();
    return once;
}

}  // namespace

const DriverApi& driver() {
    const Loaded& l = loaded();
    if (!l.error.empty()) throw Error(ErrorCode::gpu_fault, l.error);
    return l.api;
}

std::string driver_unavailable_reason() { return loaded().error; }

}  // namespace bslz4::cuda::detail
