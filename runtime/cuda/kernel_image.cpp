#include "kernel_image.hpp"

#include <map>
#include <mutex>

#include "bslz4/cuda/device.hpp"

namespace bslz4::cuda {

const char* built_architectures() { return BSLZ4_CUDA_ARCHS; }

namespace detail {

Module load_kernels(int sm, const std::string& device_name) {
    CUmodule m = nullptr;
    const CUresult r = driver().cuModuleLoadData(&m, bslz4_kernels_fatbin);
    if (r == CUDA_SUCCESS) return Module(m);
    const std::string call = "cuModuleLoadData(bslz4_kernels.fatbin, " + std::to_string(bslz4_kernels_fatbin_size / 1024) + " kB)";
    if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_SOURCE)
        throw CudaError(r, call + ": " + result_name(r) + ": the GPU " + device_name + " is sm_" + std::to_string(sm) +
                               "; the kernels were built for " + BSLZ4_CUDA_ARCHS +
                               " (rebuild with -Dgpu_archs including " + std::to_string(sm) + ")");
    if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION)
        throw CudaError(r, call + ": " + result_name(r) + ": the driver (CUDA " + cuda_version_text(driver().driver_version) +
                               ") cannot JIT the kernels' PTX (built with CUDA " BSLZ4_CUDA_TOOLKIT "); update the NVIDIA driver");
    check(r, call);
    return Module();
}

std::shared_ptr<const Module> shared_kernels(int ordinal, int sm, const std::string& device_name) {
    static std::mutex loading;
    static std::map<int, std::weak_ptr<const Module>> loaded;
    const std::lock_guard<std::mutex> lock(loading);
    std::weak_ptr<const Module>& held = loaded[ordinal];
    if (std::shared_ptr<const Module> m = held.lock()) return m;
    auto m = std::make_shared<const Module>(load_kernels(sm, device_name));
    held = m;
    return m;
}

CUfunction kernel(const Module& module, const std::string& name) {
    CUfunction f = nullptr;
    check(driver().cuModuleGetFunction(&f, module.get(), name.c_str()), "cuModuleGetFunction(" + name + ")");
    return f;
}

}  // namespace detail
}  // namespace bslz4::cuda
