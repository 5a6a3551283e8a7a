// Every C entry point runs its body inside guarded(): a C++ exception becomes a status value and
// the calling thread's message, so none crosses into C (std::bad_alloc included).
#pragma once
#include <cstdio>
#include <exception>
#include <new>
#include <stdexcept>
#include <string>

#include "bslz4/bslz4.h"
#include "bslz4/error.hpp"

namespace bslz4::c_api {

// A failure that only the C API has a status for (BSLZ4_E_OUTPUT_TOO_SMALL, BSLZ4_E_NO_GPU...).
class CFailure : public std::runtime_error {
public:
    CFailure(int status, const std::string& what) : std::runtime_error(what), status_(status) {}
    int status() const noexcept { return status_; }

private:
    int status_;
};

// The status of a library ErrorCode (the same number for the codes both have).
int status_of(ErrorCode code) noexcept;
// Records "function: message" as the calling thread's last error; returns status.
int fail(int status, const char* function, const char* message) noexcept;

template <class Body>
int guarded(const char* function, Body&& body) noexcept {
    try {
        return body();
    } catch (const CFailure& e) {
        return fail(e.status(), function, e.what());
    } catch (const Error& e) {
        return fail(status_of(e.code()), function, e.what());
    } catch (const std::bad_alloc&) {
        return fail(BSLZ4_E_OUT_OF_MEMORY, function, "host memory could not be had (std::bad_alloc)");
    } catch (const std::length_error& e) {
        // A container asked for more than it can ever hold: a request too large, not a bug.
        char message[512];
        std::snprintf(message, sizeof message, "more host memory asked for than can be had (std::length_error: %s)", e.what());
        return fail(BSLZ4_E_OUT_OF_MEMORY, function, message);
    } catch (const std::exception& e) {
        return fail(BSLZ4_E_INTERNAL, function, e.what());
    } catch (...) {
        return fail(BSLZ4_E_INTERNAL, function, "an exception of unknown type");
    }
}

// A bad_argument Error naming the parameter when p is NULL.
void require(const void* p, const char* parameter);

}  // namespace bslz4::c_api
