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
#include "file_io.hpp"
#include "h5_reader.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/scan_writer.hpp"
#include "hdf5/sparse_output.hpp"
#include "matrix_support.hpp"
#include "sparse_campaign.hpp"
#include "sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"

using namespace bslz4;
using test::run_tool;
using test::temp_path;

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

// An Eiger master file at `master` whose /entry/data/data_00000k (k = 1, 2, ...) are external links
// to /entry/data/data in `data_files`, by relative name as Eiger writes them (found beside it).
void write_master_file(const std::string& master, const std::vector<std::string>& data_files) {
    const tool::h5::Handle file = tool::h5::create_file(master);
    tool::h5::Handle entry(H5Gcreate2(file.get(), "entry", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "entry");
    tool::h5::Handle data(H5Gcreate2(entry.get(), "data", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "data");
    for (std::size_t k = 0; k < data_files.size(); ++k) {
        char link[32];
        std::snprintf(link, sizeof link, "data_%06zu", k + 1);
        REQUIRE(H5Lcreate_external(data_files[k].c_str(), "/entry/data/data", data.get(), link, H5P_DEFAULT, H5P_DEFAULT) >= 0);
    }
}

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

namespace {

constexpr H5Z_filter_t kBitshuffle = 32008;

bool env_is(const char* name) { return test::env_or(name, "") == "1"; }

// While it lives, filter 32008's values are stored exactly as given, with or without the
// bitshuffle plugin: a stand-in class without bitshuffle's set_local (which puts its own three
// values in front of the caller's). The files made meanwhile are written chunk by chunk, raw.
class VerbatimFilterValues {
public:
    VerbatimFilterValues() { REQUIRE(H5Zregister(&kStandIn) >= 0); }
    ~VerbatimFilterValues() { H5Zunregister(kBitshuffle); }  // a real plugin is found again on next use
    VerbatimFilterValues(const VerbatimFilterValues&) = delete;
    VerbatimFilterValues& operator=(const VerbatimFilterValues&) = delete;

private:
    static std::size_t never_filters(unsigned, std::size_t, const unsigned[], std::size_t, std::size_t*, void**) { return 0; }
    static constexpr H5Z_class2_t kStandIn{H5Z_CLASS_T_VERS, kBitshuffle, 1, 1, "bslz4 test stand-in", nullptr, nullptr,
                                           &never_filters};
};

// /entry/data/data (one chunk a frame) of file_type with filter 32008 storing exactly `values`.
// Chunks are written in `order` (frame numbers; empty: 0, 1, ...), frame f with filter mask masks[f] (empty: 0).
void write_scan_with_values(const std::string& path, hid_t file_type, const std::vector<unsigned>& values,
                            const std::vector<std::vector<std::uint8_t>>& chunks, std::vector<hsize_t> order = {},
                            const std::vector<std::uint32_t>& masks = {}) {
    if (order.empty())
        for (hsize_t f = 0; f < chunks.size(); ++f) order.push_back(f);
    const VerbatimFilterValues verbatim;
    {
        const tool::h5::Handle file = tool::h5::create_file(path);
        const hsize_t dims[3] = {chunks.size(), kNi, kNj}, chunk[3] = {1, kNi, kNj};
        const tool::h5::Handle space(H5Screate_simple(3, dims, nullptr), H5Sclose, "space");
        const tool::h5::Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "plist");
        REQUIRE(H5Pset_chunk(plist.get(), 3, chunk) >= 0);
        REQUIRE(H5Pset_filter(plist.get(), kBitshuffle, H5Z_FLAG_OPTIONAL, values.size(), values.data()) >= 0);
        const tool::h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        const tool::h5::Handle d(H5Dcreate2(file.get(), "/entry/data/data", file_type, space.get(), lcpl.get(), plist.get(), H5P_DEFAULT),
                                 H5Dclose, "data");
        for (const hsize_t f : order) {
            const hsize_t offset[3] = {f, 0, 0};
            REQUIRE(H5Dwrite_chunk(d.get(), H5P_DEFAULT, masks.empty() ? 0 : masks[f], offset, chunks[f].size(), chunks[f].data()) >= 0);
        }
    }
    H5Z_filter_t id = 0;
    REQUIRE(test::H5Reader(path).filter_values("/entry/data/data", id) == values);
}

std::vector<std::vector<std::uint8_t>> test_chunks(std::size_t frames, PixelType type = PixelType::u16,
                                                   Codec codec = Codec::lz4) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, type, f), pixel_size(type), {codec, 0, 3}));
    return chunks;
}

// DATASET (groups made as needed) in FILE, holding `values` stored as file_type.
template <class T>
void write_dataset(const std::string& path, bool new_file, const std::string& dataset, hid_t file_type, hid_t mem_type,
                   const std::vector<T>& values, std::vector<hsize_t> dims = {kNi, kNj}) {
    const tool::h5::Handle file = new_file ? tool::h5::create_file(path) : tool::h5::open_file(path, true);
    const tool::h5::Handle space(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, "space");
    const tool::h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
    H5Pset_create_intermediate_group(lcpl.get(), 1);
    const tool::h5::Handle d(H5Dcreate2(file.get(), dataset.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                             H5Dclose, dataset);
    REQUIRE(H5Dwrite(d.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0);
}

// Where frame f's record sits in a version 1 B-tree chunk index (what HDF5 writes by default):
// each leaf is "TREE", type 1, level 0, entry count, two sibling addresses, then per chunk a key
// (size u32, filter mask u32, rank + 1 offsets u64) and the chunk's address (u64), little-endian.
struct ChunkRecord {
    std::size_t size_at = 0, address_at = 0;
};

std::vector<char> file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<char>(std::istreambuf_iterator<char>(in), {});
}

template <class T>
T little_endian_at(const std::vector<char>& b, std::size_t at) {
    T v = 0;
    for (std::size_t k = 0; k < sizeof(T); ++k) v |= static_cast<T>(static_cast<unsigned char>(b[at + k])) << (8 * k);
    return v;
}

ChunkRecord find_chunk_record(const std::string& path, std::uint64_t frame, std::uint32_t stored_size) {
    const std::vector<char> b = file_bytes(path);
    constexpr std::size_t kHeader = 24, kKey = 4 + 4 + 4 * 8, kEntry = kKey + 8;
    for (std::size_t at = 0; at + kHeader <= b.size(); ++at) {
        if (std::memcmp(&b[at], "TREE", 4) != 0 || b[at + 4] != 1 || b[at + 5] != 0) continue;
        const std::size_t entries = little_endian_at<std::uint16_t>(b, at + 6);
        for (std::size_t e = 0; e < entries && at + kHeader + (e + 1) * kEntry <= b.size(); ++e) {
            const std::size_t key = at + kHeader + e * kEntry;
            if (little_endian_at<std::uint64_t>(b, key + 8) == frame && little_endian_at<std::uint32_t>(b, key) == stored_size)
                return {key, key + kKey};
        }
    }
    FAIL("no chunk index record for frame " << frame << " in " << path);
    return {};
}

template <class T>
void patch_file(const std::string& path, std::size_t at, T value) {
    std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
    char bytes[sizeof(T)];
    for (std::size_t k = 0; k < sizeof(T); ++k) bytes[k] = static_cast<char>(value >> (8 * k));
    f.seekp(static_cast<std::streamoff>(at));
    f.write(bytes, sizeof(T));
    REQUIRE(f.good());
}

std::size_t line_count(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Pixels listed per frame by `bslz4 sparse` in OUT's first group.
std::vector<std::int32_t> listed_per_frame(const std::string& out) {
    return test::H5Reader(out).dataset<std::int32_t>("/entry/data/data/nnz", H5T_NATIVE_INT32);
}

std::vector<std::int32_t> library_per_frame(const std::vector<std::uint8_t>& use,
                                            const std::vector<std::vector<std::uint8_t>>& chunks, double cut) {
    Chunk2Sparse lib(use, kNi, kNj, PixelType::u16);
    const SparseBatch b = lib.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), cut);
    return std::vector<std::int32_t>(b.npixels, b.npixels + chunks.size());
}

}  // namespace

