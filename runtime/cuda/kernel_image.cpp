#include "kernel_image.hpp"

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

CUfunction kernel(const Module& module, const std::string& name) {
    CUfunction f = nullptr;
    check(driver().cuModuleGetFunction(&f, module.get(), name.c_str()), "cuModuleGetFunction(" + name + ")");
    return f;
}

}  // namespace detail
}  // namespace bslz4::cuda
