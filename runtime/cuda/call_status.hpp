// The frames of one call found bad, with the code and message each would have thrown, and what
// the call does with them: throw at the first (OnError::throw_first, the stages throw it
// themselves) or report them beside the good frames (OnError::report: a bad frame is skipped by
// the kernels, gets 0 pixels and a zero powder row, and its code and message go in the batch).
#pragma once
#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "bslz4/frame_status.hpp"

namespace bslz4::cuda::detail {

class CallStatus {
public:
    void begin(std::size_t nframes, OnError mode) {
        mode_ = mode;
        codes_.assign(nframes, ErrorCode::ok);
        bad_.clear();
    }
    bool reporting() const { return mode_ == OnError::report; }
    bool is_bad(std::size_t f) const { return codes_[f] != ErrorCode::ok; }
    // Frame f is bad (reporting calls only); `message` starts "frame F: ". The first verdict stays.
    void mark_bad(std::size_t f, ErrorCode code, std::string message) {
        if (is_bad(f)) return;
        codes_[f] = code;
        bad_.push_back({f, code, std::move(message)});
    }
    // Frames are marked group by group as the stages find them, not in frame order.
    void sort() {
        std::sort(bad_.begin(), bad_.end(), [](const FrameError& a, const FrameError& b) { return a.frame < b.frame; });
    }
    const ErrorCode* codes() const { return codes_.data(); }
    const FrameError* bad() const { return bad_.data(); }
    std::size_t nbad() const { return bad_.size(); }

private:
    OnError mode_ = OnError::throw_first;
    std::vector<ErrorCode> codes_;
    std::vector<FrameError> bad_;
};

}  // namespace bslz4::cuda::detail