TEST_CASE("the scan writer records bitshuffle's own five values whether or not the filter plugin is present",
          "[sparse-tool][filter-values]") {
    const bool plugin = H5Zfilter_avail(kBitshuffle) > 0;
    if (env_is("BSLZ4_EXPECT_NO_FILTER_PLUGIN")) REQUIRE_FALSE(plugin);
    if (env_is("BSLZ4_EXPECT_FILTER_PLUGIN")) REQUIRE(plugin);
    WARN((plugin ? "the bitshuffle HDF5 plugin is found: its set_local made the values"
                 : "no bitshuffle HDF5 plugin is found: the writer wrote the values itself"));
    for (const PixelType type : {PixelType::u8, PixelType::u16, PixelType::i32, PixelType::f64}) {
        for (const Codec codec : {Codec::lz4, Codec::zstd}) {
            INFO(pixel_type_name(type) << " " << codec_name(codec));
            const std::string scan = temp_path("scan_values.h5"), out = temp_path("out_values.h5");
            const auto chunks = test_chunks(3, type, codec);
            tool::write_scan(scan, kNi, kNj, type, chunks.size(), {}, chunks, {codec, 5});
            H5Z_filter_t id = 0;
            const std::vector<unsigned> v = test::H5Reader(scan).filter_values("/entry/data/data", id);
            CHECK(id == kBitshuffle);
            INFO("values: " << ::Catch::Detail::stringify(v));
            // version (major 0; the minor is the plugin's own, else 3 for lz4 and 4, zstd's first, for zstd),
            // element size, block size (0: the default), compression (2 lz4, 3 zstd), zstd's level
            REQUIRE(v.size() == (codec == Codec::zstd ? 6u : 5u));
            CHECK(v[0] == 0);
            if (!plugin) CHECK(v[1] == (codec == Codec::zstd ? 4u : 3u));
            CHECK(v[2] == pixel_size(type));
            CHECK(v[3] == 0);
            CHECK(v[4] == (codec == Codec::zstd ? 3u : 2u));
            if (codec == Codec::zstd) CHECK(v[5] == 5);
            const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
            INFO(r.err);
            CHECK(r.code == 0);
        }
    }
}

TEST_CASE("bitshuffle values doubled by a plugin's set_local are refused, listing them", "[sparse-tool][filter-values]") {
    // what the writer made when it gave the plugin all five values: the plugin put its own three in front
    const std::string scan = temp_path("scan_doubled.h5"), out = temp_path("out_doubled.h5");
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 3, 2, 0, 2}, test_chunks(3));
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(scan + ":/entry/data/data") && Catch::Contains("0 3 2 0 3 2 0 2") &&
                          !Catch::Contains("zstd frame"));
}

TEST_CASE("bitshuffle values that do not fit the dataset are refused, naming what is wrong", "[sparse-tool][filter-values]") {
    const std::string scan = temp_path("scan_misfit.h5"), out = temp_path("out_misfit.h5");
    const struct {
        std::vector<unsigned> values;
        const char* why;
    } cases[] = {
        {{0, 3, 4, 0, 2}, "element size 4"},       // the dataset's pixels are 2 bytes
        {{1, 0, 2, 0, 2}, "version 1.0"},          // no bitshuffle 1.x exists
        {{0, 3, 2, 12, 2}, "block size 12"},       // not a multiple of 8 elements
        {{0, 3, 2, 0, 0}, "compression 0"},        // bitshuffle alone, no lz4 or zstd
        {{0, 3, 2}, "3 values"},                   // no compression named
        {{0, 3, 2, 0, 2, 1, 1}, "7 values"},
    };
    for (const auto& c : cases) {
        INFO(c.why);
        write_scan_with_values(scan, H5T_STD_U16LE, c.values, test_chunks(2));
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(scan + ":/entry/data/data") && Catch::Contains(c.why));
    }
}

TEST_CASE("a big-endian scan is refused, naming the file, the dataset and the byte order", "[sparse-tool]") {
    const std::string scan = temp_path("scan_big_endian.h5"), out = temp_path("out_big_endian.h5");
    write_scan_with_values(scan, H5T_STD_U16BE, {0, 3, 2, 0, 2}, test_chunks(2));
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(scan + ":/entry/data/data") && Catch::Contains("big-endian"));
}

TEST_CASE("masks are read in their own type: any nonzero value, NaN too, masks the pixel", "[sparse-tool][mask]") {
    const std::string scan = temp_path("scan_typed_mask.h5"), mask = temp_path("typed_mask.h5"), out = temp_path("out_typed_mask.h5");
    const auto chunks = test_chunks(8);
    const std::size_t n = kNi * kNj;
    std::vector<std::uint8_t> use(n);
    std::vector<float> f32(n);
    std::vector<std::int64_t> i64(n);
    std::vector<std::int8_t> flags(n);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t k = (i * 7919) % 5;  // 0: use, else masked in each type's own way
        use[i] = k == 0;
        f32[i] = k == 0 ? (i % 2 ? -0.0f : 0.0f) : k == 1 ? 0.5f : k == 2 ? nan : k == 3 ? 1e-30f : -2.0f;
        i64[i] = k == 0 ? 0 : k == 1 ? -1 : k == 2 ? std::numeric_limits<std::int64_t>::min() : k == 3 ? (std::int64_t{1} << 40) : -7;
        flags[i] = k != 0;
    }
    const auto want = library_per_frame(use, chunks, 4.0);
    // h5py's bool: an enum of int8 {FALSE = 0, TRUE = 1}
    const tool::h5::Handle boolean(H5Tenum_create(H5T_NATIVE_INT8), H5Tclose, "enum");
    const std::int8_t no = 0, yes = 1;
    H5Tenum_insert(boolean.get(), "FALSE", &no);
    H5Tenum_insert(boolean.get(), "TRUE", &yes);
    const struct {
        const char* name;
        std::function<void(const std::string&, bool, const std::string&)> write;
    } kinds[] = {
        {"float32 (0.5, NaN, 1e-30, -2; -0.0 is 0)",
         [&](const std::string& p, bool fresh, const std::string& d) { write_dataset(p, fresh, d, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, f32); }},
        {"float64 from the same", [&](const std::string& p, bool fresh, const std::string& d) {
             write_dataset(p, fresh, d, H5T_IEEE_F64BE, H5T_NATIVE_FLOAT, f32);
         }},
        {"int64 (negative, 2^40)",
         [&](const std::string& p, bool fresh, const std::string& d) { write_dataset(p, fresh, d, H5T_STD_I64LE, H5T_NATIVE_INT64, i64); }},
        {"int64 big-endian",
         [&](const std::string& p, bool fresh, const std::string& d) { write_dataset(p, fresh, d, H5T_STD_I64BE, H5T_NATIVE_INT64, i64); }},
        {"bool (enum)",
         [&](const std::string& p, bool fresh, const std::string& d) { write_dataset(p, fresh, d, boolean.get(), boolean.get(), flags); }},
    };
    for (const auto& kind : kinds) {
        INFO(kind.name);
        tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
        kind.write(scan, false, tool::kNexusPixelMask);
        kind.write(mask, true, "/detector/mask");
        for (const std::string& how : {std::string(), " --mask " + mask + ":/detector/mask"}) {
            INFO((how.empty() ? "the scan's NeXus pixel_mask" : how));
            const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet" + how);
            INFO(r.err);
            REQUIRE(r.code == 0);
            CHECK(listed_per_frame(out) == want);
        }
    }
    // a mask of text is no mask: refused
    tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    const tool::h5::Handle text(H5Tcopy(H5T_C_S1), H5Tclose, "string type");
    H5Tset_size(text.get(), 1);
    const std::vector<char> letters(n, 'x');
    write_dataset(scan, false, tool::kNexusPixelMask, text.get(), text.get(), letters);
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("pixel_mask") && Catch::Contains("string"));
}

