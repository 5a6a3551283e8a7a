// One object, one call at a time, for every object of the library that keeps buffers across a
// call: the CPU and GPU classes, the C API's handles and the Python module's objects. A call's
// results are views of the object's own buffers, overwritten by the next call, so two threads
// in one object at once could only corrupt each other's results. A second thread's call is
// refused with a clear error instead (serialising the calls would still let the second
// overwrite the first's views while the first reads them). The same thread may nest (a call
// made of calls).
#pragma once
#include <atomic>
#include <cstring>
#include <string>
#include <thread>

#include "bslz4/error.hpp"

namespace bslz4::detail {

class CallGuard {
public:
    // owner: the object's "thread in a call" (none while idle). what: the object as the refusal
    // names it ("object", "GPU object", "handle"); its last word is what to give each thread.
    explicit CallGuard(std::atomic<std::thread::id>& owner, const char* what = "object") : owner_(owner) {
        std::thread::id none;
        const std::thread::id me = std::this_thread::get_id();
        if (owner_.compare_exchange_strong(none, me)) {
            held_ = true;
        } else if (none != me) {
            const char* space = std::strrchr(what, ' ');
            throw Error(ErrorCode::bad_argument, std::string("this ") + what +
                                                     " is in a call on another thread: it takes one call at a time (its results "
                                                     "are views of its own buffers); give each thread its own " +
                                                     (space ? space + 1 : what));
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

}  // namespace bslz4::detail
