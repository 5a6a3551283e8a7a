// The library's side of bslz4/log.hpp: where a message that no call can return is handed to the
// program's handler (or stderr).
#pragma once
#include "bslz4/log.hpp"

namespace bslz4::detail {

// Never throws: destructors log (their messages built without allocating).
void log(LogLevel level, const char* message) noexcept;

}  // namespace bslz4::detail
