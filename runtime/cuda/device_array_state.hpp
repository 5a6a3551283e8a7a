// What a DeviceArray holds: its device's context (retained, so the memory outlives the objects
// that made it) and the memory itself, released first. Shared by the array and the DLPack
// tensors it exported, so the last of them may go on any thread.
#pragma once
#include <string>
#include <vector>

#include "context.hpp"
#include "driver_objects.hpp"

namespace bslz4::cuda::detail {

struct DeviceArrayState {
    PrimaryContext ctx;
    DeviceBuffer buffer;
    std::vector<std::size_t> shape;
    std::string dtype;
    std::size_t bytes;
    DeviceArrayState(int device, std::vector<std::size_t> shape_, std::string dtype_, std::size_t bytes_)
        : ctx(device), shape(std::move(shape_)), dtype(std::move(dtype_)), bytes(bytes_) {
        ScopedContext scope(ctx);
        buffer = DeviceBuffer(bytes, "device array");
    }
    // The last owner may be a consumer's thread with another device's context current, or none.
    ~DeviceArrayState() {
        try {
            ScopedContext scope(ctx);
            buffer = DeviceBuffer();
        } catch (...) {
            // The context could not be made current: the buffer still tries its cuMemFree below.
        }
    }
    DeviceArrayState(const DeviceArrayState&) = delete;
    DeviceArrayState& operator=(const DeviceArrayState&) = delete;
};

}  // namespace bslz4::cuda::detail
