#include "driver_objects.hpp"

#include <atomic>
#include <cstdio>
#include <new>

namespace bslz4::cuda::detail {

std::string megabytes(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

namespace {

// "GPU 0 has 3.1 MB free of 150021.3 MB", for out-of-memory messages ("" if the driver cannot say).
std::string free_memory_note() {
    std::size_t free = 0, total = 0;
    CUdevice dev = 0;
    if (driver().cuMemGetInfo(&free, &total) != CUDA_SUCCESS || driver().cuCtxGetDevice(&dev) != CUDA_SUCCESS) return "";
    return " (GPU " + std::to_string(dev) + " has " + megabytes(free) + " free of " + megabytes(total) + ")";
}

}  // namespace

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) : size_(bytes) {
    CUdeviceptr p = 0;
    const CUresult r = driver().cuMemAlloc(&p, bytes ? bytes : 1);
    if (r != CUDA_SUCCESS) {
        const std::string call = std::string("cuMemAlloc(") + what + ", " + megabytes(bytes) + ")";
        throw CudaError(r, failure_text(r, call) + (r == CUDA_ERROR_OUT_OF_MEMORY ? free_memory_note() : ""));
    }
    mem_ = DriverHandle<CUdeviceptr, DeviceMemoryRelease>(p);
}

TransferBuffer::TransferBuffer(std::size_t bytes, const char* what, unsigned flags) : size_(bytes) {
    void* p = nullptr;
    const CUresult r = driver().cuMemHostAlloc(&p, bytes ? bytes : 1, flags);
    if (r == CUDA_SUCCESS) {
        pinned_ = DriverHandle<void*, PinnedMemoryRelease>(p);
        return;
    }
    // Only a refusal falls back; any other failure (no context, a broken one) is an error.
    if (r != CUDA_ERROR_OUT_OF_MEMORY && r != CUDA_ERROR_NOT_PERMITTED && r != CUDA_ERROR_NOT_SUPPORTED)
        check(r, std::string("cuMemHostAlloc(") + what + ", " + megabytes(bytes) + ")");
    const std::string refused = failure_text(r, std::string("cuMemHostAlloc(") + what + ", " + megabytes(bytes) + ")");
    static std::atomic<bool> warned{false};
    if (!warned.exchange(true))
        std::fprintf(stderr,
                     "bslz4: warning: the driver refused pinned host memory (%s); using pageable memory instead: "
                     "copies to and from the GPU are slower and do not overlap the kernels\n",
                     refused.c_str());
    pageable_.reset(new (std::nothrow) std::uint8_t[bytes ? bytes : 1]);
    if (!pageable_)
        throw Error(ErrorCode::out_of_memory, "out of host memory: " + megabytes(bytes) + " for " + what + " (pinned memory was refused too: " +
                    refused + ")");
}

Stream make_stream() {
    CUstream s = nullptr;
    check(driver().cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    return Stream(s);
}

Event make_event(bool timing) {
    CUevent e = nullptr;
    check(driver().cuEventCreate(&e, timing ? CU_EVENT_DEFAULT : CU_EVENT_DISABLE_TIMING), "cuEventCreate");
    return Event(e);
}

Module load_module(const void* image, std::size_t image_bytes, const char* what) {
    CUmodule m = nullptr;
    check(driver().cuModuleLoadData(&m, image),
          std::string("cuModuleLoadData(") + what + ", " + std::to_string(image_bytes / 1024) + " kB)");
    return Module(m);
}

}  // namespace bslz4::cuda::detail
