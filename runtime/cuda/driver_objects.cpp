#include "driver_objects.hpp"

#include <cstdio>

namespace bslz4::cuda::detail {

std::string megabytes(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / 1e6);
    return text;
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, const char* what) : size_(bytes) {
    CUdeviceptr p = 0;
    check(driver().cuMemAlloc(&p, bytes ? bytes : 1), std::string("cuMemAlloc(") + what + ", " + megabytes(bytes) + ")");
    mem_ = DriverHandle<CUdeviceptr, DeviceMemoryRelease>(p);
}

PinnedBuffer::PinnedBuffer(std::size_t bytes, const char* what) : size_(bytes) {
    void* p = nullptr;
    check(driver().cuMemAllocHost(&p, bytes ? bytes : 1),
          std::string("cuMemAllocHost(") + what + ", " + megabytes(bytes) + ")");
    mem_ = DriverHandle<void*, PinnedMemoryRelease>(p);
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
