#pragma once
// Stands between the library and the driver's allocation entry points while it lives: counts
// the device (cuMemAlloc) and pinned host (cuMemHostAlloc) allocations the library makes, and
// can refuse them as a GPU or a host short of memory does, whatever else holds memory at the time.
// The entry points are plain function pointers, so the hook's state is static: one hook at a time.

#include <cstddef>
#include <limits>

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
        s = State{};
        s.refuse = refuse;
        s.device_alloc = api_.cuMemAlloc;
        s.host_alloc = api_.cuMemHostAlloc;
        api_.cuMemAlloc = [](CUdeviceptr* p, std::size_t n) {
            ++state().device_count;
            return n > state().refuse.device_over ? CUDA_ERROR_OUT_OF_MEMORY : state().device_alloc(p, n);
        };
        api_.cuMemHostAlloc = [](void** p, std::size_t n, unsigned flags) {
            ++state().host_count;
            return state().refuse.pinned ? CUDA_ERROR_OUT_OF_MEMORY : state().host_alloc(p, n, flags);
        };
    }
    ~DriverAllocationHook() {
        api_.cuMemAlloc = state().device_alloc;
        api_.cuMemHostAlloc = state().host_alloc;
    }
    DriverAllocationHook(const DriverAllocationHook&) = delete;
    DriverAllocationHook& operator=(const DriverAllocationHook&) = delete;

    // Allocations asked for since the hook was made, refused ones included.
    std::size_t device_count() const { return state().device_count; }
    std::size_t host_count() const { return state().host_count; }

private:
    struct State {
        Refuse refuse = Refuse::nothing();
        decltype(cuda::detail::DriverApi::cuMemAlloc) device_alloc = nullptr;
        decltype(cuda::detail::DriverApi::cuMemHostAlloc) host_alloc = nullptr;
        std::size_t device_count = 0, host_count = 0;
    };
    static State& state() {
        static State s;
        return s;
    }
    cuda::detail::DriverApi& api_;
};

}  // namespace bslz4::test
