// --frames A:B: frames A to B - 1 of a scan, read as a Python slice is (either end may be left
// out; a negative one counts from the end, -10: is the last ten), except that an end past the
// scan is an error naming the scan's length, where Python would quietly clamp it.
#pragma once
#include <cstddef>
#include <optional>
#include <string>

namespace bslz4::tool {

struct FrameSelection {
    std::string spec;  // as given, for messages; "" selects every frame
    std::optional<long long> start, end;
};

// "A:B", ":B", "A:", ":" (or ""); anything else is an Error (bad_argument) naming it.
FrameSelection parse_frame_selection(const std::string& spec);

struct FrameRange {
    std::size_t first = 0, end = 0;  // [first, end)
};
// The frames selected of a scan of `frames`. A start or end past either end of the scan, or a
// selection of no frame, is an Error (bad_argument) naming the scan's length.
FrameRange resolve_frames(const FrameSelection& s, std::size_t frames);

}  // namespace bslz4::tool
