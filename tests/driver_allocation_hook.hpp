#pragma once
// Stands between the library and the driver's allocation entry points while it lives: counts
// the device (cuMemAlloc) and pinned host (cuMemHostAlloc, cuMemHostRegister) allocations the library makes, and
// can refuse them as a GPU or a host short of memory does, whatever else holds memory at the time.
// It also records each device pointer the driver freed (cuMemFree succeeding, on any thread),
// so a test can see memory freed exactly once.
// The entry points are plain function pointers, so the hook's state is static: one hook at a time.

#include <algorithm>
#include <cstddef>
#include <limits>
#include <mutex>
#include <vector>

#include "driver_api.hpp"

namespace bslz4::test {

class DriverAllocationHook {
public:
    struct Refuse {
        std::size_t device_over;  // device allocations of more bytes
        bool pinned;              // every pinned host allocation
        static Refuse nothing() { return {std::numeric_limits<std::size_t>::max(), false}; }
        static Refuse device_allocations_over(std::size_t bytes) { return {bytes, false}; }
        static Refuse pinned_memory() { return {std::numeric_limits<std::size_t>::max(), true}; }
    };

    DriverAllocationHook() : DriverAllocationHook(Refuse::nothing()) {}
    explicit DriverAllocationHook(Refuse refuse) : api_(const_cast<cuda::detail::DriverApi&>(cuda::detail::driver())) {
        State& s = state();
        s.refuse = refuse;
        s.device_count = s.host_count = 0;
        s.device_bytes = s.device_largest = 0;
        s.freed.clear();
        s.device_alloc = api_.cuMemAlloc;
        s.host_alloc = api_.cuMemHostAlloc;
        s.host_register = api_.cuMemHostRegister;
        s.device_free = api_.cuMemFree;
        api_.cuMemAlloc = [](CUdeviceptr* p, std::size_t n) {
            ++state().device_count;
            state().device_bytes += n;
            state().device_largest = std::max(state().device_largest, n);
            return n > state().refuse.device_over ? CUDA_ERROR_OUT_OF_MEMORY : state().device_alloc(p, n);
        };
        api_.cuMemHostAlloc = [](void** p, std::size_t n, unsigned flags) {
            ++state().host_count;
            return state().refuse.pinned ? CUDA_ERROR_OUT_OF_MEMORY : state().host_alloc(p, n, flags);
        };
        api_.cuMemHostRegister = [](void* p, std::size_t n, unsigned flags) {
            ++state().host_count;
            return state().refuse.pinned ? CUDA_ERROR_OUT_OF_MEMORY : state().host_register(p, n, flags);
        };
        api_.cuMemFree = [](CUdeviceptr p) {
            const CUresult r = state().device_free(p);
            if (r == CUDA_SUCCESS) {
                std::lock_guard<std::mutex> lock(state().freed_mutex);
                state().freed.push_back(p);
            }
            return r;
        };
    }
    ~DriverAllocationHook() {
        api_.cuMemAlloc = state().device_alloc;
        api_.cuMemHostAlloc = state().host_alloc;
        api_.cuMemHostRegister = state().host_register;
        api_.cuMemFree = state().device_free;
    }
    DriverAllocationHook(const DriverAllocationHook&) = delete;
    DriverAllocationHook& operator=(const DriverAllocationHook&) = delete;

    // Allocations asked for since the hook was made, refused ones included.
    std::size_t device_count() const { return state().device_count; }
    std::size_t device_bytes() const { return state().device_bytes; }
    std::size_t device_largest() const { return state().device_largest; }  // the largest one asked for
    std::size_t host_count() const { return state().host_count; }
    // Device memory freed since the hook was made: every free, and those of one pointer.
    std::size_t free_count() const {
        std::lock_guard<std::mutex> lock(state().freed_mutex);
        return state().freed.size();
    }
    std::size_t frees_of(CUdeviceptr p) const {
        std::lock_guard<std::mutex> lock(state().freed_mutex);
        return static_cast<std::size_t>(std::count(state().freed.begin(), state().freed.end(), p));
    }

private:
    struct State {
        Refuse refuse = Refuse::nothing();
        decltype(cuda::detail::DriverApi::cuMemAlloc) device_alloc = nullptr;
        decltype(cuda::detail::DriverApi::cuMemHostAlloc) host_alloc = nullptr;
        decltype(cuda::detail::DriverApi::cuMemHostRegister) host_register = nullptr;
        decltype(cuda::detail::DriverApi::cuMemFree) device_free = nullptr;
        std::size_t device_count = 0, host_count = 0;
        std::size_t device_bytes = 0;  // asked for, refused ones included
        std::size_t device_largest = 0;
        std::mutex freed_mutex;
        std::vector<CUdeviceptr> freed;
    };
    static State& state() {
        static State s;
        return s;
    }
    cuda::detail::DriverApi& api_;
};

}  // namespace bslz4::test
