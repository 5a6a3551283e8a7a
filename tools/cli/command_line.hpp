// The bslz4 command's argument parsing: each subcommand names its options and flags; anything
// else is a usage error (exit 2).
#pragma once
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace bslz4::tool {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct Arguments {
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    std::set<std::string> flags;

    bool has(const std::string& name) const { return options.count(name) || flags.count(name); }
    std::string get(const std::string& name, const std::string& fallback = "") const;
    // Parsed numbers; a malformed one is a UsageError naming the option.
    double number(const std::string& name, double fallback) const;
    unsigned long long count(const std::string& name, unsigned long long fallback) const;
};

// with_value: options followed by a value ("-o", "--dtype"); flags: options without one.
// "--name=value" is accepted too. "--help"/"-h" sets the flag "help".
Arguments parse_arguments(const std::vector<std::string>& args, const std::set<std::string>& with_value,
                          const std::set<std::string>& flags);

}  // namespace bslz4::tool

#include "bslz4/pixel_type.hpp"

namespace bslz4::tool {

// A pixel type named on the command line: ours (u16, f32...) or numpy's (uint16, float32...).
// Else a UsageError naming `option`, the text and the names accepted.
PixelType parse_type_argument(const std::string& text, const std::string& option);

// The element size from exactly one of --dtype T (either name) or --elem-size N.
std::size_t element_size(const Arguments& args);

// Runs f(); a bslz4::Error from it is rethrown prefixed with "path: ", its code kept.
template <class F>
decltype(auto) about_file(const std::string& path, F&& f);

}  // namespace bslz4::tool

#include "bslz4/error.hpp"

template <class F>
decltype(auto) bslz4::tool::about_file(const std::string& path, F&& f) {
    try {
        return f();
    } catch (const bslz4::Error& e) {
        throw bslz4::Error(e.code(), path + ": " + e.what());
    }
}
