// What a batch call does with a frame it cannot decode: throw (one damaged chunk loses the
// call), or report it and return the rest (one damaged chunk costs one frame).
#pragma once
#include <cstddef>
#include <string>

#include "bslz4/error.hpp"

namespace bslz4 {

enum class OnError {
    // multi, from_buffer, from_frames throw the Error of the first bad frame, its message starting
    // "frame F: " (F counted from the call's first frame). The default.
    throw_first,
    // They return every frame: a bad frame has 0 pixels, a zero powder row, and its code and
    // message in the batch (SparseBatch::codes, SparseBatch::bad). What is wrong with the call
    // itself (offsets and lengths of different counts, say) and running out of memory still throw.
    report,
};

// A frame a batch call could not decode (OnError::report).
struct FrameError {
    std::size_t frame = 0;  // in the call, from 0
    ErrorCode code = ErrorCode::unspecified;
    std::string message;  // what OnError::throw_first's Error would say, "frame F: " included
};

}  // namespace bslz4
