// Where the library's messages go that no call can return: a warning when the driver refuses
// pinned host memory and the GPU classes fall back to pageable memory, an error when a driver
// object fails to be released in a destructor. By default each is a line on stderr ("bslz4:
// warning: ..."); a program with its own log (an acquisition system, a GUI) sets a handler and
// gets them there instead. Everything a call can report is an Error or a status, never a log.
#pragma once
#include "bslz4/export.h"

namespace bslz4 {

enum class LogLevel { warning = 1, error = 2 };  // the C API's BSLZ4_LOG_WARNING, BSLZ4_LOG_ERROR

// message: one line, no newline, valid during the call. Called on whichever thread the library
// met the event on, possibly several at once; it must not throw or call back into bslz4.
using LogHandler = void (*)(LogLevel level, const char* message, void* user);

// The handler for the whole process, with the pointer it is given back; nullptr restores the
// default (stderr). Safe to call from any thread: a message being logged goes to the handler
// before or after the change, whole.
BSLZ4_API void set_log_handler(LogHandler handler, void* user = nullptr);

}  // namespace bslz4
