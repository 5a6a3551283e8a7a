// The bslz4 command as a user meets it: exit codes 0 / 1 (bad data) / 2 (bad usage), messages
// on stderr that start with "bslz4" and name the file and the problem.
#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "cli/file_io.hpp"
#include "cli/reference_cases.hpp"
#include "cli/sha256.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"

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

TEST_CASE("bslz4 bench --e2e on the CPU prints the latency, the file's read rate and the job's rate", "[cli]") {
#if BSLZ4_HAVE_CUDA
    const char* const kGpuSkipped = "gpu: skipped: --cpu";
#else
    const char* const kGpuSkipped = "gpu: skipped: this build has no GPU runtime";
#endif
    const Result r = run_tool("bench --cpu --e2e --frames 1 --seconds 0.01 --scan-frames 3 --profile very-sparse");
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("synthetic Eiger 4M u16, very-sparse profile") && Catch::Contains("[cpu: ") &&
                          Catch::Contains("one frame, host memory to lists on the host") &&
                          Catch::Contains("cpu (Chunk2Sparse)") && Catch::Contains("p99") &&
                          Catch::Contains(kGpuSkipped) && Catch::Contains("[latency: ") &&
                          Catch::Contains("[end to end: ") && Catch::Contains("[bench: "));
    CHECK_THAT(r.out, !Catch::Contains("gpu (a) chunks on the device") && !Catch::Contains("gpu vs cpu"));
#if BSLZ4_HAVE_HDF5
    CHECK_THAT(r.out, Catch::Contains("a scan of 3 frames written to") && Catch::Contains("page-cached rate") &&
                          Catch::Contains("bslz4 sparse on CPU") && Catch::Contains("GPU job: skipped (--cpu)"));
    // The scan and the outputs go with the bench.
    const auto at = r.out.find("written to ") + 11;
    const std::string scan = r.out.substr(at, r.out.find(' ', at) - at);
    CHECK(!std::filesystem::exists(scan));
#endif
}

TEST_CASE("--profile and --type take the synthetic profiles and the Eiger's types, and refuse the rest", "[cli]") {
    const Result bogus = run_tool("bench --profile bright");
    CHECK(bogus.code == 2);
    CHECK_THAT(bogus.err, Catch::Contains("unknown profile 'bright' (dense, sparse, very-sparse or all)"));
    const Result demo_all = run_tool("demo --profile all");  // all is the bench's alone
    CHECK(demo_all.code == 2);
    CHECK_THAT(demo_all.err, Catch::Contains("unknown profile 'all' (dense, sparse, very-sparse)"));
    const Result u8 = run_tool("bench --type u8");
    CHECK(u8.code == 2);
    CHECK_THAT(u8.err, Catch::Contains("u16 (uint16) or u32 (uint32), not 'u8'"));
    CHECK(run_tool("demo --type f32").code == 2);
    CHECK(run_tool("bench --scan-frames 5").code == 2);  // only with --e2e
    for (const char* shapes : {"1", "x5", "10x", "10x0", "2000,,1500x72", "3x2x1", "-4", "99999999999"}) {
        INFO(shapes);
        const Result r = run_tool(std::string("bench --matrix-bins ") + shapes);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--matrix-bins"));
    }
    const Result shaped = run_tool("bench --cpu --frames 1 --seconds 0.01 --profile very-sparse --matrix-bins 10x3,7");
    REQUIRE(shaped.code == 0);
    CHECK_THAT(shaped.out, Catch::Contains("(10 x 3 bins, ") && Catch::Contains("(7 bins, "));
    CHECK(run_tool("bench --e2e --scan-frames 0").code == 2);
#if BSLZ4_HAVE_HDF5
    const std::string dir = tmp("demo_profile");
    std::filesystem::create_directories(dir);  // no cases.tsv in it: the reference cases are skipped
    const Result demo = run_tool("demo --cpu --frames 2 --profile sparse --type u32 --testdata " + dir + " --dir " + dir);
    REQUIRE(demo.code == 0);
    CHECK_THAT(demo.out, Catch::Contains("synthetic Eiger 4M u32, sparse profile scan: 2 frames") &&
                             Catch::Contains("2 frames, "));
    std::filesystem::remove_all(dir);
#endif
}

TEST_CASE("demo --dir makes a directory that is not there (with its parents) and says why when it cannot", "[cli]") {
#if BSLZ4_HAVE_HDF5
    const std::string parent = tmp("demo_new_dir"), dir = parent + "/scans/today";
    std::filesystem::remove_all(parent);
    // --testdata names no folder: the reference cases are skipped
    const std::string common = "demo --cpu --frames 1 --profile very-sparse --testdata " + parent + " --dir ";
    const Result made = run_tool(common + dir);
    INFO(made.err);
    REQUIRE(made.code == 0);
    CHECK(std::filesystem::is_regular_file(dir + "/sparse.h5"));
    CHECK_THAT(made.out, Catch::Contains("output: " + dir + "/sparse.h5"));
    const Result again = run_tool(common + dir);  // there already: used as it is
    CHECK(again.code == 0);
    std::filesystem::remove_all(parent);

    const std::string file = tmp("demo_dir_is_a_file");
    bslz4::tool::write_file(file, std::vector<std::uint8_t>{1});
    const Result under_file = run_tool(common + file + "/sub");
    CHECK(under_file.code == 1);
    CHECK_THAT(under_file.err, Catch::StartsWith("bslz4: demo: --dir " + file + "/sub: cannot make the directory: "));
    const Result is_file = run_tool(common + file);
    CHECK(is_file.code == 1);
    CHECK_THAT(is_file.err, Catch::StartsWith("bslz4: demo: --dir " + file + ": "));
    std::remove(file.c_str());
#endif
}

