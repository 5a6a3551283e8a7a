// One call at a time on a C handle (the classes' handles: a member `busy`, the thread in a call;
// call_guard.hpp), and the handle of the class the function takes (c_handle_class.hpp).
#pragma once

#include "bslz4/error.hpp"
#include "call_guard.hpp"
#include "c_handle_class.hpp"
#include "c_status.hpp"

namespace bslz4::c_api {

// One call at a time on a handle: a second thread's call while one runs is refused (as the C++
// GPU classes refuse it), never a race on the object's buffers or on what it lends.
class InCall {
public:
    // `name`: the parameter, as a null or wrong-class handle's error names it.
    template <class H>
    explicit InCall(H* h, const char* name = "handle") : guard_(checked(h, name)->busy, "handle") {}

private:
    bslz4::detail::CallGuard guard_;
};

}  // namespace bslz4::c_api