TEST_CASE("a pixel_mask link that does not resolve is an error naming the link and its target", "[sparse-tool][mask]") {
    const std::string scan = temp_path("scan_dangling_mask.h5"), out = temp_path("out_dangling_mask.h5");
    const auto chunks = test_chunks(4);
    const auto make = [&](const std::function<herr_t(hid_t)>& link) {
        tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
        const tool::h5::Handle file = tool::h5::open_file(scan, true);
        const tool::h5::Handle lcpl(H5Pcreate(H5P_LINK_CREATE), H5Pclose, "lcpl");
        H5Pset_create_intermediate_group(lcpl.get(), 1);
        const tool::h5::Handle det(H5Gcreate2(file.get(), "/entry/instrument/detector", lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                                   H5Gclose, "detector");
        REQUIRE(link(det.get()) >= 0);
    };
    SECTION("an external link to a file that is not there") {
        make([](hid_t det) {
            return H5Lcreate_external("bslz4_test_no_such_mask.h5", "/mask", det, "pixel_mask", H5P_DEFAULT, H5P_DEFAULT);
        });
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(tool::kNexusPixelMask) && Catch::Contains("bslz4_test_no_such_mask.h5:/mask"));
    }
    SECTION("a soft link to nothing") {
        make([](hid_t det) { return H5Lcreate_soft("/entry/nowhere/mask", det, "pixel_mask", H5P_DEFAULT, H5P_DEFAULT); });
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(tool::kNexusPixelMask) && Catch::Contains("/entry/nowhere/mask"));
    }
    SECTION("--mask through a dangling link") {
        make([](hid_t det) { return H5Lcreate_soft("/entry/nowhere/mask", det, "pixel_mask", H5P_DEFAULT, H5P_DEFAULT); });
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet --mask " + scan + ":" +
                                            tool::kNexusPixelMask);
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains(scan + ": cannot open " + tool::kNexusPixelMask) && Catch::Contains("/entry/nowhere/mask"));
    }
    SECTION("--no-mask: the file's pixel_mask is not looked at") {
        make([](hid_t det) { return H5Lcreate_soft("/entry/nowhere/mask", det, "pixel_mask", H5P_DEFAULT, H5P_DEFAULT); });
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet --no-mask");
        INFO(r.err);
        CHECK(r.code == 0);
    }
}

TEST_CASE("a chunk index that claims more bytes than the file or the frame can hold is refused before allocating",
          "[sparse-tool][chunk-index]") {
    const std::string scan = temp_path("scan_lying_index.h5"), out = temp_path("out_lying_index.h5");
    const auto chunks = test_chunks(8);
    const auto size_of_file = [&] { return file_bytes(scan).size(); };
    SECTION("0xFFFFFFFF bytes: more than the file") {
        tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
        patch_file(scan, find_chunk_record(scan, 3, static_cast<std::uint32_t>(chunks[3].size())).size_at, std::uint32_t{0xFFFFFFFF});
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 3") && Catch::Contains("4294967295 bytes") &&
                              Catch::Contains(std::to_string(size_of_file()) + " bytes"));
        rusage children{};
        getrusage(RUSAGE_CHILDREN, &children);
        CHECK(children.ru_maxrss < 1024 * 1024);  // kB: no run of the tool so far took a GB
    }
    SECTION("more than any chunk of the frame could be, less than the file") {
        // 60 x 90 u16 in blocks of 8 elements, each LZ4's worst, is 24,312 bytes; the file is larger
        const std::vector<std::vector<std::uint8_t>> many(40, chunks[0]);
        tool::write_scan(scan, kNi, kNj, PixelType::u16, many.size(), {}, many);
        const std::size_t lie = 30000;
        REQUIRE(size_of_file() > lie + 1000);
        patch_file(scan, find_chunk_record(scan, 5, static_cast<std::uint32_t>(many[5].size())).size_at, static_cast<std::uint32_t>(lie));
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 5") && Catch::Contains("30000 bytes") &&
                              Catch::Contains("at most"));
    }
    SECTION("chunks over each other: every frame of a batch on one chunk's bytes would size a batch past the file") {
        tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
        const ChunkRecord first = find_chunk_record(scan, 0, static_cast<std::uint32_t>(chunks[0].size()));
        const std::uint64_t address = little_endian_at<std::uint64_t>(file_bytes(scan), first.address_at);
        patch_file(scan, find_chunk_record(scan, 4, static_cast<std::uint32_t>(chunks[4].size())).address_at, address + 1);
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 4") && Catch::Contains("over frame 0"));
        const tool::SparseJob job = test::cpu_sparse_job(scan, out);
        const std::atomic<bool> stop{false};
        CHECK(test::code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::truncated_chunk);
    }
}

TEST_CASE("a frame whose chunk was never written is an error naming it, ErrorCode::truncated_chunk",
          "[sparse-tool][chunk-index][error-codes]") {
    const std::string scan = temp_path("scan_unwritten.h5"), out = temp_path("out_unwritten.h5");
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 2}, test_chunks(8), {0, 1, 2, 4, 5, 6, 7});  // no frame 3
    tool::SparseJob job = test::cpu_sparse_job(scan, out);
    const std::atomic<bool> stop{false};
    for (const std::size_t limit : {std::size_t{8192}, std::size_t{0}}) {  // by position, and through HDF5
        INFO("per-chunk index limit " << limit);
        job.per_chunk_index_limit = limit;
        CHECK(test::code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::truncated_chunk);
        CHECK_THROWS_WITH(tool::run_sparse_file(job, stop),
                          Catch::Contains("/entry/data/data frame 3: the chunk is not stored (the frame was never written)"));
    }
}

