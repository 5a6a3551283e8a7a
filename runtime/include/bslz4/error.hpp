// The one exception type of the library: every failure (bad chunk, bad argument, driver error)
// is a bslz4::Error whose message says what was wrong and where.
#pragma once
#include <stdexcept>
#include <string>

namespace bslz4 {

class Error : public std::runtime_error {
public:
    explicit Error(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace bslz4
