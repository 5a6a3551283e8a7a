// The sparse job's conveyor: chunks read by position in any order by several readers, where its
// time went, raw chunks listed on the host, scans of several datasets, interruptions, the codes
// of its refusals, bad frames written and listed, and the layout of ImageD11's segmenter.
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
#include <memory>
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
#include "synthetic/synthetic_eiger.hpp"

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

// The library's lists and powders of matrix `m` on chunks [first, first + count), beside the
// object whose buffers they view. Not kept in a static: an integrator destroyed at exit would
// outlive the thread pool it uses.
struct LibraryPowders {
    std::unique_ptr<Chunk2SparseCSC> object;
    IntegratedBatch batch;
};

LibraryPowders library_powders(const std::vector<std::vector<std::uint8_t>>& chunks, const IntegrationMatrix& m,
                               std::size_t first = 0, std::size_t count = SIZE_MAX) {
    LibraryPowders r;
    r.object = std::make_unique<Chunk2SparseCSC>(std::vector<std::uint8_t>(kNi * kNj, 1), kNi, kNj, PixelType::u16, m);
    const std::size_t n = std::min(count, chunks.size() - first);
    const std::vector<ByteView> views(chunks.begin() + static_cast<std::ptrdiff_t>(first),
                                      chunks.begin() + static_cast<std::ptrdiff_t>(first + n));
    r.batch = r.object->multi(views, 4.0);
    return r;
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

    // with a matrix: each frame's powder at its row of the scan's group, or of its file's
    const std::string mat = temp_path("multi_matrix.h5");
    const IntegrationMatrix m = normalise_matrix(test::random_csr(33, kNi * kNj, 2.0, 4).input());
    tool::write_matrix(mat, "csr", m);
    job.matrix_spec = mat + ":csr";
    CHECK(tool::run_sparse_job(job, stop).frames == 70);
    check_group(out, "/entry/data/data_000001", library_powders(first, m, 50).batch, 20, 33);
    check_group(out, "/entry/data/data_000002", library_powders(second, m, 0, 50).batch, 50, 33);
    job.per_file = false;
    CHECK(tool::run_sparse_job(job, stop).frames == 70);
    check_group(out, "/entry/data/data", library_powders(chunks, m, 50, 70).batch, 70, 33);
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

TEST_CASE("an interrupted run with a matrix keeps its powders cut to the frames written, each the library's",
          "[sparse-tool][positional]") {
    const std::string scan = temp_path("scan_stop_powders.h5"), out = temp_path("out_stop_powders.h5");
    const std::string mat = temp_path("matrix_stop_powders.h5");
    const auto chunks = test_chunks(3 * 64 + 5);
    tool::write_scan(scan, kNi, kNj, PixelType::u16, chunks.size(), {}, chunks);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(21, kNi * kNj, 2.0, 8).input());
    tool::write_matrix(mat, "csr", m);
    const LibraryPowders library = library_powders(chunks, m, 0, 64);
    const IntegratedBatch& want = library.batch;
    tool::SparseJob job = cpu_job(scan, out, 2);
    job.matrix_spec = mat + ":csr";
    test::check_stopped_after_first_batch(job);
    const test::H5Reader f(out + ".incomplete");
    const auto powder = f.dataset<double>("/entry/data/data/powder", H5T_NATIVE_DOUBLE);
    REQUIRE(powder.size() == 64 * 21);
    for (std::size_t fr = 0; fr < 64; ++fr)
        for (std::size_t b = 0; b < 21; ++b) REQUIRE(powder[fr * 21 + b] == want.powder.value(fr, b));
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
        // the decoders write the powders where the group keeps them, a bad frame's row zero
        const tool::GroupPowders* powders = output.powders();
        REQUIRE(powders != nullptr);
        REQUIRE(powders->row_bytes() == sizeof powder);
        tool::OutputRows first;
        first.add(good, kNj);
        first.add_bad(11, ErrorCode::truncated_chunk, "frame 11: the chunk ends before its 12-byte header");
        first.add(good, kNj);
        powders->write(0, 1, powder);
        powders->write_zero(1);
        powders->write(2, 1, powder);
        output.append(first);
        // what an interrupted run leaves: the first batch, its bad frame listed
        const std::vector<std::string> written = test::temporaries_of(out);
        REQUIRE(written.size() == 1);
        std::filesystem::copy_file(written[0], snapshot, std::filesystem::copy_options::overwrite_existing);
        tool::OutputRows second;
        second.add_bad(13, ErrorCode::bad_lz4_sequence, lz4);
        second.add_bad(14, ErrorCode::io, "frame 14: read failed");
        second.add(good, kNj);
        powders->write_zero(3);
        powders->write_zero(4);
        powders->write(5, 1, powder);
        CHECK_THROWS_AS(powders->write(6, 1, powder), Error);  // past the group's frames
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
