#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>

namespace bslz4::tool {

namespace {
constexpr double kPlainEvery = 5.0;  // seconds between lines when stderr is not a terminal
constexpr int kBarWidth = 30;
}  // namespace

Progress::Progress(std::size_t total, bool quiet)
    : total_(total), quiet_(quiet), terminal_(isatty(STDERR_FILENO) != 0),
      start_(std::chrono::steady_clock::now()), last_(start_) {}

double Progress::seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(std::size_t done) {
    if (quiet_) return;
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_).count();
    if (!terminal_ && since < kPlainEvery && done < total_) return;
    last_ = now;
    const double t = seconds(), rate = t > 0 ? done / t : 0;
    const double eta = rate > 0 ? (total_ - done) / rate : 0;
    if (terminal_) {
        const int filled = total_ ? static_cast<int>(kBarWidth * done / total_) : kBarWidth;
        std::fprintf(stderr, "\r[%.*s%*s] %zu/%zu frames  %.0f frames/s  ETA %.0f s ", filled,
                     "##############################", kBarWidth - filled, "", done, total_, rate, eta);
        drawn_ = true;
    } else {
        std::fprintf(stderr, "bslz4 sparse: %zu/%zu frames, %.0f frames/s, ETA %.0f s\n", done, total_, rate, eta);
    }
    std::fflush(stderr);
}

void Progress::finish() {
    if (drawn_) std::fputc('\n', stderr);
    drawn_ = false;
}

}  // namespace bslz4::tool
