// bslz4_set_log_handler: the C face of bslz4::set_log_handler (bslz4/log.hpp). The C handler
// and its pointer are kept here and called through one C++ handler, so the levels reach C as
// the BSLZ4_LOG_ values.
#include <deque>
#include <mutex>

#include "bslz4/bslz4.h"
#include "bslz4/log.hpp"
#include "c_status.hpp"

namespace {

struct CHandler {
    bslz4_log_handler handler = nullptr;
    void* user = nullptr;
};

void to_c(bslz4::LogLevel level, const char* message, void* user) {
    const auto* c = static_cast<const CHandler*>(user);
    c->handler(level == bslz4::LogLevel::warning ? BSLZ4_LOG_WARNING : BSLZ4_LOG_ERROR, message, c->user);
}

}  // namespace

int bslz4_set_log_handler(bslz4_log_handler handler, void* user) {
    return bslz4::c_api::guarded("bslz4_set_log_handler", [&] {
        // Each handler set is kept for the process's life (16 bytes a call), never overwritten:
        // a message being delivered on another thread through the one set before reads it whole.
        static std::deque<CHandler> kept;
        static std::mutex lock;
        const std::lock_guard<std::mutex> hold(lock);
        if (!handler) {
            bslz4::set_log_handler(nullptr);
            return BSLZ4_OK;
        }
        kept.push_back(CHandler{handler, user});
        bslz4::set_log_handler(to_c, &kept.back());
        return BSLZ4_OK;
    });
}
