// The driver objects the runtime owns, each a DriverHandle with its release call, and the
// functions that create them (throwing CudaError naming the call and the size).
#pragma once
#include <cuda.h>

#include <cstddef>
#include <string>

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "driver_handle.hpp"

namespace bslz4::cuda::detail {

#define BSLZ4_RELEASE(Policy, Handle, call)                                                  \
    struct Policy {                                                                          \
        static constexpr const char* name = #call;                                           \
        static bool release(Handle h) { return driver().call(h) == CUDA_SUCCESS; }           \
    };
BSLZ4_RELEASE(ModuleRelease, CUmodule, cuModuleUnload)
BSLZ4_RELEASE(StreamRelease, CUstream, cuStreamDestroy)
BSLZ4_RELEASE(EventRelease, CUevent, cuEventDestroy)
BSLZ4_RELEASE(DeviceMemoryRelease, CUdeviceptr, cuMemFree)
BSLZ4_RELEASE(PinnedMemoryRelease, void*, cuMemFreeHost)
#undef BSLZ4_RELEASE

using Module = DriverHandle<CUmodule, ModuleRelease>;
using Stream = DriverHandle<CUstream, StreamRelease>;
using Event = DriverHandle<CUevent, EventRelease>;

std::string megabytes(std::size_t bytes);

// Device memory of a fixed size (contents undefined).
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    explicit DeviceBuffer(std::size_t bytes, const char* what);
    CUdeviceptr get() const { return mem_.get(); }
    std::size_t size() const { return size_; }
    template <class T>
    T* as() const { return reinterpret_cast<T*>(mem_.get()); }

private:
    DriverHandle<CUdeviceptr, DeviceMemoryRelease> mem_;
    std::size_t size_ = 0;
};

// Page-locked host memory: DMA at full PCIe speed and truly asynchronous copies.
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    explicit PinnedBuffer(std::size_t bytes, const char* what);
    std::uint8_t* data() const { return static_cast<std::uint8_t*>(mem_.get()); }
    std::size_t size() const { return size_; }

private:
    DriverHandle<void*, PinnedMemoryRelease> mem_;
    std::size_t size_ = 0;
};

Stream make_stream();
Event make_event(bool timing = false);
Module load_module(const void* image, std::size_t image_bytes, const char* what);

}  // namespace bslz4::cuda::detail
