// A device's primary context, retained for the object's life, and a scope that makes it
// current in the calling thread (push on entry, pop on exit).
#pragma once
#include <cuda.h>

#include <cstdio>
#include <utility>

#include "cuda_error.hpp"
#include "driver_api.hpp"
#include "library_log.hpp"

namespace bslz4::cuda::detail {

class PrimaryContext {
public:
    explicit PrimaryContext(int ordinal) {
        const DriverApi& api = driver();
        int count = 0;
        check(api, api.cuDeviceGetCount(&count), "cuDeviceGetCount");
        if (count == 0) throw Error(ErrorCode::gpu_fault, "no CUDA device: the driver reports none");
        if (ordinal < 0 || ordinal >= count)
            throw Error(ErrorCode::bad_argument, "CUDA device " + std::to_string(ordinal) + " does not exist (" + std::to_string(count) +
                        " device(s))");
        check(api, api.cuDeviceGet(&device_, ordinal), "cuDeviceGet");
        check(api, api.cuDevicePrimaryCtxRetain(&ctx_, device_), "cuDevicePrimaryCtxRetain");
        ordinal_ = ordinal;
    }
    ~PrimaryContext() {
        if (ctx_ && driver().cuDevicePrimaryCtxRelease(device_) != CUDA_SUCCESS)
            bslz4::detail::log(LogLevel::error, "cuDevicePrimaryCtxRelease failed");
    }
    PrimaryContext(PrimaryContext&& o) noexcept { swap(o); }
    PrimaryContext& operator=(PrimaryContext&& o) noexcept {
        PrimaryContext tmp(std::move(o));
        swap(tmp);
        return *this;
    }
    PrimaryContext(const PrimaryContext&) = delete;
    PrimaryContext& operator=(const PrimaryContext&) = delete;

    CUcontext get() const { return ctx_; }
    CUdevice device() const { return device_; }
    int ordinal() const { return ordinal_; }

private:
    void swap(PrimaryContext& o) noexcept {
        std::swap(ctx_, o.ctx_);
        std::swap(device_, o.device_);
        std::swap(ordinal_, o.ordinal_);
    }
    CUcontext ctx_ = nullptr;
    CUdevice device_ = 0;
    int ordinal_ = -1;
};

class ScopedContext {
public:
    explicit ScopedContext(const PrimaryContext& c) { check(driver().cuCtxPushCurrent(c.get()), "cuCtxPushCurrent"); }
    ~ScopedContext() {
        CUcontext popped;
        if (driver().cuCtxPopCurrent(&popped) != CUDA_SUCCESS) bslz4::detail::log(LogLevel::error, "cuCtxPopCurrent failed");
    }
    ScopedContext(const ScopedContext&) = delete;
    ScopedContext& operator=(const ScopedContext&) = delete;
};

}  // namespace bslz4::cuda::detail
