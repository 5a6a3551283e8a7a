// The bslz4 command as a user meets it: exit codes 0 / 1 (bad data) / 2 (bad usage), messages
// on stderr that start with "bslz4" and name the file and the problem.
#include <catch2/catch.hpp>
#include <cstdio>

#include "bslz4/bslz4.hpp"
#include "file_io.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using bslz4::test::run_tool;
using Result = bslz4::test::ToolResult;

namespace {
std::string tmp(const std::string& name) { return bslz4::test::temp_path("cli_" + name); }
}  // namespace

TEST_CASE("bslz4 encode then decode round trips a file", "[cli]") {
    const auto raw = bslz4::test::random_pixels<std::uint16_t>(3001, 1);
    bslz4::tool::write_file(tmp("raw"), raw);
    for (const char* codec : {"lz4", "zstd"}) {
        REQUIRE(run_tool(std::string("encode --dtype u16 --codec ") + codec + " --block-bytes 1024 " + tmp("raw") + " -o " + tmp("chunk")).code == 0);
        REQUIRE(run_tool(std::string("decode --dtype u16 --codec ") + codec + " --cpu " + tmp("chunk") + " -o " + tmp("back")).code == 0);
        REQUIRE(bslz4::tool::read_file(tmp("back")) == raw);
    }
    const Result info = run_tool("info --dtype u16 " + tmp("chunk"));
    REQUIRE(info.code == 0);
    CHECK_THAT(info.out, Catch::Contains("decoded bytes   6002") && Catch::Contains("blocks          6"));
}

TEST_CASE("bslz4 exits 1 on bad data, naming the file and the problem", "[cli]") {
    std::vector<std::uint8_t> junk = {0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0x20, 0};
    bslz4::tool::write_file(tmp("junk"), junk);
    const Result r = run_tool("decode --elem-size 2 " + tmp("junk") + " -o " + tmp("out"));
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::StartsWith("bslz4: ") && Catch::Contains(tmp("junk")) && Catch::Contains("not a multiple of the element size"));
    const Result missing = run_tool("info " + tmp("does_not_exist"));
    CHECK(missing.code == 1);
    CHECK_THAT(missing.err, Catch::Contains("does_not_exist: cannot open"));
}

TEST_CASE("bslz4 exits 2 on bad usage and 0 for --help on every subcommand", "[cli]") {
    CHECK(run_tool("").code == 2);
    CHECK(run_tool("frobnicate").code == 2);
    CHECK(run_tool("decode " + tmp("raw") + " -o " + tmp("out")).code == 2);  // no type
    CHECK(run_tool("decode --dtype u17 " + tmp("raw") + " -o " + tmp("out")).code == 2);
    CHECK(run_tool("encode --dtype u16 --block-bytes 12 " + tmp("raw") + " -o " + tmp("out")).code == 2);
    CHECK(run_tool("bench --frames x").code == 2);
    const Result bad = run_tool("info --bogus x");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("unknown option '--bogus'"));
    for (const char* sub : {"info", "decode", "encode", "bench", "demo", "sparse"}) {
        const Result h = run_tool(std::string(sub) + " --help");
        CHECK(h.code == 0);
        CHECK_THAT(h.out, Catch::StartsWith("usage: bslz4 "));
    }
}
