// bslz4_device_array: arrays left on the GPU, and device buffers made from host bytes (chunks
// for the _from_device calls).
#include <string>

#include "c_arguments.hpp"
#include "c_device_array.hpp"
#include "c_gpu_setup.hpp"
#include "context.hpp"
#include "device_array_state.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

namespace {
const cuda::DeviceArray& array_of(const bslz4_device_array* a) { return checked(a, "array")->array; }
}  // namespace

int bslz4_gpu_device_buffer_create(const void* host, size_t bytes, int device, bslz4_device_array** array) {
    return guarded("bslz4_gpu_device_buffer_create", [&] {
        require(array, "array");
        *array = nullptr;
        bytes_at(host, bytes, "host");
        require_gpu();
        auto state = std::make_unique<cuda::detail::DeviceArrayState>(device, std::vector<std::size_t>{bytes}, "u8", bytes);
        if (bytes) {
            const cuda::detail::DriverApi& api = cuda::detail::driver();
            cuda::detail::ScopedContext scope(state->ctx);
            cuda::detail::check(api.cuMemcpyHtoDAsync(state->buffer.get(), host, bytes, nullptr), "cuMemcpyHtoD(device buffer)");
            cuda::detail::check(api.cuCtxSynchronize(), "cuCtxSynchronize");
        }
        *array = new bslz4_device_array{cuda::DeviceArray(std::move(state))};
        return BSLZ4_OK;
    });
}

int bslz4_device_array_destroy(bslz4_device_array* array) {
    return destroy_call("bslz4_device_array_destroy", array, "array");
}

int bslz4_device_array_pointer(const bslz4_device_array* array, uint64_t* device_pointer) {
    return guarded("bslz4_device_array_pointer", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(device_pointer, "device_pointer");
        *device_pointer = a.device_pointer();
        return BSLZ4_OK;
    });
}

int bslz4_device_array_bytes(const bslz4_device_array* array, size_t* bytes) {
    return guarded("bslz4_device_array_bytes", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(bytes, "bytes");
        *bytes = a.bytes();
        return BSLZ4_OK;
    });
}

int bslz4_device_array_device(const bslz4_device_array* array, int* device) {
    return guarded("bslz4_device_array_device", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(device, "device");
        *device = a.device();
        return BSLZ4_OK;
    });
}

int bslz4_device_array_shape(const bslz4_device_array* array, size_t* shape, size_t capacity, size_t* ndim) {
    return guarded("bslz4_device_array_shape", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(ndim, "ndim");
        checked_count<std::size_t>(capacity, "capacity");
        *ndim = a.shape().size();
        if (a.shape().size() > capacity)
            throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, "room for " + std::to_string(capacity) + " dimensions, the array has " +
                                                         std::to_string(a.shape().size()));
        if (!a.shape().empty()) require(shape, "shape");
        for (std::size_t d = 0; d < a.shape().size(); ++d) shape[d] = a.shape()[d];
        return BSLZ4_OK;
    });
}

int bslz4_device_array_dtype(const bslz4_device_array* array, const char** dtype) {
    return guarded("bslz4_device_array_dtype", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(dtype, "dtype");
        *dtype = a.dtype().c_str();
        return BSLZ4_OK;
    });
}

int bslz4_device_array_copy_to_host(const bslz4_device_array* array, void* out, size_t out_bytes) {
    return guarded("bslz4_device_array_copy_to_host", [&] {
        const cuda::DeviceArray& a = array_of(array);
        checked_bytes(out_bytes, "out_bytes");
        if (a.bytes() > out_bytes)
            throw CFailure(BSLZ4_E_OUTPUT_TOO_SMALL, "output of " + std::to_string(out_bytes) + " bytes for an array of " +
                                                         std::to_string(a.bytes()) + " bytes");
        if (a.bytes()) require(out, "out");
        a.copy_to_host(out, out_bytes);
        return BSLZ4_OK;
    });
}

int bslz4_device_array_to_dlpack(const bslz4_device_array* array, void** managed_tensor_versioned) {
    return guarded("bslz4_device_array_to_dlpack", [&] {
        const cuda::DeviceArray& a = array_of(array);
        require(managed_tensor_versioned, "managed_tensor_versioned");
        *managed_tensor_versioned = a.to_dlpack_versioned();
        return BSLZ4_OK;
    });
}
