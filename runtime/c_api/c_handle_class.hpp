// Which class a C handle is. Every handle struct's first base is a HandleTag, checked at every
// entry that takes a handle, so that a handle of one class cast and passed to another class's
// function (a bslz4_chunk2sparse* given to bslz4_chunk2sparse_csc_call, a matrix given as a
// device array) is refused with BSLZ4_E_BAD_ARGUMENT naming both classes, instead of being used
// as the object it is not (a heap overflow, or worse, results that look right).
#pragma once
#include <cstdint>
#include <type_traits>

#include "bslz4/bslz4.h"
#include "c_status.hpp"

namespace bslz4::c_api {

enum class HandleClass : std::uint32_t {
    chunk2sparse = 1,
    chunk2sparse_csc,
    gpu_chunk2sparse,
    gpu_chunk2sparse_csc,
    matrix,
    device_array,
    pinned_memory,
};

// The class's C name: "bslz4_chunk2sparse", ...
const char* handle_class_name(HandleClass c) noexcept;

// Every handle's class tag and its mark. The mark tells a handle (of any class) from memory
// that is none: a pointer to something else is refused as such, not named as a class it is not.
struct HandleTag {
    std::uint64_t mark;
    HandleClass handle_class;
};
constexpr std::uint64_t kHandleMark = 0x62736c7a3468646cull;  // "bslz4hdl"

// The base of a handle of class C. Each handle struct derives from it alone (then from its
// members), so the tag sits at the handle's address whatever its class: read through another
// class's pointer, it is still the tag.
template <HandleClass C>
struct Tagged : HandleTag {
    static constexpr HandleClass kClass = C;
    Tagged() : HandleTag{kHandleMark, C} {}
};

// A bad_argument Error unless `tag` is a handle's of class `expected`; the message names
// `parameter`, the class the function takes and the one it was given.
void check_class(const HandleTag& tag, HandleClass expected, const char* parameter);

// h, checked: NULL, and a handle of another class, are bad_argument Errors naming `parameter`.
template <class H>
H* checked(H* h, const char* parameter) {
    require(h, parameter);
    check_class(*static_cast<const HandleTag*>(h), std::remove_const_t<H>::kClass, parameter);
    return h;
}

// A class's _destroy: NULL does nothing; a handle of another class is refused, not freed as
// this one (which would free the wrong object's members).
template <class H>
int destroy_call(const char* function, H* h, const char* parameter) {
    if (!h) return BSLZ4_OK;
    return guarded(function, [&] {
        delete checked(h, parameter);
        return BSLZ4_OK;
    });
}

}  // namespace bslz4::c_api
