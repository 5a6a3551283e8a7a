#include "cli/frame_selection.hpp"

#include <cerrno>
#include <cstdlib>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

std::optional<long long> slice_end(const std::string& text, const std::string& spec) {
    if (text.empty()) return std::nullopt;
    const std::size_t digits = text[0] == '-' ? 1 : 0;
    if (text.size() == digits || text.find_first_not_of("0123456789", digits) != std::string::npos)
        throw Error(ErrorCode::bad_argument,
                    "--frames '" + spec + "': expected A:B, whole numbers (either may be left out; negative ones count from the end)");
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) throw Error(ErrorCode::bad_argument, "--frames '" + spec + "': " + text + " is out of range");
    return v;
}

std::string scan_of(std::size_t frames) {
    return "the scan, which has " + std::to_string(frames) + (frames == 1 ? " frame" : " frames") +
           (frames ? " (0 to " + std::to_string(frames - 1) + "; negative numbers count from the end)" : "");
}

}  // namespace

FrameSelection parse_frame_selection(const std::string& spec) {
    FrameSelection s;
    s.spec = spec;
    if (spec.empty()) return s;
    const std::size_t colon = spec.find(':');
    if (colon == std::string::npos)
        throw Error(ErrorCode::bad_argument, "--frames '" + spec + "': expected A:B (frames A to B - 1; A: or :B for the rest)");
    s.start = slice_end(spec.substr(0, colon), spec);
    s.end = slice_end(spec.substr(colon + 1), spec);
    return s;
}

FrameRange resolve_frames(const FrameSelection& s, std::size_t frames) {
    const long long n = static_cast<long long>(frames);
    const auto place = [&](const std::optional<long long>& v, long long fallback, const char* which) {
        if (!v) return fallback;
        if (*v > n || *v < -n)
            throw Error(ErrorCode::bad_argument, "--frames " + s.spec + (std::string(which) == "start" ? " selects no frame: " : ": ") +
                                                     "its " + which + " " + std::to_string(*v) + " is " +
                                                     (*v > n ? "past the end of " : "before the start of ") + scan_of(frames));
        return *v < 0 ? n + *v : *v;
    };
    const long long first = place(s.start, 0, "start"), end = place(s.end, n, "end");
    if (first >= end) throw Error(ErrorCode::bad_argument, "--frames " + s.spec + " selects no frame of " + scan_of(frames));
    return {static_cast<std::size_t>(first), static_cast<std::size_t>(end)};
}

}  // namespace bslz4::tool
