// What `bslz4 sparse` reads, and refuses naming it: bitshuffle's stored filter values, big-endian
// scans, masks in their own type and links that do not resolve, chunk indexes that lie, frames
// never written, user blocks, and HDF5's failures on the reader threads.
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
using test::kBitshuffle;
using test::test_chunks;
using test::write_scan_with_values;

namespace {

bool env_is(const char* name) { return test::env_or(name, "") == "1"; }

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

TEST_CASE("zstd values of bitshuffle 0.3 over chunks stored without compression (Debian 12's plugin asked for zstd) "
          "are refused at once, naming why; real zstd chunks under the same values are read",
          "[sparse-tool][filter-values]") {
    const std::string scan = temp_path("scan_old_zstd.h5"), out = temp_path("out_old_zstd.h5");
    const std::vector<unsigned> old_zstd = {0, 3, 2, 0, 3, 3};
    // What bitshuffle 0.3.5 stores for zstd: the frame's bytes bitshuffled, no header, no compression.
    std::vector<std::vector<std::uint8_t>> plain;
    for (std::size_t f = 0; f < 2; ++f) {
        std::vector<std::uint8_t> frame(kNi * kNj * 2);
        for (std::size_t k = 0; k < frame.size(); ++k) frame[k] = static_cast<std::uint8_t>(k * 7 + f);
        plain.push_back(frame);
    }
    write_scan_with_values(scan, H5T_STD_U16LE, old_zstd, plain);
    test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(scan + ":/entry/data/data") && Catch::Contains("bitshuffle 0.3 or older, which has no zstd") &&
                          Catch::Contains("without bitshuffle's header"));
    CHECK_FALSE(std::filesystem::exists(out));
    // this project's writer with that plugin found records the same values over real zstd chunks
    write_scan_with_values(scan, H5T_STD_U16LE, old_zstd, test_chunks(2, PixelType::u16, Codec::zstd));
    r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    CHECK(r.code == 0);
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