TEST_CASE("a file with a user block is read at its chunks' true places", "[sparse-tool][chunk-index]") {
    const std::string plain = temp_path("scan_plain.h5"), blocked = temp_path("scan_user_block.h5");
    const auto chunks = test_chunks(10);
    tool::write_scan(plain, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    // The same scan behind a 512-byte user block (as h5jam leaves one): HDF5 finds its superblock
    // at 512, and chunk addresses are relative to it in HDF5 before 1.14.4.
    {
        const std::vector<char> body = file_bytes(plain);
        std::ofstream o(blocked, std::ios::binary);
        const std::vector<char> block(512, 'u');
        o.write(block.data(), static_cast<std::streamsize>(block.size()));
        o.write(body.data(), static_cast<std::streamsize>(body.size()));
    }
    const std::string out_plain = temp_path("out_plain.h5"), out_blocked = temp_path("out_user_block.h5");
    for (const auto& [in, out] : {std::pair{plain, out_plain}, std::pair{blocked, out_blocked}}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + in + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(in << ": " << r.err);
        REQUIRE(r.code == 0);
    }
    CHECK(listed_per_frame(out_blocked) == listed_per_frame(out_plain));
    CHECK(listed_per_frame(out_plain) == library_per_frame(std::vector<std::uint8_t>(kNi * kNj, 1), chunks, 4));
}

TEST_CASE("HDF5's failures on the reader thread are our one-line messages, without HDF5-DIAG", "[sparse-tool][chunk-index]") {
    const std::string scan = temp_path("scan_bad_address.h5"), out = temp_path("out_bad_address.h5");
    const auto chunks = test_chunks(8);
    tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    const std::uint64_t beyond = 2 * file_bytes(scan).size() + 4096;
    patch_file(scan, find_chunk_record(scan, 3, static_cast<std::uint32_t>(chunks[3].size())).address_at, beyond);
    // read by position: the index's address is checked against the file before any read
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains("/entry/data/data frame 3") && Catch::Contains("at byte " + std::to_string(beyond)) &&
                          Catch::Contains("past the end of the file") && !Catch::Contains("HDF5-DIAG"));
    CHECK(line_count(r.err) == 1);
    // read through HDF5 (a dataset past the per-chunk index limit): HDF5's own reason, on a reader thread
    tool::SparseJob job = test::cpu_sparse_job(scan, out);
    job.per_chunk_index_limit = 0;
    const std::atomic<bool> stop{false};
    CHECK_THROWS_WITH(tool::run_sparse_job(job, stop), Catch::Contains("/entry/data/data frame 3") && Catch::Contains("HDF5: "));
}

// ---- Reading at the storage's rate, writing on a thread of its own (issue 11) ----

namespace {

tool::SparseJob cpu_job(const std::string& scan, const std::string& out, unsigned reader_threads) {
    tool::SparseJob job = test::cpu_sparse_job(scan, out);
    job.no_mask = true;
    job.reader_threads = reader_threads;
    return job;
}

// The group's lists (and powders, with `bins`) equal the library's on the same frames, pixel for pixel.
void check_group(const std::string& out, const std::string& group, const IntegratedBatch& want, std::size_t frames,
                 std::size_t bins = 0) {
    const test::H5Reader f(out);
    CHECK(f.attribute(group, "nframes") == std::vector<std::int64_t>{static_cast<std::int64_t>(frames)});
    CHECK(f.attribute(group, "complete") == std::vector<std::int64_t>{1});
    const auto nnz = f.dataset<std::int32_t>(group + "/nnz", H5T_NATIVE_INT32);
    const auto row = f.dataset<std::uint32_t>(group + "/row", H5T_NATIVE_UINT32);
    const auto col = f.dataset<std::uint32_t>(group + "/col", H5T_NATIVE_UINT32);
    const auto intensity = f.dataset<std::uint32_t>(group + "/intensity", H5T_NATIVE_UINT32);
    REQUIRE(nnz.size() == frames);
    std::size_t at = 0;
    for (std::size_t fr = 0; fr < frames; ++fr) {
        const SparseFrame w = want.sparse.frame(fr);
        INFO("frame " << fr);
        REQUIRE(static_cast<std::size_t>(nnz[fr]) == w.npixels);
        for (std::size_t k = 0; k < w.npixels; ++k, ++at) {
            REQUIRE(row[at] * kNj + col[at] == w.indices[k]);
            REQUIRE(intensity[at] == w.values_as<std::uint16_t>()[k]);
        }
    }
    REQUIRE(at == row.size());
    if (bins) {
        const auto powder = f.dataset<double>(group + "/powder", H5T_NATIVE_DOUBLE);
        REQUIRE(powder.size() == frames * bins);
        for (std::size_t fr = 0; fr < frames; ++fr)
            for (std::size_t b = 0; b < bins; ++b) REQUIRE(powder[fr * bins + b] == want.powder.value(fr, b));
    }
}

IntegratedBatch library_lists(const std::vector<std::vector<std::uint8_t>>& chunks, std::size_t first = 0,
                              std::size_t count = SIZE_MAX) {
    static std::vector<Chunk2Sparse> keep;  // the batch's views live as long as their object
    keep.emplace_back(std::vector<std::uint8_t>(kNi * kNj, 1), kNi, kNj, PixelType::u16);
    const std::size_t n = std::min(count, chunks.size() - first);
    const std::vector<ByteView> views(chunks.begin() + static_cast<std::ptrdiff_t>(first),
                                      chunks.begin() + static_cast<std::ptrdiff_t>(first + n));
    return IntegratedBatch{keep.back().multi(views, 4.0), Powder{}};
}

}  // namespace

TEST_CASE("chunks stored in reverse frame order are read by position and listed in frame order, by 1 to 4 reader threads",
          "[sparse-tool][positional]") {
    const std::string scan = temp_path("scan_reversed.h5"), out = temp_path("out_reversed.h5");
    const auto chunks = test_chunks(kFrames);
    std::vector<hsize_t> reverse;
    for (hsize_t f = kFrames; f-- > 0;) reverse.push_back(f);
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 2}, chunks, reverse);
    const IntegratedBatch want = library_lists(chunks);
    for (const unsigned threads : {1u, 2u, 4u}) {
        INFO(threads << " reader threads");
        const std::atomic<bool> stop{false};
        const tool::SparseSummary s = tool::run_sparse_job(cpu_job(scan, out, threads), stop);
        CHECK(s.frames == kFrames);
        check_group(out, "/entry/data/data", want, kFrames);
    }
    // the same through HDF5's reads (a dataset past the per-chunk index limit)
    tool::SparseJob job = cpu_job(scan, out, 3);
    job.per_chunk_index_limit = 0;
    const std::atomic<bool> stop{false};
    tool::run_sparse_job(job, stop);
    check_group(out, "/entry/data/data", want, kFrames);
}

TEST_CASE("a job's times say where its loop went: each stage busy, and no longer than its threads had",
          "[sparse-tool][times]") {
    const std::string scan = temp_path("scan_times.h5"), out = temp_path("out_times.h5");
    const auto chunks = test_chunks(kFrames);
    std::vector<hsize_t> order;
    for (hsize_t f = 0; f < kFrames; ++f) order.push_back(f);
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 2}, chunks, order);
    const std::atomic<bool> stop{false};
    const tool::SparseSummary s = tool::run_sparse_job(cpu_job(scan, out, 2), stop);
    const tool::JobTimes& t = s.times;
    REQUIRE(s.frames == kFrames);
    CHECK(s.reader_threads == 2);
    CHECK(s.decoder_threads == 1);  // the CPU: one decoder object, its pool inside
    CHECK(t.reading > 0);
    CHECK(t.decoding > 0);
    CHECK(t.handing > 0);
    CHECK(t.writing >= 0);  // what the writer had done by the loop's end: perhaps nothing yet, on a loaded host
    const double slack = 0.01;  // clock reads around the loop's own
    CHECK(t.reading <= t.loop * s.reader_threads + slack);
    CHECK(t.decoding <= t.loop * s.decoder_threads + slack);
    CHECK(t.handing <= t.loop + slack);
    CHECK(t.writing <= t.loop + t.finish + slack);
    CHECK(s.frames_through_hdf5 == 0);
    tool::SparseJob through = cpu_job(scan, out, 2);
    through.per_chunk_index_limit = 0;
    CHECK(tool::run_sparse_job(through, stop).frames_through_hdf5 == kFrames);
}

