// The C handles' class names and the check that a handle is of the class a function takes.
#include "c_handle_class.hpp"

#include <string>

#include "bslz4/error.hpp"

namespace bslz4::c_api {

const char* handle_class_name(HandleClass c) noexcept {
    switch (c) {
        case HandleClass::chunk2sparse: return "bslz4_chunk2sparse";
        case HandleClass::chunk2sparse_csc: return "bslz4_chunk2sparse_csc";
        case HandleClass::gpu_chunk2sparse: return "bslz4_gpu_chunk2sparse";
        case HandleClass::gpu_chunk2sparse_csc: return "bslz4_gpu_chunk2sparse_csc";
        case HandleClass::matrix: return "bslz4_matrix";
        case HandleClass::device_array: return "bslz4_device_array";
        case HandleClass::pinned_memory: return "bslz4_pinned_memory";
    }
    return nullptr;
}

void check_class(const HandleTag& tag, HandleClass expected, const char* parameter) {
    const char* given = tag.mark == kHandleMark ? handle_class_name(tag.handle_class) : nullptr;
    if (given && tag.handle_class == expected) return;
    const std::string wanted = handle_class_name(expected);
    if (!given)
        throw Error(ErrorCode::bad_argument, std::string(parameter) + " is not a " + wanted +
                                                 ": it is no bslz4 handle (a pointer to other memory, or to a handle "
                                                 "already destroyed)");
    throw Error(ErrorCode::bad_argument, std::string(parameter) + " is a " + given + ", not the " + wanted +
                                             " this function takes (a handle cast to another class)");
}

}  // namespace bslz4::c_api
