// The driver objects the runtime owns, each a DriverHandle with its release call, and the
// functions that create them (throwing CudaError naming the call and the size).
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
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

// Device memory of a fixed size (contents undefined). Out of memory is an error naming what
// was wanted, how much, and what the device had free.
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

// Anonymous memory mapped by the library and page-locked by the driver (cuMemHostRegister):
// released by unlocking, then unmapping.
struct MappedRange {
    std::uint8_t* data = nullptr;
    std::size_t bytes = 0;
    bool operator!=(const MappedRange& o) const { return data != o.data; }
    explicit operator bool() const { return data != nullptr; }
};
struct RegisteredRelease {
    static constexpr const char* name = "cuMemHostUnregister";
    static bool release(MappedRange r);
};
using RegisteredMemory = DriverHandle<MappedRange, RegisteredRelease>;
// `bytes` mapped on transparent huge pages where the kernel gives them (aligned to them), kept
// out of forked children, faulted in, then locked (portable). Made so because pinning is a
// fixed cost a job waits for: on the H200 host 256 MB take 0.06 s this way against 0.12-0.14 s
// through cuMemHostAlloc, which maps and locks 4 kB pages one by one. Empty when the driver
// refuses to lock it, or when it is more than half the memory the system has available.
RegisteredMemory register_mapped(std::size_t bytes, const char* what);

// Host memory for copies to and from the GPU: page-locked (pinned) when the driver gives it,
// for DMA at full PCIe speed and truly asynchronous copies; from 2 MB on as RegisteredMemory,
// a smaller one from cuMemHostAlloc. When the driver refuses (a host short of lockable memory),
// pageable memory instead, after a one-time warning (bslz4/log.hpp): the copies are slower and
// block the host, but every result is the same. Pinned memory is every context's (portable).
class TransferBuffer {
public:
    TransferBuffer() = default;
    explicit TransferBuffer(std::size_t bytes, const char* what);
    std::uint8_t* data() const {
        return registered_ ? registered_.get().data : pinned_ ? static_cast<std::uint8_t*>(pinned_.get()) : pageable_.get();
    }
    std::size_t size() const { return size_; }
    bool pinned() const { return registered_ || pinned_; }

private:
    RegisteredMemory registered_;
    DriverHandle<void*, PinnedMemoryRelease> pinned_;
    std::unique_ptr<std::uint8_t[]> pageable_;
    std::size_t size_ = 0;
};

Stream make_stream();
Event make_event(bool timing = false);
Module load_module(const void* image, std::size_t image_bytes, const char* what);

}  // namespace bslz4::cuda::detail
