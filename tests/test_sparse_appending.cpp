// The output's lists appended batch by batch: across chunk boundaries with each compression,
// flushed as flush_seconds say, one group for a scan of several datasets, and deflate as HDF5
// writes it.
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
        rows.add(SparseFrame{n, values.data(), indices.data(), PixelType::u16}, 300);
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
