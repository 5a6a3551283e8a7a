#include "driver_api.hpp"

#include <dlfcn.h>

#include <mutex>

#include "bslz4/error.hpp"
#include "cuda_error.hpp"

namespace bslz4::cuda::detail {

namespace {


// The first Linux driver branch of each CUDA major version (NVIDIA's minor version compatibility
// table); for CUDA 11, the first with cuGetProcAddress (11.3), which the loader needs.
std::string oldest_driver(int cuda_major) {
    switch (cuda_major) {
    case 11: return "R465 or newer";
    case 12: return "R525 or newer";
    case 13: return "R580 or newer";
    default: return "see NVIDIA's CUDA toolkit release notes";
    }
}

// Both lookups declared here, not through cuda.h, so that one source builds against the cuda.h
// of CUDA 11.3 and later: v2's last argument is a CUdriverProcAddressQueryResult (an enum, int
// sized; 0 = found), a type 11.x headers lack.
using GetProcV2 = CUresult (*)(const char*, void**, int, cuuint64_t, int*);
using GetProcV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
using DriverGetVersion = CUresult (*)(int*);

}  // namespace

DriverApi load_driver(ProcLookup how) {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        const char* why = dlerror();
        throw Error(ErrorCode::gpu_fault, std::string("no NVIDIA driver: cannot load libcuda.so.1 (") + (why ? why : "not found") + ")");
    }
    // The library stays loaded for the life of the process (drivers do not support unloading).
    const auto v2 = how == ProcLookup::newest ? reinterpret_cast<GetProcV2>(dlsym(lib, "cuGetProcAddress_v2")) : nullptr;
    const auto v1 = v2 ? nullptr : reinterpret_cast<GetProcV1>(dlsym(lib, "cuGetProcAddress"));
    if (!v2 && !v1)
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver is too old: libcuda.so.1 has no cuGetProcAddress (CUDA 11.3 or newer needed)");
    // v1 on a driver older than the pinned version: ask for the driver's own (our entry points'
    // ABIs are the same in 11.3 to 12.0; asking an 11.x driver for 12.0 is not defined).
    int version = kPinnedApiVersion;
    if (!v2) {
        const auto get_version = reinterpret_cast<DriverGetVersion>(dlsym(lib, "cuDriverGetVersion"));
        int v = 0;
        if (get_version && get_version(&v) == CUDA_SUCCESS && v > 0 && v < version) version = v;
    }
    const auto resolve = [&](const char* name, void** fn) {
        if (v2) {
            int found = -1;
            return v2(name, fn, version, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && found == 0 && *fn;
        }
        return v1(name, fn, version, CU_GET_PROC_ADDRESS_DEFAULT) == CUDA_SUCCESS && *fn;
    };
    DriverApi api;
#define X(name)                                              \
    if (!resolve(#name, reinterpret_cast<void**>(&api.name))) \
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver lacks " #name " (API version " + cuda_version_text(version) + ")");
#include "driver_symbols.inc"
#undef X
    if (v2) {  // at the version that brought it; not an error where the driver lacks it
        void* fn = nullptr;
        int found = -1;
        if (v2("cuFuncGetParamInfo", &fn, 12040, CU_GET_PROC_ADDRESS_DEFAULT, &found) == CUDA_SUCCESS && found == 0 && fn)
            api.cuFuncGetParamInfo = reinterpret_cast<decltype(api.cuFuncGetParamInfo)>(fn);
    }
    check(api, api.cuInit(0), "cuInit(0)");
    check(api, api.cuDriverGetVersion(&api.driver_version), "cuDriverGetVersion");
    // Kernels from a CUDA N.x toolkit load on any driver for CUDA N.0 or newer (minor version
    // compatibility). N is the toolkit that built the embedded kernels (fatbin/meson.build: nvcc's
    // version, or read from a prebuilt fatbin), not the cuda.h this file was compiled with.
    if (api.driver_version / 1000 < BSLZ4_CUDA_TOOLKIT_MAJOR)
        throw Error(ErrorCode::gpu_fault, "the NVIDIA driver supports CUDA " + cuda_version_text(api.driver_version) +
                    "; the kernels were built with CUDA " BSLZ4_CUDA_TOOLKIT " and need a driver for CUDA " +
                    std::to_string(BSLZ4_CUDA_TOOLKIT_MAJOR) + ".0 or newer (" + oldest_driver(BSLZ4_CUDA_TOOLKIT_MAJOR) + ")");
    return api;
}

namespace {

struct Loaded {
    DriverApi api;
    std::string error;
};

// Not const: the tests swap an entry point (through driver()) to make the driver refuse.
Loaded& loaded() {
    static Loaded once = [] {
        Loaded l;
        try {
            l.api = load_driver(ProcLookup::newest);
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

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string driver_unavailable_reason() { return loaded().error; }

}  // namespace bslz4::cuda::detail
