// The peak-labelling options both commands take (bslz4 peaks --algorithm, bslz4 sparse --peaks,
// and --wtmax with either), parsed once: a bad value is a UsageError naming its option.
#pragma once
#include <string>

#include "cli/command_line.hpp"
#include "peaks/scan_peaks.hpp"

namespace bslz4::tool {

// The algorithm named by `option` (fallback when it is not given) and --wtmax, if given.
peaks::PeakOptions peak_arguments(const Arguments& args, const std::string& option, const std::string& fallback);

}  // namespace bslz4::tool
