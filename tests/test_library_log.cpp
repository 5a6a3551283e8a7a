// The library's log (bslz4/log.hpp, bslz4_set_log_handler): where its messages that no call can
// return go. The GPU suite pins the one a GPU run makes (pinned memory refused); here the path
// itself, through the library's own logging entry point.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "bslz4/bslz4.h"
#include "bslz4/log.hpp"
#include "library_log.hpp"
#include "stderr_capture.hpp"

using namespace bslz4;

namespace {

struct Kept {
    std::vector<std::pair<int, std::string>> messages;
};

void keep_cpp(LogLevel level, const char* message, void* user) {
    static_cast<Kept*>(user)->messages.emplace_back(static_cast<int>(level), message);
}

void keep_c(int level, const char* message, void* user) {
    static_cast<Kept*>(user)->messages.emplace_back(level, message);
}

}  // namespace

TEST_CASE("a message the library logs is a line on stderr by default, the program's handler's once it sets one, and "
          "stderr's again after it sets none", "[log]") {
    Kept kept;
    std::string printed;
    {
        test::StderrCapture err;
        detail::log(LogLevel::warning, "pinned memory refused");
        detail::log(LogLevel::error, "cuStreamDestroy failed");
        set_log_handler(keep_cpp, &kept);
        detail::log(LogLevel::warning, "to the handler");
        set_log_handler(nullptr);
        detail::log(LogLevel::error, "back on stderr");
        printed = err.text();
    }
    CHECK(printed == "bslz4: warning: pinned memory refused\nbslz4: cuStreamDestroy failed\nbslz4: back on stderr\n");
    REQUIRE(kept.messages.size() == 1);
    CHECK(kept.messages[0] == std::make_pair(static_cast<int>(LogLevel::warning), std::string("to the handler")));
}

TEST_CASE("the C API's log handler gets the library's messages with the BSLZ4_LOG_ levels and its own pointer; NULL "
          "gives them back to stderr", "[log][c_api]") {
    Kept first, second;
    std::string printed;
    {
        test::StderrCapture err;
        REQUIRE(bslz4_set_log_handler(keep_c, &first) == BSLZ4_OK);
        detail::log(LogLevel::warning, "one");
        REQUIRE(bslz4_set_log_handler(keep_c, &second) == BSLZ4_OK);  // a second replaces the first
        detail::log(LogLevel::error, "two");
        REQUIRE(bslz4_set_log_handler(nullptr, nullptr) == BSLZ4_OK);
        detail::log(LogLevel::warning, "three");
        printed = err.text();
    }
    CHECK(first.messages == std::vector<std::pair<int, std::string>>{{BSLZ4_LOG_WARNING, "one"}});
    CHECK(second.messages == std::vector<std::pair<int, std::string>>{{BSLZ4_LOG_ERROR, "two"}});
    CHECK(printed == "bslz4: warning: three\n");
}
