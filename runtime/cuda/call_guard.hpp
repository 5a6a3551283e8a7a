// One GPU object, one call at a time: its buffers, streams and result arrays belong to the call
// in hand, and its results are views overwritten by the next call, so two threads in one object
// at once could only corrupt each other's results. A second thread's call is refused with a
// clear error instead (serialising the calls would still let the second overwrite the first's
// views while the first reads them). The same thread may nest (a call made of calls).
#pragma once
#include <atomic>
#include <thread>

#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

class CallGuard {
public:
    explicit CallGuard(std::atomic<std::thread::id>& owner) : owner_(owner) {
        std::thread::id none;
        const std::thread::id me = std::this_thread::get_id();
        if (owner_.compare_exchange_strong(none, me)) {
            held_ = true;
        } else if (none != me) {
            throw Error(ErrorCode::bad_argument,
                        "this GPU object is in a call on another thread: one object takes one call at a time (its "
                        "results are views of its own buffers); give each thread its own object");
        }
    }
    ~CallGuard() {
        if (held_) owner_.store(std::thread::id());
    }
    CallGuard(const CallGuard&) = delete;
    CallGuard& operator=(const CallGuard&) = delete;

private:
    std::atomic<std::thread::id>& owner_;
    bool held_ = false;
};

}  // namespace bslz4::cuda::detail
