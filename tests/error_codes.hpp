// ErrorCode in the tests: the code a call throws, and codes by name in Catch2's reports.
#pragma once
#include <catch2/catch.hpp>
#include <string>

#include "bslz4/error.hpp"

namespace Catch {
template <>
struct StringMaker<bslz4::ErrorCode> {
    static std::string convert(bslz4::ErrorCode code) { return bslz4::error_code_name(code); }
};
}  // namespace Catch

namespace bslz4::test {

// The code of the bslz4::Error that f() throws; ErrorCode::ok when it throws nothing.
template <class F>
ErrorCode code_thrown_by(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.code();
    }
    return ErrorCode::ok;
}

}  // namespace bslz4::test
