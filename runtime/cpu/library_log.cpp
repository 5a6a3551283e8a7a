// One handler for the process, read under a lock and called outside it, so a handler that sets
// another handler (or logs slowly) cannot deadlock or hold up the threads that set one.
#include "library_log.hpp"

#include <cstdio>
#include <mutex>

namespace bslz4 {

namespace {

struct Sink {
    LogHandler handler = nullptr;
    void* user = nullptr;
};

std::mutex& sink_lock() {
    static std::mutex m;
    return m;
}

Sink& sink() {
    static Sink s;
    return s;
}

void to_stderr(LogLevel level, const char* message) {
    std::fprintf(stderr, "bslz4: %s%s\n", level == LogLevel::warning ? "warning: " : "", message);
}

}  // namespace

void set_log_handler(LogHandler handler, void* user) {
    const std::lock_guard<std::mutex> hold(sink_lock());
    sink() = Sink{handler, user};
}

namespace detail {

void log(LogLevel level, const char* message) noexcept {
    Sink now;
    {
        const std::lock_guard<std::mutex> hold(sink_lock());
        now = sink();
    }
    if (now.handler)
        now.handler(level, message, now.user);
    else
        to_stderr(level, message);
}

}  // namespace detail

}  // namespace bslz4
