// `bslz4 sparse` as a user runs it: scans written here (our encoder, direct chunk writes), the
// output read back through HDF5 and compared with the library, and every refusal with its
// message.
#include <sys/resource.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <numeric>
#include <system_error>
#include <thread>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "cli/file_io.hpp"
#include "h5_reader.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/scan_writer.hpp"
#include "hdf5/sparse_output.hpp"
#include "matrix_support.hpp"
#include "sparse/sparse_campaign.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "sparse_test_scan.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;
using test::kFrames;
using test::kNi;
using test::kNj;
using test::Scan;
using test::write_master_file;
using test::write_test_scan;

namespace {

// Meson runs this binary twice at once (with and without the filter plugin), and other test
// binaries too: each run gets its own $TMPDIR, so that the files temp_path names (the tool's
// captured stdout and stderr among them) are its own. Removed at exit.
class PrivateTmpdir {
public:
    PrivateTmpdir() {
        std::string pattern = test::env_or("TMPDIR", "/tmp") + "/bslz4-sparse-tool-XXXXXX";
        if (mkdtemp(pattern.data()) && setenv("TMPDIR", pattern.c_str(), 1) == 0) path_ = pattern;
    }
    ~PrivateTmpdir() {
        std::error_code ignored;
        if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
    }

private:
    std::string path_;
};
const PrivateTmpdir private_tmpdir;

}  // namespace

TEST_CASE("sparse writes the ImageD11 layout, equal to the library's lists and powders", "[sparse-tool]") {
    const std::string scan = temp_path("scan.h5"), out = temp_path("out.h5"), mat = temp_path("matrix.h5");
    const Scan s = write_test_scan(scan);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(40, kNi * kNj, 2.0, 9).input());
    tool::write_matrix(mat, "csr", m);
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --matrix " + mat + ":csr --cpu");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("70 frames"));

    Chunk2SparseCSC lib(s.use, kNi, kNj, PixelType::u16, m);
    const IntegratedBatch want = lib.multi(std::vector<ByteView>(s.chunks.begin(), s.chunks.end()), 4.0);
    const std::string g = "/entry/data/data";
    {
        const test::H5Reader f(out);
        CHECK(f.attribute(g, "shape0") == std::vector<std::int64_t>{kNi});
        CHECK(f.attribute(g, "shape1") == std::vector<std::int64_t>{kNj});
        CHECK(f.attribute(g, "nframes") == std::vector<std::int64_t>{kFrames});
        CHECK(f.attribute(g, "complete") == std::vector<std::int64_t>{1});
        const auto nnz = f.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32);
        const auto row = f.dataset<std::uint32_t>(g + "/row", H5T_NATIVE_UINT32);
        const auto col = f.dataset<std::uint32_t>(g + "/col", H5T_NATIVE_UINT32);
        const auto intensity = f.dataset<std::uint32_t>(g + "/intensity", H5T_NATIVE_UINT32);
        const auto powder = f.dataset<double>(g + "/powder", H5T_NATIVE_DOUBLE);
        REQUIRE(nnz.size() == kFrames);
        REQUIRE(powder.size() == kFrames * 40);
        std::size_t at = 0;
        for (std::size_t fr = 0; fr < kFrames; ++fr) {
            const SparseFrame w = want.sparse.frame(fr);
            REQUIRE(static_cast<std::size_t>(nnz[fr]) == w.npixels);
            for (std::size_t k = 0; k < w.npixels; ++k, ++at) {
                REQUIRE(row[at] * kNj + col[at] == w.indices[k]);
                REQUIRE(intensity[at] == w.values_as<std::uint16_t>()[k]);
            }
            for (std::size_t b = 0; b < 40; ++b) REQUIRE(powder[fr * 40 + b] == want.powder.value(fr, b));
        }
        REQUIRE(at == row.size());
    }  // closes the output before it is written again

    // --mask FILE:PATH (NeXus convention) gives what the file's own pixel_mask gave
    const std::string out_mask = temp_path("out_mask.h5");
    const test::ToolResult rm = run_tool("sparse --overwrite " + scan + " -o " + out_mask + " --cut 4 --mask " + scan +
                                         ":/entry/instrument/detector/pixel_mask --cpu --quiet");
    INFO(rm.err);
    REQUIRE(rm.code == 0);
    {
        const test::H5Reader fm(out_mask);
        const auto nnz = fm.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32);
        for (std::size_t fr = 0; fr < kFrames; ++fr) REQUIRE(static_cast<std::size_t>(nnz[fr]) == want.sparse.npixels[fr]);
    }

    // --frames, --no-mask and the i64 accumulator
    const test::ToolResult r2 =
        run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --frames 10:25 --no-mask --matrix " + mat + ":csr --acc i64 --cpu --quiet");
    INFO(r2.err);
    REQUIRE(r2.code == 0);
    const test::H5Reader f2(out);
    CHECK(f2.attribute(g, "nframes") == std::vector<std::int64_t>{15});
    CHECK(f2.dataset<std::int64_t>(g + "/powder", H5T_NATIVE_INT64).size() == 15 * 40);
}

