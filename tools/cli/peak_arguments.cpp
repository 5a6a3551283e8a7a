#include "cli/peak_arguments.hpp"

#include "bslz4/error.hpp"

namespace bslz4::tool {

peaks::PeakOptions peak_arguments(const Arguments& args, const std::string& option, const std::string& fallback) {
    peaks::PeakOptions options;
    try {
        options.algorithm = peaks::parse_algorithm(args.get(option, fallback));
    } catch (const Error& e) {
        throw UsageError(option + ": " + e.what());
    }
    if (args.has("--wtmax")) {
        const double w = args.number("--wtmax", 0);
        if (!(w == w) || w < -9.2e18 || w > 9.2e18) throw UsageError("--wtmax must be a number an int64 holds");
        options.wtmax = w;
    }
    return options;
}

}  // namespace bslz4::tool