TEST_CASE("a chunk stored with bitshuffle skipped (filter mask 1) holds the raw frame: listed on the host, in frame order",
          "[sparse-tool][raw-chunk]") {
    const std::string scan = temp_path("scan_raw_chunks.h5"), out = temp_path("out_raw_chunks.h5"), mat = temp_path("matrix_raw.h5");
    const auto chunks = test_chunks(kFrames);
    std::vector<std::vector<std::uint8_t>> stored = chunks;
    std::vector<std::uint32_t> masks(kFrames, 0);
    for (const std::size_t f : {0, 5, 6, 63, 64, 69}) {  // first, inside, at the batch's edges, last
        stored[f] = synthetic_eiger_frame(kNi, kNj, PixelType::u16, static_cast<std::uint32_t>(f));
        masks[f] = 1;
    }
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 2}, stored, {}, masks);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(40, kNi * kNj, 2.0, 9).input());
    tool::write_matrix(mat, "csr", m);
    Chunk2SparseCSC lib(std::vector<std::uint8_t>(kNi * kNj, 1), kNi, kNj, PixelType::u16, m);
    const IntegratedBatch want = lib.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), 4.0);
    tool::SparseJob job = cpu_job(scan, out, 2);
    job.matrix_spec = mat + ":csr";
    const std::atomic<bool> stop{false};
    CHECK(tool::run_sparse_job(job, stop).frames == kFrames);
    check_group(out, "/entry/data/data", want, kFrames, 40);

    // a "raw" chunk that is not a frame's size is refused, naming the frame
    stored[9].resize(stored[9].size() - 2);
    masks[9] = 1;
    write_scan_with_values(scan, H5T_STD_U16LE, {0, 3, 2, 0, 2}, stored, {}, masks);
    std::remove(out.c_str());
    CHECK_THROWS_WITH(tool::run_sparse_job(job, stop), Catch::Contains("/entry/data/data frame 9") && Catch::Contains("filter mask 1") &&
                                                           Catch::Contains(std::to_string(kNi * kNj * 2) + " bytes"));
    CHECK_FALSE(std::ifstream(out).good());
}

TEST_CASE("a scan of several datasets (external links) equals the library on their frames in order, with --frames across "
          "the two",
          "[sparse-tool][positional]") {
    const std::string dir = test::env_or("TMPDIR", "/tmp");
    const std::string part1 = dir + "/bslz4_test_multi_data_000001.h5", part2 = dir + "/bslz4_test_multi_data_000002.h5";
    const std::string master = dir + "/bslz4_test_multi_master.h5", out = temp_path("multi_out.h5");
    const auto chunks = test_chunks(2 * kFrames);  // the second file holds other frames than the first
    const std::vector<std::vector<std::uint8_t>> first(chunks.begin(), chunks.begin() + kFrames), second(chunks.begin() + kFrames, chunks.end());
    tool::write_scan(part1, kNi, kNj, PixelType::u16, kFrames, {}, first);
    tool::write_scan(part2, kNi, kNj, PixelType::u16, kFrames, {}, second);
    write_master_file(master, {"bslz4_test_multi_data_000001.h5", "bslz4_test_multi_data_000002.h5"});
    tool::SparseJob job = cpu_job(master, out, 4);
    job.frames_spec = "50:120";  // frames 50-69 of the first file, 0-49 of the second
    const std::atomic<bool> stop{false};
    CHECK(tool::run_sparse_job(job, stop).frames == 70);
    check_group(out, "/entry/data/data", library_lists(chunks, 50, 70), 70);
    job.per_file = true;
    CHECK(tool::run_sparse_job(job, stop).frames == 70);
    check_group(out, "/entry/data/data_000001", library_lists(first, 50), 20);
    check_group(out, "/entry/data/data_000002", library_lists(second, 0, 50), 50);
}

TEST_CASE("an interrupted run with several reader threads and the writer's thread leaves a readable file marked incomplete",
          "[sparse-tool][positional]") {
    const std::string scan = temp_path("scan_stop4.h5"), out = temp_path("out_stop4.h5");
    const auto chunks = test_chunks(3 * 64 + 5);
    tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    test::check_stopped_after_first_batch(cpu_job(scan, out, 4));
    const test::H5Reader f(out + ".incomplete");
    const IntegratedBatch want = library_lists(chunks, 0, 64);
    const auto nnz = f.dataset<std::int32_t>("/entry/data/data/nnz", H5T_NATIVE_INT32);
    REQUIRE(nnz.size() == 64);
    for (std::size_t fr = 0; fr < 64; ++fr) CHECK(static_cast<std::size_t>(nnz[fr]) == want.sparse.npixels[fr]);
}

// ---- Error codes, and bad frames in the output (issue 17) ----