TEST_CASE("the dense profile is the generator's original data, bit for bit", "[cli]") {
    // sha256 of frame 3, 600 x 1100 (a gap row and a gap column), from the generator before profiles.
    using bslz4::PixelType;
    CHECK(bslz4::tool::sha256_hex(bslz4::synthetic_eiger_frame(600, 1100, PixelType::u16, 3)) ==
          "8a1f08a090422fba55726d236b131b0dc3d91dee60614437c8e83c0987c0b69a");
    CHECK(bslz4::tool::sha256_hex(bslz4::synthetic_eiger_frame(600, 1100, PixelType::u32, 3,
                                                               bslz4::SyntheticProfile::dense)) ==
          "c08d056bca1f1fc4de76de3b2eea81cca8d394951aa7bbf734e8e624a93a6ddd");
}

TEST_CASE("every profile's frames round-trip through the encoder and list the pixels above the cut", "[cli]") {
    using namespace bslz4;
    constexpr std::size_t ni = 600, nj = 1100;
    constexpr double cut = 0;  // every counted photon: the background's pixels too
    const auto mask = synthetic_eiger_mask(ni, nj);
    std::size_t previous = ni * nj;
    for (SyntheticProfile p : {SyntheticProfile::dense, SyntheticProfile::sparse, SyntheticProfile::very_sparse})
        for (PixelType t : {PixelType::u16, PixelType::u32}) {
            INFO(synthetic_profile_name(p) << " " << pixel_type_name(t));
            const auto raw = synthetic_eiger_frame(ni, nj, t, 1, p);
            const auto chunk = encode_chunk(raw, pixel_size(t));
            REQUIRE(decode_chunk(chunk, pixel_size(t)) == raw);
            Chunk2Sparse c2s(mask, ni, nj, t);
            const SparseFrame f = c2s(chunk, cut);
            std::size_t expected = 0;
            visit_pixel_type(t, [&](auto zero) {
                using T = decltype(zero);
                const T* px = reinterpret_cast<const T*>(raw.data());
                std::vector<std::uint32_t> indices;
                std::vector<T> values;
                for (std::size_t k = 0; k < ni * nj; ++k)
                    if (mask[k] && px[k] > cut) {
                        indices.push_back(static_cast<std::uint32_t>(k));
                        values.push_back(px[k]);
                    }
                REQUIRE(f.npixels == indices.size());
                CHECK(std::vector<std::uint32_t>(f.indices, f.indices + f.npixels) == indices);
                CHECK(std::vector<T>(f.values_as<T>(), f.values_as<T>() + f.npixels) == values);
                expected = indices.size();
            });
            if (t == PixelType::u16) {
                CHECK(expected < previous);  // each profile sparser than the one before
                previous = expected;
            }
        }
}

TEST_CASE("the profiles compress an Eiger 4M frame about 8, 27 and 90 times, as their help says", "[cli]") {
    using namespace bslz4;
    const std::pair<SyntheticProfile, std::pair<double, double>> expected[] = {
        {SyntheticProfile::dense, {7.5, 9}}, {SyntheticProfile::sparse, {23, 31}}, {SyntheticProfile::very_sparse, {80, 100}}};
    for (const auto& [profile, range] : expected) {
        const auto raw = synthetic_eiger_frame(kEiger4mRows, kEiger4mCols, PixelType::u16, 0, profile);
        const double ratio = static_cast<double>(raw.size()) / encode_chunk(raw, 2).size();
        INFO(synthetic_profile_name(profile) << ": ratio " << ratio);
        CHECK(ratio > range.first);
        CHECK(ratio < range.second);
    }
}

TEST_CASE("a file the tools cannot read or write is an io error; a malformed case list is bad_argument", "[cli][error-codes]") {
    using bslz4::ErrorCode;
    using bslz4::test::code_thrown_by;
    const std::string dir = tmp("cases_dir");
    std::filesystem::remove_all(dir);
    CHECK(code_thrown_by([&] { bslz4::tool::read_file(tmp("no_such_file")); }) == ErrorCode::io);
    CHECK(code_thrown_by([&] { bslz4::tool::write_file(dir + "/no_such_folder/out", std::vector<std::uint8_t>(3)); }) ==
          ErrorCode::io);
    CHECK(code_thrown_by([&] { bslz4::tool::read_reference_cases(dir); }) == ErrorCode::io);
    std::filesystem::create_directories(dir);
    const std::string header = "name\tdtype\telem_size\tni\tnj\tcodec\tblock_bytes\tchunk_bytes\tsha256\traw\n";
    const std::string line = "a\tu16\t2\t4\t4\tlz4\t0\t40\tabc\tno\n";
    bslz4::tool::write_file(dir + "/cases.tsv", std::string(header + line));
    CHECK(code_thrown_by([&] { bslz4::tool::read_reference_cases(dir); }) == ErrorCode::ok);
    bslz4::tool::write_file(dir + "/cases.tsv", std::string(header + "a\tu16\ttwo\n"));
    CHECK(code_thrown_by([&] { bslz4::tool::read_reference_cases(dir); }) == ErrorCode::bad_argument);
}
