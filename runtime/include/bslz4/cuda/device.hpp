// Is there a usable GPU, and which. Never throws: "no driver" and "no device" are answers.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <string>

namespace bslz4::cuda {

// True when the driver loads, is new enough for the embedded kernels and sees a device.
BSLZ4_API bool available();
// Why available() is false ("" when it is true).
BSLZ4_API std::string unavailable_reason();
// Devices the driver sees (0 without a driver).
BSLZ4_API int device_count();

struct DeviceInfo {
    int ordinal = 0;
    std::string name;
    int sm = 0;                   // compute capability x 10 (90 = sm_90)
    int multiprocessors = 0;
    std::size_t l2_bytes = 0;
    std::size_t memory_bytes = 0;
    int driver_version = 0;       // 13000 = CUDA 13.0
    // What bounds how many thread blocks of a kernel one multiprocessor holds.
    std::size_t shared_per_multiprocessor = 0;
    std::size_t shared_per_block_optin = 0;   // the most one block may ask for
    std::size_t shared_reserved_per_block = 0;
    int blocks_per_multiprocessor = 0;
    int threads_per_multiprocessor = 0;
};
// Throws bslz4::Error when the device does not exist or there is no driver.
BSLZ4_API DeviceInfo device_info(int ordinal);

// Masks and matrices are uploaded once per process and device and shared by every object that
// uses the same one. release_shared() drops them (objects alive keep theirs);
// shared_count() says how many are held.
BSLZ4_API void release_shared();
BSLZ4_API std::size_t shared_count();

// The architectures the embedded kernels were built for, e.g. "75 80 86 89 90 100 120 (PTX 120)".
BSLZ4_API const char* built_architectures();

}  // namespace bslz4::cuda
