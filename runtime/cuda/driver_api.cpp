#include "driver_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "bslz4/error.hpp"
#include "cuda_error.hpp"

namespace bslz4::cuda::detail {

namespace {

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

// The first Linux driver branch of each CUDA major version (NVIDIA's minor version compatibility
// table). CUDA 11 needs none here: load() already needs a CUDA 12.0 driver (cuGetProcAddress_v2).
std::string oldest_driver(int cuda_major) {
    switch (cuda_major) {
    case 12: return "R525 or newer";
    case 13: return "R580 or newer";
    default: return "see NVIDIA's CUDA toolkit release notes";
    }
}

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
    // Kernels from a CUDA N.x toolkit load on any driver for CUDA N.0 or newer (minor version
    // compatibility). N is the toolkit that built the embedded kernels (fatbin/meson.build: nvcc's
    // version, or read from a prebuilt fatbin), not the cuda.h this file was compiled with.
    if (api.driver_version / 1000 < BSLZ4_CUDA_TOOLKIT_MAJOR)
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver supports CUDA " + version_text(api.driver_version) +
                    "; the kernels were built with CUDA " BSLZ4_CUDA_TOOLKIT " and need a driver for CUDA " +
                    std::to_string(BSLZ4_CUDA_TOOLKIT_MAJOR) + ".0 or newer (" + oldest_driver(BSLZ4_CUDA_TOOLKIT_MAJOR) + ")");
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
