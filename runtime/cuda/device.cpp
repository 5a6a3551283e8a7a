#include "bslz4/cuda/device.hpp"

#include "bslz4/error.hpp"
#include "cuda_error.hpp"
#include "driver_api.hpp"

namespace bslz4::cuda {

int device_count() {
    if (!detail::driver_unavailable_reason().empty()) return 0;
    int n = 0;
    return detail::driver().cuDeviceGetCount(&n) == CUDA_SUCCESS ? n : 0;
}

std::string unavailable_reason() {
    std::string why = detail::driver_unavailable_reason();
    if (!why.empty()) return why;
    if (device_count() == 0) return "no CUDA device: the NVIDIA driver loads but reports no GPU";
    return "";
}

bool available() { return unavailable_reason().empty(); }

DeviceInfo device_info(int ordinal) {
    const detail::DriverApi& api = detail::driver();
    const int n = device_count();
    if (ordinal < 0 || ordinal >= n)
        throw Error(ErrorCode::bad_argument, "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(n) + " device(s))");
    CUdevice dev;
    detail::check(api.cuDeviceGet(&dev, ordinal), "cuDeviceGet");
    DeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    detail::check(api.cuDeviceGetName(name, sizeof name - 1, dev), "cuDeviceGetName");
    info.name = name;
    int major = 0, minor = 0, l2 = 0, sms = 0;
    detail::check(api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "cuDeviceGetAttribute(major)");
    detail::check(api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "cuDeviceGetAttribute(minor)");
    detail::check(api.cuDeviceGetAttribute(&l2, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev), "cuDeviceGetAttribute(L2)");
    detail::check(api.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev), "cuDeviceGetAttribute(SMs)");
    info.sm = major * 10 + minor;
    info.l2_bytes = static_cast<std::size_t>(l2);
    info.multiprocessors = sms;
    detail::check(api.cuDeviceTotalMem(&info.memory_bytes, dev), "cuDeviceTotalMem");
    auto attribute = [&](CUdevice_attribute a, const char* what) {
        int v = 0;
        detail::check(api.cuDeviceGetAttribute(&v, a, dev), what);
        return v;
    };
    info.shared_per_multiprocessor = static_cast<std::size_t>(attribute(
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, "cuDeviceGetAttribute(shared memory per SM)"));
    info.shared_per_block_optin = static_cast<std::size_t>(attribute(
        CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, "cuDeviceGetAttribute(shared memory per block)"));
    info.shared_reserved_per_block = static_cast<std::size_t>(attribute(
        CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK, "cuDeviceGetAttribute(reserved shared memory)"));
    info.blocks_per_multiprocessor =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, "cuDeviceGetAttribute(blocks per SM)");
    info.threads_per_multiprocessor =
        attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, "cuDeviceGetAttribute(threads per SM)");
    info.driver_version = api.driver_version;
    return info;
}

}  // namespace bslz4::cuda
