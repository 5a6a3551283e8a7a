#include "bslz4/cuda/host_memory.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "bslz4/error.hpp"
#include "context.hpp"
#include "driver_objects.hpp"
#include "pinned_registry.hpp"

namespace bslz4::cuda {

namespace detail {

namespace {
std::mutex registry_mutex;
std::map<const std::uint8_t*, std::size_t, std::less<>>& registry() {
    static std::map<const std::uint8_t*, std::size_t, std::less<>> ranges;
    return ranges;
}
}  // namespace

void register_pinned(const std::uint8_t* data, std::size_t size) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry()[data] = size;
}

void unregister_pinned(const std::uint8_t* data) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    registry().erase(data);
}

bool is_pinned_range(const std::uint8_t* lo, const std::uint8_t* hi) {
    std::lock_guard<std::mutex> lock(registry_mutex);
    auto it = registry().upper_bound(lo);
    if (it == registry().begin()) return false;
    --it;
    return std::less_equal<>()(it->first, lo) && std::less_equal<>()(hi, it->first + it->second);
}

}  // namespace detail

using namespace detail;

struct PinnedHostMemory::State {
    PrimaryContext ctx;
    TransferBuffer buffer;
    State(std::size_t bytes, int device) : ctx(device) {
        ScopedContext scope(ctx);
        buffer = TransferBuffer(bytes, "pinned host memory");
        // Pageable memory (the driver refused to pin) is staged like any other caller memory.
        if (buffer.pinned()) register_pinned(buffer.data(), bytes);
    }
    ~State() {
        if (buffer.pinned()) unregister_pinned(buffer.data());
    }
    State(const State&) = delete;
    State& operator=(const State&) = delete;
};

PinnedHostMemory::PinnedHostMemory(std::size_t bytes, int device) : state_(std::make_unique<State>(bytes, device)) {}
PinnedHostMemory::~PinnedHostMemory() = default;
PinnedHostMemory::PinnedHostMemory(PinnedHostMemory&&) noexcept = default;
PinnedHostMemory& PinnedHostMemory::operator=(PinnedHostMemory&&) noexcept = default;
std::uint8_t* PinnedHostMemory::data() const { return state_->buffer.data(); }
std::size_t PinnedHostMemory::size() const { return state_->buffer.size(); }
bool PinnedHostMemory::pinned() const { return state_->buffer.pinned(); }

double copy_bandwidth(Copy kind, std::size_t bytes, int device) {
    PrimaryContext ctx(device);
    ScopedContext scope(ctx);
    const DriverApi& api = driver();
    Stream stream = make_stream();
    // The device end of the copy (its destination, or its source for the copies back), the host
    // end pinned or pageable, and a second device buffer for device to device.
    DeviceBuffer dst(bytes, "bandwidth destination");
    DeviceBuffer src_dev;
    TransferBuffer src_pinned;
    std::vector<std::uint8_t> src_pageable;
    const bool pinned = kind == Copy::pinned_to_device || kind == Copy::device_to_pinned;
    const bool pageable = kind == Copy::pageable_to_device || kind == Copy::device_to_pageable;
    if (kind == Copy::device_to_device) src_dev = DeviceBuffer(bytes, "bandwidth source");
    if (pinned) {
        src_pinned = TransferBuffer(bytes, "bandwidth source");
        if (!src_pinned.pinned())
            throw Error(ErrorCode::out_of_memory, "copy_bandwidth: the driver refused to pin " + std::to_string(bytes) +
                                                      " bytes of host memory, so there is no pinned rate to measure");
        std::fill(src_pinned.data(), src_pinned.data() + bytes, std::uint8_t{1});
    }
    if (pageable) src_pageable.assign(bytes, 1);
    auto copy = [&] {
        switch (kind) {
            case Copy::device_to_device:
                check(api.cuMemcpyDtoDAsync(dst.get(), src_dev.get(), bytes, stream.get()), "cuMemcpyDtoDAsync");
                break;
            case Copy::pinned_to_device:
                check(api.cuMemcpyHtoDAsync(dst.get(), src_pinned.data(), bytes, stream.get()), "cuMemcpyHtoDAsync");
                break;
            case Copy::pageable_to_device:
                check(api.cuMemcpyHtoDAsync(dst.get(), src_pageable.data(), bytes, stream.get()), "cuMemcpyHtoDAsync");
                break;
            case Copy::device_to_pinned:
                check(api.cuMemcpyDtoHAsync(src_pinned.data(), dst.get(), bytes, stream.get()), "cuMemcpyDtoHAsync");
                break;
            case Copy::device_to_pageable:
                check(api.cuMemcpyDtoHAsync(src_pageable.data(), dst.get(), bytes, stream.get()), "cuMemcpyDtoHAsync");
                break;
        }
    };
    copy();  // warm-up
    Event start = make_event(true), stop = make_event(true);
    std::vector<double> rates;
    for (int r = 0; r < 7; ++r) {
        check(api.cuEventRecord(start.get(), stream.get()), "cuEventRecord");
        copy();
        check(api.cuEventRecord(stop.get(), stream.get()), "cuEventRecord");
        check(api.cuEventSynchronize(stop.get()), "cuEventSynchronize");
        float ms = 0;
        check(api.cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
        const double moved = static_cast<double>(bytes) * (kind == Copy::device_to_device ? 2 : 1);
        rates.push_back(moved / (ms / 1e3) / 1e9);
    }
    std::sort(rates.begin(), rates.end());
    return rates[rates.size() / 2];
}

}  // namespace bslz4::cuda