TEST_CASE("the tools' refusals carry the code of what went wrong: io, bad_argument, bad_matrix, a chunk's code",
          "[sparse-tool][error-codes]") {
    using test::code_thrown_by;
    const std::string scan = temp_path("scan_codes.h5"), missing = temp_path("no_such_scan.h5");
    const std::string not_hdf5 = temp_path("not_hdf5.h5"), mat = temp_path("matrix_codes.h5");
    write_test_scan(scan);
    std::remove(missing.c_str());
    tool::write_file(not_hdf5, std::vector<std::uint8_t>(100, 7));
    tool::write_matrix(mat, "csr", normalise_matrix(test::random_csr(5, 4 * kNj, 2.0, 1).input()));

    // the scan
    CHECK(code_thrown_by([&] { tool::open_scan(missing, ""); }) == ErrorCode::io);
    CHECK(code_thrown_by([&] { tool::open_scan(not_hdf5, ""); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { tool::open_scan(scan, "/entry/nope"); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { tool::open_scan(scan, "/entry/instrument/detector/pixel_mask"); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { tool::open_scan(scan, ""); }) == ErrorCode::ok);
    // a link to a file that is not there: the data cannot be read
    const std::string dir = test::env_or("TMPDIR", "/tmp"), master = dir + "/bslz4_test_codes_master.h5";
    write_master_file(master, {"bslz4_test_codes_missing_data.h5"});
    CHECK(code_thrown_by([&] { tool::open_scan(master, ""); }) == ErrorCode::io);

    // the matrix: a file that cannot be read, a group the user names wrongly, a matrix refused
    CHECK(code_thrown_by([&] { tool::read_matrix_file(missing + ":/csr"); }) == ErrorCode::io);
    CHECK(code_thrown_by([&] { tool::read_matrix_file(mat); }) == ErrorCode::bad_argument);  // no :GROUP
    CHECK(code_thrown_by([&] { tool::read_matrix_file(mat + ":/nope"); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { tool::read_matrix_file(scan + ":/entry/instrument"); }) == ErrorCode::bad_matrix);  // no data
    CHECK(code_thrown_by([&] { tool::read_matrix_file(mat + ":/csr", kNi * kNj); }) == ErrorCode::bad_matrix);  // other pixels
    CHECK(code_thrown_by([&] { tool::read_matrix_file(mat + ":/csr", 4 * kNj); }) == ErrorCode::ok);

    // the output: a folder that is not there, a folder in the way of the file
    tool::OutputInfo info;
    info.overwrite = true;
    info.ni = kNi;
    info.nj = kNj;
    CHECK(code_thrown_by([&] { tool::SparseOutput out("/nonexistent_dir/out.h5", info); }) == ErrorCode::io);
    CHECK(code_thrown_by([&] { tool::SparseOutput out(dir, info); }) == ErrorCode::bad_argument);

    // a chunk the chunk index sizes past the file, or past any chunk of the frame
    CHECK(code_thrown_by([] { tool::h5::check_chunk_extent(UINT64_MAX, 5000, 4000, 9000, "frame 0"); }) ==
          ErrorCode::truncated_chunk);
    CHECK(code_thrown_by([] { tool::h5::check_chunk_extent(3500, 1000, 4000, 9000, "frame 0"); }) == ErrorCode::truncated_chunk);
    CHECK(code_thrown_by([] { tool::h5::check_chunk_extent(0, 3000, 4000, 2000, "frame 0"); }) == ErrorCode::bad_block_length);

    // a failed scan's message gains what became of the output, and keeps its code
    tool::SparseJob job = test::cpu_sparse_job(missing, temp_path("out_codes.h5"));
    const std::atomic<bool> stop{false};
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::io);
    job.input = scan;
    job.dataset = "/entry/nope";
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
}

TEST_CASE("bad frames are written with nnz 0 and a zero powder, and listed in bad_frames (frame, code, code_name, message)",
          "[sparse-tool][bad-frames]") {
    const std::string out = temp_path("out_bad_frames.h5"), snapshot = temp_path("out_bad_frames_interrupted.h5");
    std::remove(out.c_str());
    constexpr std::size_t kBins = 3;
    tool::OutputInfo info;
    info.overwrite = true;
    info.ni = kNi;
    info.nj = kNj;
    info.type = PixelType::u16;
    info.bins = kBins;
    info.acc = Accumulator::f64;
    info.flush_seconds = 0;  // flushed after every batch: the snapshot below holds the first
    const std::uint16_t values[2] = {7, 9};
    const std::uint32_t indices[2] = {5, 3 * kNj + 4};
    const SparseFrame good{2, values, indices, PixelType::u16};
    const double powder[kBins] = {1, 2, 3};
    const std::string lz4 = "frame 13: block 2: an LZ4 match offset of 0 (\u00b5-sized damage)";  // UTF-8 kept as written
    {
        tool::SparseOutput output(out, info);
        output.begin_group("/entry/data/data", 6);
        tool::OutputRows first;
        first.add(good, kNj, powder, sizeof powder);
        first.add_bad(11, ErrorCode::truncated_chunk, "frame 11: the chunk ends before its 12-byte header", sizeof powder);
        first.add(good, kNj, powder, sizeof powder);
        output.append(first);
        // what an interrupted run leaves: the first batch, its bad frame listed
        const std::vector<std::string> written = test::temporaries_of(out);
        REQUIRE(written.size() == 1);
        std::filesystem::copy_file(written[0], snapshot, std::filesystem::copy_options::overwrite_existing);
        tool::OutputRows second;
        second.add_bad(13, ErrorCode::bad_lz4_sequence, lz4, sizeof powder);
        second.add_bad(14, ErrorCode::io, "frame 14: read failed", sizeof powder);
        second.add(good, kNj, powder, sizeof powder);
        output.append(second);
        output.close_group(true);
        output.finish();
    }
    const std::string g = "/entry/data/data";
    {
        const test::H5Reader f(snapshot);
        CHECK(f.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32) == std::vector<std::int32_t>{2, 0, 2});
        const auto bad = f.bad_frames(g + "/bad_frames");
        REQUIRE(bad.size() == 1);
        CHECK(bad[0].frame == 11);
        CHECK(bad[0].code_name == "truncated_chunk");
    }
    const test::H5Reader f(out);
    CHECK(f.attribute(g, "nframes") == std::vector<std::int64_t>{6});
    CHECK(f.attribute(g, "complete") == std::vector<std::int64_t>{1});
    CHECK(f.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32) == std::vector<std::int32_t>{2, 0, 2, 0, 0, 2});
    CHECK(f.dataset<std::uint32_t>(g + "/row", H5T_NATIVE_UINT32) == std::vector<std::uint32_t>{0, 3, 0, 3, 0, 3});
    const auto p = f.dataset<double>(g + "/powder", H5T_NATIVE_DOUBLE);
    CHECK(p == std::vector<double>{1, 2, 3, 0, 0, 0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 1, 2, 3});
    CHECK(f.member_names(g + "/bad_frames") == std::vector<std::string>{"frame", "code", "code_name", "message"});
    const auto bad = f.bad_frames(g + "/bad_frames");
    REQUIRE(bad.size() == 3);
    CHECK(bad[0].frame == 11);
    CHECK(bad[0].code == static_cast<std::int32_t>(ErrorCode::truncated_chunk));
    CHECK(bad[0].code_name == "truncated_chunk");
    CHECK(bad[0].message == "frame 11: the chunk ends before its 12-byte header");
    CHECK(bad[1].frame == 13);
    CHECK(bad[1].code == static_cast<std::int32_t>(ErrorCode::bad_lz4_sequence));
    CHECK(bad[1].code_name == "bad_lz4_sequence");
    CHECK(bad[1].message == lz4);
    CHECK(bad[2].frame == 14);
    CHECK(bad[2].code == static_cast<std::int32_t>(ErrorCode::io));
    CHECK(bad[2].code_name == "io");
}

TEST_CASE("an output with no bad frames has an empty bad_frames in every group", "[sparse-tool][bad-frames]") {
    const std::string dir = test::env_or("TMPDIR", "/tmp");
    const std::string part1 = dir + "/bslz4_test_nobad_data_000001.h5", part2 = dir + "/bslz4_test_nobad_data_000002.h5";
    const std::string master = dir + "/bslz4_test_nobad_master.h5", out = temp_path("nobad_out.h5");
    const auto chunks = test_chunks(10);
    tool::write_scan(part1, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    tool::write_scan(part2, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    write_master_file(master, {"bslz4_test_nobad_data_000001.h5", "bslz4_test_nobad_data_000002.h5"});
    const std::atomic<bool> stop{false};
    for (const bool per_file : {false, true}) {
        tool::SparseJob job = cpu_job(master, out, 2);
        job.per_file = per_file;
        REQUIRE(tool::run_sparse_job(job, stop).frames == 20);
        const test::H5Reader f(out);
        const std::vector<std::string> groups =
            per_file ? std::vector<std::string>{"/entry/data/data_000001", "/entry/data/data_000002"} : std::vector<std::string>{"/entry/data/data"};
        for (const std::string& g : groups) {
            INFO(g);
            CHECK(f.member_names(g + "/bad_frames") == std::vector<std::string>{"frame", "code", "code_name", "message"});
            CHECK(f.bad_frames(g + "/bad_frames").empty());
            CHECK(f.dataset<std::int32_t>(g + "/nnz", H5T_NATIVE_INT32).size() == (per_file ? 10u : 20u));
        }
    }
}

// ImageD11's segmenter's layout (tests/imaged11_layout.py compares with ImageD11 itself).
TEST_CASE("the output is laid out as ImageD11's segmenter writes it: the group at the input dataset's path, row and col "
          "uint16, intensity in the pixel type, nnz uint32, itype uint16, npx, strings variable-length UTF-8",
          "[sparse-tool][layout]") {
    const std::string scan = temp_path("layout_scan.h5"), out = temp_path("layout_out.h5");
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < 20; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u32, f), 4));
    tool::write_scan(scan, kNi, kNj, PixelType::u32, chunks.size(), {}, chunks);
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const test::H5Reader f(out);
    const std::string g = "/entry/data/data";
    CHECK(f.stored_as(g + "/row", H5T_STD_U16LE));
    CHECK(f.stored_as(g + "/col", H5T_STD_U16LE));
    CHECK(f.stored_as(g + "/intensity", H5T_STD_U32LE));
    CHECK(f.stored_as(g + "/nnz", H5T_STD_U32LE));
    CHECK(f.text_attribute(g, "itype") == std::vector<std::string>{"uint16"});  // the index type, as ImageD11 reads it
    CHECK(f.attribute(g, "nframes") == std::vector<std::int64_t>{20});
    CHECK(f.attribute(g, "shape0") == std::vector<std::int64_t>{kNi});
    CHECK(f.attribute(g, "shape1") == std::vector<std::int64_t>{kNj});
    const auto nnz = f.dataset<std::int64_t>(g + "/nnz", H5T_NATIVE_INT64);
    const std::int64_t total = std::accumulate(nnz.begin(), nnz.end(), std::int64_t{0});
    CHECK(total > 0);
    CHECK(f.attribute(g, "npx") == std::vector<std::int64_t>{total});
    CHECK(f.dataset<std::uint32_t>(g + "/row", H5T_NATIVE_UINT32).size() == static_cast<std::size_t>(total));
    CHECK(f.text_attribute(g, "sources") == std::vector<std::string>{"/entry/data/data"});
    CHECK_THAT(f.text_attribute(g, "command_line").at(0), Catch::Contains("--cut 4"));
    CHECK(f.text_attribute(g, "mask_source").size() == 1);
    CHECK_THAT(f.text_attribute("/", "command_line").at(0), Catch::Contains("--cut 4"));
    CHECK(f.text_attribute("/", "input_file") == std::vector<std::string>{scan});
    // the lists: bitshuffle + lz4 of their element size, every chunk encoded once the run is done
    for (const std::string list : {"row", "col", "intensity"}) {
        INFO(list);
        H5Z_filter_t id = -1;
        const std::vector<unsigned> values = f.filter_values(g + "/" + list, id);
        CHECK(id == 32008);
        REQUIRE(values.size() >= 5);
        CHECK(values[2] == (list == "intensity" ? 4u : 2u));
        CHECK(values[4] == 2u);
        const auto masks = f.chunk_filter_masks(g + "/" + list);
        CHECK(std::count(masks.begin(), masks.end(), 0u) == static_cast<std::ptrdiff_t>(masks.size()));
    }
}