TEST_CASE("an Eiger master file's external data links are followed in order, into one group at /entry/data/data; with "
          "--per-file a group per data file at its own path",
          "[sparse-tool]") {
    const std::string dir = test::env_or("TMPDIR", "/tmp");
    const std::string part1 = dir + "/bslz4_test_master_data_000001.h5", part2 = dir + "/bslz4_test_master_data_000002.h5";
    const std::string master = dir + "/bslz4_test_master.h5", out = temp_path("master_out.h5");
    const Scan s = write_test_scan(part1);
    write_test_scan(part2);
    write_master_file(master, {"bslz4_test_master_data_000001.h5", "bslz4_test_master_data_000002.h5"});
    const test::ToolResult r = run_tool("sparse --overwrite " + master + " -o " + out + " --cut 4 --no-mask --cpu");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("140 frames"));
    {
        const test::H5Reader f(out);
        CHECK(f.attribute("/entry/data/data", "nframes") == std::vector<std::int64_t>{2 * kFrames});
        CHECK(f.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{1});
        CHECK(f.text_attribute("/entry/data/data", "sources") ==
              std::vector<std::string>{"/entry/data/data_000001", "/entry/data/data_000002"});
        CHECK_FALSE(f.exists("/entry/data/data_000001"));
        const auto nnz = f.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32);
        REQUIRE(nnz.size() == 2 * kFrames);
        CHECK(std::vector<std::uint32_t>(nnz.begin(), nnz.begin() + kFrames) == std::vector<std::uint32_t>(nnz.begin() + kFrames, nnz.end()));
    }
    const test::ToolResult per_file = run_tool("sparse --overwrite " + master + " -o " + out + " --cut 4 --no-mask --cpu --quiet --per-file");
    INFO(per_file.err);
    REQUIRE(per_file.code == 0);
    const test::H5Reader f(out);
    CHECK_FALSE(f.exists("/entry/data/data"));
    CHECK(f.attribute("/entry/data/data_000001", "nframes") == std::vector<std::int64_t>{kFrames});
    CHECK(f.attribute("/entry/data/data_000002", "nframes") == std::vector<std::int64_t>{kFrames});
    CHECK(f.attribute("/entry/data/data_000002", "complete") == std::vector<std::int64_t>{1});
    (void)s;
}

TEST_CASE("an Eiger master file's data link that does not resolve is an error naming its target", "[sparse-tool]") {
    const std::string dir = test::env_or("TMPDIR", "/tmp");
    const std::string part1 = dir + "/bslz4_test_broken_master_data_000001.h5", master = dir + "/bslz4_test_broken_master.h5";
    const std::string out = temp_path("broken_master_out.h5");
    write_test_scan(part1);
    // the second file of the scan is missing: reading the first alone would lose frames silently
    write_master_file(master, {"bslz4_test_broken_master_data_000001.h5", "bslz4_test_broken_master_data_000002.h5"});
    const test::ToolResult r = run_tool("sparse --overwrite " + master + " -o " + out + " --cut 4 --no-mask --cpu");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("/entry/data/data_000002 is an external link to "
                                      "bslz4_test_broken_master_data_000002.h5:/entry/data/data"));
}

TEST_CASE("an interrupted run leaves a readable OUTPUT.incomplete with the frames done, marked incomplete", "[sparse-tool]") {
    const std::string scan = temp_path("scan_stop.h5"), out = temp_path("out_stop.h5");
    write_test_scan(scan);
    test::check_stopped_after_first_batch(test::cpu_sparse_job(scan, out));
    CHECK(test::H5Reader(out + ".incomplete").dataset<std::int32_t>("/entry/data/data/nnz", H5T_NATIVE_INT32).size() == 64);
}

TEST_CASE("sparse refuses bad input with a message naming it", "[sparse-tool]") {
    const std::string scan = temp_path("scan_bad.h5"), out = temp_path("out_bad.h5");
    write_test_scan(scan, 7);
    std::remove(out.c_str());
    test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 7:") && Catch::Contains(out + " is not written"));
    CHECK_FALSE(std::ifstream(out).good());  // a failed run leaves no output behind (an interrupted one does)

    r = run_tool("sparse --overwrite " + temp_path("no_such_file.h5") + " -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no_such_file.h5: cannot open"));
    r = run_tool("sparse --overwrite " + scan + " --dataset /entry/nope -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no dataset /entry/nope"));
    r = run_tool("sparse --overwrite " + scan + " -o /nonexistent_dir/out.h5 --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("the folder /nonexistent_dir does not exist"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--cut"));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --frames 90:95");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("selects no frame"));

    // another filter than 32008, and several frames a chunk
    const std::string gz = temp_path("gzip.h5");
    {
        const tool::h5::Handle file = tool::h5::create_file(gz);
        const hsize_t dims[3] = {4, 8, 8}, chunk[3] = {1, 8, 8}, chunk2[3] = {2, 8, 8};
        tool::h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
        tool::h5::Handle p1(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
        H5Pset_chunk(p1.get(), 3, chunk);
        H5Pset_deflate(p1.get(), 4);
        tool::h5::Handle d1(H5Dcreate2(file.get(), "gzip", H5T_STD_U16LE, space.get(), H5P_DEFAULT, p1.get(), H5P_DEFAULT),
                            H5Dclose, "d1");
        tool::h5::Handle p2(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
        H5Pset_chunk(p2.get(), 3, chunk2);
        tool::h5::Handle d2(H5Dcreate2(file.get(), "pairs", H5T_STD_U16LE, space.get(), H5P_DEFAULT, p2.get(), H5P_DEFAULT),
                            H5Dclose, "d2");
    }
    r = run_tool("sparse --overwrite " + gz + " --dataset /gzip -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("HDF5 filter 1") && Catch::Contains("only bitshuffle (32008)"));
    r = run_tool("sparse --overwrite " + gz + " --dataset /pairs -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("one chunk must be one frame"));
    r = run_tool("sparse --overwrite " + gz + " -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no /entry/data/data"));
}

// ---- The HDF5 side against real hosts and hostile files (issue 10) ----
