// An array the GPU classes leave on the device (decompress, integrate): owned by the caller,
// freed with it, and described well enough (pointer, shape, type) for other CUDA code to use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bslz4::cuda {

namespace detail {
struct DeviceArrayState;
}

class DeviceArray {
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

private:
    std::unique_ptr<detail::DeviceArrayState> state_;
};

}  // namespace bslz4::cuda
