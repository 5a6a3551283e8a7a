// One call at a time on a C handle (the classes' handles: a member `busy`, a std::mutex), and
// the handle of the class the function takes (c_handle_class.hpp).
#pragma once
#include <mutex>

#include "bslz4/error.hpp"
#include "c_handle_class.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

// One call at a time on a handle: a second thread's call while one runs is refused (as the C++
// GPU classes refuse it), never a race on the object's buffers or on what it lends.
class InCall {
public:
    template <class H>
    explicit InCall(H* h) : lock_(checked(h, "handle")->busy, std::try_to_lock) {
        if (!lock_.owns_lock())
            throw Error(ErrorCode::bad_argument, "this handle is in a call from another thread; give each thread its own handle");
    }

private:
    std::unique_lock<std::mutex> lock_;
};

}  // namespace bslz4::c_api
