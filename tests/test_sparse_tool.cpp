// `bslz4 sparse` as a user runs it: scans written here (our encoder, direct chunk writes), the
// output read back through HDF5 and compared with the library, and every refusal with its
// message.
#include <catch2/catch.hpp>

#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "matrix_support.hpp"
#include "sparse_job.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kNi = 60, kNj = 90, kFrames = 70;

struct Scan {
    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> nexus, use;
};

Scan write_test_scan(const std::string& path, std::size_t corrupt_frame = SIZE_MAX) {
    Scan s;
    s.nexus = test::random_mask(kNi * kNj, 3);  // random bytes: nonzero = do not use
    for (auto& m : s.nexus) m = m == 0 ? 1 : 0;
    for (auto m : s.nexus) s.use.push_back(m == 0);
    for (std::uint32_t f = 0; f < kFrames; ++f) {
        s.chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
        if (f == corrupt_frame) s.chunks.back().resize(s.chunks.back().size() - 7);
    }
    tool::write_scan(path, kNi, kNj, PixelType::u16, kFrames, s.nexus, s.chunks);
    return s;
}

}  // namespace

TEST_CASE("sparse writes the ImageD11 layout, equal to the library's lists and powders", "[sparse-tool]") {
    const std::string scan = temp_path("scan.h5"), out = temp_path("out.h5"), mat = temp_path("matrix.h5");
    const Scan s = write_test_scan(scan);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(40, kNi * kNj, 2.0, 9).input());
    tool::write_matrix(mat, "csr", m);
    const test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --matrix " + mat + ":csr --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("70 frames"));

    Chunk2SparseCSC lib(s.use, kNi, kNj, PixelType::u16, m);
    const IntegratedBatch want = lib.multi(std::vector<ByteView>(s.chunks.begin(), s.chunks.end()), 4.0);
    const std::string g = "/entry_data_data";
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
    const test::ToolResult rm = run_tool("sparse " + scan + " -o " + out_mask + " --cut 4 --mask " + scan +
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
        run_tool("sparse " + scan + " -o " + out + " --cut 4 --frames 10:25 --no-mask --matrix " + mat + ":csr --acc i64 --cpu --quiet");
    INFO(r2.err);
    REQUIRE(r2.code == 0);
    const test::H5Reader f2(out);
    CHECK(f2.attribute(g, "nframes") == std::vector<std::int64_t>{15});
    CHECK(f2.dataset<std::int64_t>(g + "/powder", H5T_NATIVE_INT64).size() == 15 * 40);
}

TEST_CASE("an Eiger master file's external data links are followed in order, a group per dataset", "[sparse-tool]") {
    const std::string dir = test::env_or("TMPDIR", "/tmp");
    const std::string part1 = dir + "/bslz4_test_master_data_000001.h5", part2 = dir + "/bslz4_test_master_data_000002.h5";
    const std::string master = dir + "/bslz4_test_master.h5", out = temp_path("master_out.h5");
    const Scan s = write_test_scan(part1);
    write_test_scan(part2);
    {
        const tool::h5::Handle file = tool::h5::create_file(master);
        tool::h5::Handle entry(H5Gcreate2(file.get(), "entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "entry");
        tool::h5::Handle data(H5Gcreate2(entry.get(), "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "data");
        // relative names, as Eiger writes them: found beside the master file
        REQUIRE(H5Lcreate_external("bslz4_test_master_data_000001.h5", "/entry/data/data", data.get(), "data_000001",
                                   H5P_DEFAULT, H5P_DEFAULT) >= 0);
        REQUIRE(H5Lcreate_external("bslz4_test_master_data_000002.h5", "/entry/data/data", data.get(), "data_000002",
                                   H5P_DEFAULT, H5P_DEFAULT) >= 0);
    }
    const test::ToolResult r = run_tool("sparse " + master + " -o " + out + " --cut 4 --no-mask --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("140 frames"));
    const test::H5Reader f(out);
    CHECK(f.attribute("/entry_data_data_000001", "nframes") == std::vector<std::int64_t>{kFrames});
    CHECK(f.attribute("/entry_data_data_000002", "nframes") == std::vector<std::int64_t>{kFrames});
    (void)s;
}

TEST_CASE("an interrupted run leaves a readable file with the frames done, marked incomplete", "[sparse-tool]") {
    const std::string scan = temp_path("scan_stop.h5"), out = temp_path("out_stop.h5");
    write_test_scan(scan);
    tool::SparseJob job;
    job.input = scan;
    job.output = out;
    job.cut = 4;
    job.where = tool::SparseJob::Where::cpu;
    job.quiet = true;
    const std::atomic<bool> stop{true};  // as if SIGINT came during the first batch
    const tool::SparseSummary s = tool::run_sparse_job(job, stop);
    CHECK(s.interrupted);
    CHECK(s.frames == 64);  // one batch
    const test::H5Reader f(out);
    CHECK(f.attribute("/entry_data_data", "nframes") == std::vector<std::int64_t>{64});
    CHECK(f.attribute("/entry_data_data", "complete") == std::vector<std::int64_t>{0});
    CHECK(f.dataset<std::int32_t>("/entry_data_data/nnz", H5T_NATIVE_INT32).size() == 64);
}

TEST_CASE("sparse refuses bad input with a message naming it", "[sparse-tool]") {
    const std::string scan = temp_path("scan_bad.h5"), out = temp_path("out_bad.h5");
    write_test_scan(scan, 7);
    test::ToolResult r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 7:"));
    const test::H5Reader partial(out);  // what was written before the fault is readable
    CHECK(partial.attribute("/entry_data_data", "complete") == std::vector<std::int64_t>{0});

    r = run_tool("sparse " + temp_path("no_such_file.h5") + " -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no_such_file.h5: cannot open"));
    r = run_tool("sparse " + scan + " --dataset /entry/nope -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no dataset /entry/nope"));
    r = run_tool("sparse " + scan + " -o /nonexistent_dir/out.h5 --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("cannot create the output file"));
    r = run_tool("sparse " + scan + " -o " + out);
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("--cut"));
    r = run_tool("sparse " + scan + " -o " + out + " --cut 4 --frames 90:95");
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
    r = run_tool("sparse " + gz + " --dataset /gzip -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("HDF5 filter 1") && Catch::Contains("only bitshuffle (32008)"));
    r = run_tool("sparse " + gz + " --dataset /pairs -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("one chunk must be one frame"));
    r = run_tool("sparse " + gz + " -o " + out + " --cut 4");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("no /entry/data/data"));
}
