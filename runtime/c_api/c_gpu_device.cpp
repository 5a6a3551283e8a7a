// Is there a usable GPU, and what the library was built for: bslz4_gpu_available and friends.
#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/cuda/device.hpp"
#include "c_status.hpp"

using namespace bslz4;
using namespace bslz4::c_api;

namespace {
thread_local std::string last_reason;
}

int bslz4_gpu_available(int* available, const char** reason) {
    return guarded("bslz4_gpu_available", [&] {
        require(available, "available");
        *available = cuda::available() ? 1 : 0;
        if (reason) {
            last_reason = *available ? std::string() : cuda::unavailable_reason();
            *reason = last_reason.c_str();
        }
        return BSLZ4_OK;
    });
}

int bslz4_gpu_device_count(int* count) {
    return guarded("bslz4_gpu_device_count", [&] {
        require(count, "count");
        *count = cuda::device_count();
        return BSLZ4_OK;
    });
}

int bslz4_gpu_built_architectures(const char** archs) {
    return guarded("bslz4_gpu_built_architectures", [&] {
        require(archs, "archs");
        *archs = cuda::built_architectures();
        return BSLZ4_OK;
    });
}

int bslz4_gpu_release_shared(void) {
    return guarded("bslz4_gpu_release_shared", [&] {
        cuda::release_shared();
        return BSLZ4_OK;
    });
}
