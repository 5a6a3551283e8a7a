// One move-only RAII template for the driver's handles (module, stream, event, device and
// pinned memory): each differs only in how it is released, given by a Release policy.
// Destructors never throw; a failed release is logged (bslz4/log.hpp).
#pragma once
#include <cstdio>
#include <utility>

#include "library_log.hpp"

namespace bslz4::cuda::detail {

template <class Handle, class Release>
class DriverHandle {
public:
    DriverHandle() = default;
    explicit DriverHandle(Handle h) : h_(h) {}
    ~DriverHandle() {
        if (h_ && !Release::release(h_)) {
            char message[96];
            std::snprintf(message, sizeof message, "%s failed", Release::name);
            bslz4::detail::log(LogLevel::error, message);
        }
    }
    DriverHandle(DriverHandle&& o) noexcept { std::swap(h_, o.h_); }
    DriverHandle& operator=(DriverHandle&& o) noexcept {
        DriverHandle tmp(std::move(o));
        std::swap(h_, tmp.h_);
        return *this;
    }
    DriverHandle(const DriverHandle&) = delete;
    DriverHandle& operator=(const DriverHandle&) = delete;

    Handle get() const { return h_; }
    explicit operator bool() const { return h_ != Handle{}; }

private:
    Handle h_{};
};

}  // namespace bslz4::cuda::detail
