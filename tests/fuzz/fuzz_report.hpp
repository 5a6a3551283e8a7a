// How a fuzz target reports a wrong answer (as opposed to a crash, which the sanitizers and
// libFuzzer report themselves): the reason on stderr, then abort(), so libFuzzer saves the
// input and stops like on any crash.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <string>

namespace bslz4::fuzz {

[[noreturn]] inline void fail(const std::string& what) {
    std::fprintf(stderr, "\n==== fuzz check failed: %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

}  // namespace bslz4::fuzz