namespace {

// A batch of frames of the given sizes, numbered from `first_pixel` on: pixel p is at flat
// index (p * 7919) % (300 * 300), ascending within its frame, with the value p % 65521.
tool::OutputRows numbered_pixels(const std::vector<std::size_t>& sizes, std::size_t& pixel) {
    tool::OutputRows rows;
    for (const std::size_t n : sizes) {
        std::vector<std::uint32_t> indices;
        std::vector<std::uint16_t> values;
        for (std::size_t k = 0; k < n; ++k, ++pixel) {
            indices.push_back(static_cast<std::uint32_t>((pixel * 7919) % (300 * 300)));
            values.push_back(static_cast<std::uint16_t>(pixel % 65521));
        }
        std::sort(indices.begin(), indices.end());
        rows.add(SparseFrame{n, values.data(), indices.data(), PixelType::u16}, 300, nullptr, 0);
    }
    return rows;
}

struct Lists {
    std::vector<std::uint32_t> row, col, intensity, nnz;
};

Lists lists_in(const std::string& path) {
    const test::H5Reader f(path);
    const std::string g = "/entry/data/data";
    return {f.dataset<std::uint32_t>(g + "/row", H5T_NATIVE_UINT32), f.dataset<std::uint32_t>(g + "/col", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>(g + "/intensity", H5T_NATIVE_UINT32), f.dataset<std::uint32_t>(g + "/nnz", H5T_NATIVE_UINT32)};
}

}  // namespace

TEST_CASE("lists appended in batches across chunk boundaries read back whole with each compression, also from a file "
          "left between two batches (its last chunk unencoded, filter skipped)",
          "[sparse-tool][layout]") {
    // frames of 16,384 pixels and more cross the lists' chunks, one batch ends on a boundary
    const std::vector<std::vector<std::size_t>> batches = {{5, 0, 16379}, {1, 20000}, {3}, {40000, 2, 4}, {16384 - 12}};
    for (const tool::ListCompression c : {tool::ListCompression::bitshuffle_lz4, tool::ListCompression::deflate,
                                          tool::ListCompression::none}) {
        INFO(tool::list_compression_name(c));
        tool::ListCompression named = tool::ListCompression::none;
        CHECK(tool::parse_list_compression(tool::list_compression_name(c), named));
        CHECK(named == c);
        const std::string out = temp_path("lists_out.h5"), snapshot = temp_path("lists_snapshot.h5");
        tool::OutputInfo info;
        info.overwrite = true;
    info.overwrite = true;
        info.ni = info.nj = 300;
        info.compression = c;
        info.flush_seconds = 0;  // flushed after every batch: the snapshot below holds the first two
        Lists want;
        std::size_t pixel = 0, snapshot_pixels = 0, snapshot_frames = 0;
        {
            tool::SparseOutput output(out, info);
            output.begin_group("/entry/data/data", 10);
            for (std::size_t b = 0; b < batches.size(); ++b) {
                const tool::OutputRows rows = numbered_pixels(batches[b], pixel);
                output.append(rows);
                want.row.insert(want.row.end(), rows.row.begin(), rows.row.end());
                want.col.insert(want.col.end(), rows.col.begin(), rows.col.end());
                for (std::size_t k = 0; k < rows.pixels(); ++k)
                    want.intensity.push_back(rows.intensity[2 * k] | rows.intensity[2 * k + 1] << 8);
                want.nnz.insert(want.nnz.end(), rows.nnz.begin(), rows.nnz.end());
                if (b == 1) {  // what a run killed here leaves
                    std::filesystem::copy_file(test::temporaries_of(out).at(0), snapshot,
                                               std::filesystem::copy_options::overwrite_existing);
                    snapshot_pixels = want.row.size();
                    snapshot_frames = want.nnz.size();
                }
            }
            output.close_group(true);
            output.finish();
        }
        const Lists got = lists_in(out);
        CHECK(got.row == want.row);
        CHECK(got.col == want.col);
        CHECK(got.intensity == want.intensity);
        CHECK(got.nnz == want.nnz);
        const Lists early = lists_in(snapshot);
        CHECK(early.row == std::vector<std::uint32_t>(want.row.begin(), want.row.begin() + snapshot_pixels));
        CHECK(early.intensity == std::vector<std::uint32_t>(want.intensity.begin(), want.intensity.begin() + snapshot_pixels));
        CHECK(early.nnz == std::vector<std::uint32_t>(want.nnz.begin(), want.nnz.begin() + snapshot_frames));
        if (c == tool::ListCompression::bitshuffle_lz4) {
            const auto masks = test::H5Reader(out).chunk_filter_masks("/entry/data/data/row");
            CHECK(masks == std::vector<std::uint32_t>(masks.size(), 0));  // all encoded at the end
            const auto partial = test::H5Reader(snapshot).chunk_filter_masks("/entry/data/data/row");
            REQUIRE(partial.size() == 3);  // 36,385 pixels: two chunks whole, the third partial
            CHECK(partial == std::vector<std::uint32_t>{0, 0, 1});
        }
        H5Z_filter_t id = -1;
        test::H5Reader(out).filter_values("/entry/data/data/col", id);
        CHECK(id == (c == tool::ListCompression::bitshuffle_lz4 ? 32008 : c == tool::ListCompression::deflate ? H5Z_FILTER_SHUFFLE : -1));
    }
    tool::ListCompression unchanged = tool::ListCompression::deflate;
    CHECK_FALSE(tool::parse_list_compression("lz4", unchanged));
    CHECK(unchanged == tool::ListCompression::deflate);
}

TEST_CASE("a batch appended once flush_seconds have passed since the last flush is flushed with those before it",
          "[sparse-tool][layout]") {
    const std::string out = temp_path("flush_out.h5"), snapshot = temp_path("flush_snapshot.h5");
    tool::OutputInfo info;
    info.overwrite = true;
    info.ni = info.nj = 300;
    info.flush_seconds = 0.05;
    std::size_t pixel = 0;
    Lists want;
    {
        tool::SparseOutput output(out, info);
        output.begin_group("/entry/data/data", 3);
        for (const std::vector<std::size_t>& sizes : {std::vector<std::size_t>{4, 0}, std::vector<std::size_t>{7}}) {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));  // past flush_seconds: this append flushes
            const tool::OutputRows rows = numbered_pixels(sizes, pixel);
            output.append(rows);
            want.row.insert(want.row.end(), rows.row.begin(), rows.row.end());
            want.nnz.insert(want.nnz.end(), rows.nnz.begin(), rows.nnz.end());
        }
        std::filesystem::copy_file(test::temporaries_of(out).at(0), snapshot, std::filesystem::copy_options::overwrite_existing);
        output.close_group(true);
        output.finish();
    }
    const Lists early = lists_in(snapshot);
    CHECK(early.row == want.row);
    CHECK(early.nnz == want.nnz);
    CHECK(test::H5Reader(snapshot).attribute("/entry/data/data", "nframes") == std::vector<std::int64_t>{3});
    CHECK(test::H5Reader(out).attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{1});
}

