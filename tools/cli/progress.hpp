// Progress of a long run on stderr: a bar with frames done, frames/s and ETA on a terminal,
// a plain line every few seconds otherwise, nothing with --quiet.
#pragma once
#include <chrono>
#include <cstddef>

namespace bslz4::tool {

class Progress {
public:
    Progress(std::size_t total, bool quiet);
    void update(std::size_t done);
    void finish();
    double seconds() const;

private:
    std::size_t total_;
    bool quiet_, terminal_;
    std::chrono::steady_clock::time_point start_, last_;
    bool drawn_ = false;
};

}  // namespace bslz4::tool
