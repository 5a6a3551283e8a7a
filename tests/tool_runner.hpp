// Runs the bslz4 command as a user would ($BSLZ4_TOOL), capturing its exit code and output.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.hpp"

namespace bslz4::test {

struct ToolResult {
    int code;
    std::string err, out;
};

// The process id keeps test binaries that Meson runs side by side (the same suite with and
// without the filter plugin, say) off each other's files.
inline std::string temp_path(const std::string& name) {
    return env_or("TMPDIR", "/tmp") + "/bslz4_test_" + std::to_string(getpid()) + "_" + name;
}

inline std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

inline ToolResult run_tool(const std::string& args) {
    const std::string tool = env_or("BSLZ4_TOOL", "bslz4");
    const std::string cmd = tool + " " + args + " >" + temp_path("stdout") + " 2>" + temp_path("stderr");
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(temp_path("stderr")), slurp(temp_path("stdout"))};
}

}  // namespace bslz4::test