TEST_CASE("one group at the scan's path holds the frames of all its input datasets in order, complete once the last is "
          "done; per file (or without a scan path), a group each at the dataset's own path",
          "[sparse-tool][layout]") {
    const std::string out = temp_path("groups_out.h5"), snapshot = temp_path("groups_snapshot.h5");
    const std::string part1 = "/entry/data/data_000001", part2 = "/entry/data/data_000002";
    for (const int mode : {0, 1, 2, 3}) {  // one group; one group, stopped in the first part; per file; no scan path
        INFO("mode " << mode);
        tool::OutputInfo info;
        info.overwrite = true;
    info.overwrite = true;
        info.ni = info.nj = 300;
        info.per_file = mode == 2;
        info.scan_path = mode == 3 ? "" : "/entry/data/data";
        info.scan_frames = 5;
        std::size_t pixel = 0;
        {
            tool::SparseOutput output(out, info);
            output.begin_group(part1, 3);
            output.append(numbered_pixels({4, 0, 9}, pixel));
            output.close_group(mode != 1);
            std::filesystem::copy_file(test::temporaries_of(out).at(0), snapshot, std::filesystem::copy_options::overwrite_existing);
            output.begin_group(part2, 2);
            output.append(numbered_pixels({1, 2}, pixel));
            output.close_group(true);
            output.finish();
        }
        const test::H5Reader f(out), early(snapshot);
        if (mode <= 1) {
            const std::string g = "/entry/data/data";
            CHECK_FALSE(f.exists(part1));
            CHECK(f.dataset<std::uint32_t>(g + "/nnz", H5T_NATIVE_UINT32) == std::vector<std::uint32_t>{4, 0, 9, 1, 2});
            CHECK(f.attribute(g, "nframes") == std::vector<std::int64_t>{5});
            CHECK(f.attribute(g, "npx") == std::vector<std::int64_t>{16});
            CHECK(f.attribute(g, "frames_expected") == std::vector<std::int64_t>{5});
            CHECK(f.text_attribute(g, "sources") == std::vector<std::string>{part1, part2});
            CHECK(f.attribute(g, "complete") == std::vector<std::int64_t>{mode == 0 ? 1 : 0});
            CHECK(early.attribute(g, "nframes") == std::vector<std::int64_t>{3});
            CHECK(early.attribute(g, "complete") == std::vector<std::int64_t>{0});  // the scan is not done yet
        } else {
            CHECK_FALSE(f.exists("/entry/data/data"));
            CHECK(f.dataset<std::uint32_t>(part1 + "/nnz", H5T_NATIVE_UINT32) == std::vector<std::uint32_t>{4, 0, 9});
            CHECK(f.dataset<std::uint32_t>(part2 + "/nnz", H5T_NATIVE_UINT32) == std::vector<std::uint32_t>{1, 2});
            CHECK(f.attribute(part1, "complete") == std::vector<std::int64_t>{1});
            CHECK(f.attribute(part2, "complete") == std::vector<std::int64_t>{1});
            CHECK(f.attribute(part2, "npx") == std::vector<std::int64_t>{3});
            CHECK(f.text_attribute(part2, "sources") == std::vector<std::string>{part2});
            CHECK(early.attribute(part1, "complete") == std::vector<std::int64_t>{1});
        }
    }
}

TEST_CASE("--compression deflate stores the lists with HDF5's shuffle and deflate (no plugin needed), equal to "
          "bitshuffle-lz4's; --compression none stores them as they are; other names are refused",
          "[sparse-tool][layout]") {
    const std::string scan = temp_path("compression_scan.h5");
    write_test_scan(scan);
    Lists want;
    for (const std::string c : {"bitshuffle-lz4", "deflate", "none"}) {
        INFO(c);
        const std::string out = temp_path("compression_" + c + ".h5");
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet --compression " + c);
        INFO(r.err);
        REQUIRE(r.code == 0);
        const Lists got = lists_in(out);
        CHECK(!got.row.empty());
        if (c == "bitshuffle-lz4") want = got;
        CHECK(got.row == want.row);
        CHECK(got.col == want.col);
        CHECK(got.intensity == want.intensity);
        CHECK(got.nnz == want.nnz);
        H5Z_filter_t id = -1;
        test::H5Reader(out).filter_values("/entry/data/data/intensity", id);
        CHECK(id == (c == "bitshuffle-lz4" ? 32008 : c == "deflate" ? H5Z_FILTER_SHUFFLE : -1));
    }
    const test::ToolResult bad = run_tool("sparse --overwrite " + scan + " -o " + temp_path("compression_bad.h5") + " --cut 4 --cpu --compression lz4");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.err, Catch::Contains("--compression 'lz4': bitshuffle-lz4, deflate or none"));
}
