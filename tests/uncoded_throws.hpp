// Source checks for the tests that pin error codes: every bslz4::Error made with a code, every
// failure a bslz4::Error. Reads C++ text, skipping string and character literals.
#pragma once
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace bslz4::test {

// The build folder's copy of the sources these checks read (tests/copy_source_tree.py, made at
// each build): $BSLZ4_SOURCE_COPY as meson test sets it, else source-copy beside the test
// binary. Never the source tree, so a build folder taken to another host runs the checks.
inline std::filesystem::path source_copy() {
    namespace fs = std::filesystem;
    if (const char* dir = std::getenv("BSLZ4_SOURCE_COPY"); dir && *dir) return dir;
    std::error_code ec;
    const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "source-copy";
    if (!ec && fs::is_directory(beside)) return beside;
    throw std::runtime_error("no copy of the sources to check: BSLZ4_SOURCE_COPY is not set and there is no " +
                             beside.string() + " (build the source-copy target: ninja builds it with the tests)");
}

inline std::string source_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream buf;
    buf << in.rdbuf();
    return buf.str();
}

inline std::string source_line(const std::string& path, const std::string& text, std::size_t pos) {
    return path + ":" + std::to_string(1 + std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
}

// "path:line (Error from a message alone)" for every Error( with one argument in the file (not
// FrameError(, UsageError( and the like: the name must start there).
inline std::vector<std::string> errors_from_a_message_alone(const std::string& path) {
    const std::string s = source_text(path);
    std::vector<std::string> found;
    for (std::size_t pos = s.find("Error("); pos != std::string::npos; pos = s.find("Error(", pos + 1)) {
        if (pos > 0 && (std::isalnum(static_cast<unsigned char>(s[pos - 1])) || s[pos - 1] == '_')) continue;
        int depth = 0;
        bool second_argument = false;
        for (std::size_t i = pos + 6; i < s.size(); ++i) {
            const char c = s[i];
            if (c == '"' || c == '\'') {  // skip the literal
                for (++i; i < s.size() && s[i] != c; ++i)
                    if (s[i] == '\\') ++i;
            } else if (c == '(' || c == '[' || c == '{') {
                ++depth;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth-- == 0) break;
            } else if (c == ',' && depth == 0) {
                second_argument = true;
                break;
            }
        }
        if (!second_argument) found.push_back(source_line(path, s, pos) + " (Error from a message alone)");
    }
    return found;
}

// "path:line (throw std::)" for every `throw std::` in the file.
inline std::vector<std::string> std_throws(const std::string& path) {
    const std::string s = source_text(path);
    std::vector<std::string> found;
    for (std::size_t pos = s.find("throw std::"); pos != std::string::npos; pos = s.find("throw std::", pos + 1))
        found.push_back(source_line(path, s, pos) + " (throw std::)");
    return found;
}

}  // namespace bslz4::test
