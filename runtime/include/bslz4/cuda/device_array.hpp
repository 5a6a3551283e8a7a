// An array the GPU classes leave on the device (decompress, integrate): owned by the caller,
// freed with it, and described well enough (pointer, shape, type) for other CUDA code to use.
// It exports DLPack tensors that share its memory (CuPy, PyTorch, JAX take them without a copy).
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bslz4/cuda/dlpack.h"

namespace bslz4::cuda {

namespace detail {
struct DeviceArrayState;
}

class BSLZ4_API DeviceArray {
public:
    DeviceArray();
    explicit DeviceArray(std::unique_ptr<detail::DeviceArrayState> state);
    ~DeviceArray();
    DeviceArray(DeviceArray&&) noexcept;
    DeviceArray& operator=(DeviceArray&&) noexcept;

    std::uint64_t device_pointer() const;  // a CUdeviceptr
    const std::vector<std::size_t>& shape() const;
    const std::string& dtype() const;      // u8 ... f32 for frames; f64 f32 i64 for powders
    std::size_t bytes() const;
    int device() const;
    std::vector<std::uint8_t> to_host() const;  // a copy, for checks and small arrays
    // The whole array copied into the caller's `out` (at least bytes() long, else an Error,
    // bad_argument), with no copy between.
    void copy_to_host(void* out, std::size_t out_bytes) const;

    // DLPack views of the whole array (C order, kDLCUDA on device()), writable, sharing the
    // memory with this array and with each other: it is freed once, when the last of them
    // goes. Its contents are complete when decompress or integrate returns, so a consumer may
    // read it on any stream. The caller owns the tensor and must call its deleter exactly once,
    // also for a tensor it never hands on; the deleter may be called from any thread. An empty
    // (default-made or moved-from) array is an Error (bad_argument).
    DLManagedTensor* to_dlpack() const;
    DLManagedTensorVersioned* to_dlpack_versioned() const;  // version 1.0, flags 0

private:
    std::shared_ptr<detail::DeviceArrayState> state_;
};

}  // namespace bslz4::cuda
