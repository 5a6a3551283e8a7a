// `bslz4 sparse --on-error stop|skip` on a scan with bad chunks (tests/corrupt_scan.hpp): stop
// ends the scan at the first bad frame with its code, skip costs each bad frame only; and every
// error the tools make carries a code, none from a message alone.
#include <sys/stat.h>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "cli/command_line.hpp"
#include "corrupt_scan.hpp"
#include "error_codes.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "matrix_support.hpp"
#include "sparse/sparse_campaign.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "tool_runner.hpp"
#include "uncoded_throws.hpp"

using namespace bslz4;
using test::code_thrown_by;
using test::cpu_sparse_job;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kBins = 16;
const std::string kGroup = "/entry/data/data";

bool file_exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

// A damaged scan, the same scan undamaged, and a matrix over their frames, made once.
struct Scans {
    std::string damaged, clean, matrix;
};
const Scans& scans() {
    static const Scans s = [] {
        Scans s{temp_path("errors_damaged.h5"), temp_path("errors_clean.h5"), temp_path("errors_matrix.h5")};
        test::write_corrupt_scan(s.damaged, true);
        test::write_corrupt_scan(s.clean, false);
        tool::write_matrix(s.matrix, "csr",
                           normalise_matrix(test::random_csr(kBins, test::kCorruptNi * test::kCorruptNj, 2.0, 23).input()));
        return s;
    }();
    return s;
}

// A sparse output's group, every dataset as read back.
struct Output {
    std::vector<std::int32_t> nnz;
    std::vector<std::uint32_t> row, col, intensity;
    std::vector<double> powder;
    std::vector<std::size_t> start;  // frame f's pixels from start[f]
};

Output read_output(const std::string& path) {
    const test::H5Reader f(path);
    Output o;
    o.nnz = f.dataset<std::int32_t>(kGroup + "/nnz", H5T_NATIVE_INT32);
    o.row = f.dataset<std::uint32_t>(kGroup + "/row", H5T_NATIVE_UINT32);
    o.col = f.dataset<std::uint32_t>(kGroup + "/col", H5T_NATIVE_UINT32);
    o.intensity = f.dataset<std::uint32_t>(kGroup + "/intensity", H5T_NATIVE_UINT32);
    if (f.exists(kGroup + "/powder")) o.powder = f.dataset<double>(kGroup + "/powder", H5T_NATIVE_DOUBLE);
    std::size_t at = 0;
    for (const std::int32_t n : o.nnz) {
        o.start.push_back(at);
        at += static_cast<std::size_t>(n);
    }
    return o;
}

bool is_bad(std::size_t f) {
    for (const test::BadChunk& b : test::bad_chunks())
        if (b.frame == f) return true;
    return false;
}

// `got` (of the damaged scan) equals `want` (of the clean one) on every good frame, bit for bit;
// each bad frame has no pixels and a zero powder row.
void check_good_frames_equal(const Output& got, const Output& want, std::size_t bins) {
    REQUIRE(got.nnz.size() == test::kCorruptFrames);
    REQUIRE(want.nnz.size() == test::kCorruptFrames);
    REQUIRE(got.powder.size() == test::kCorruptFrames * bins);
    REQUIRE(want.powder.size() == test::kCorruptFrames * bins);
    for (std::size_t f = 0; f < test::kCorruptFrames; ++f) {
        INFO("frame " << f);
        if (is_bad(f)) {
            REQUIRE(got.nnz[f] == 0);
            for (std::size_t b = 0; b < bins; ++b) REQUIRE(got.powder[f * bins + b] == 0.0);
            continue;
        }
        REQUIRE(got.nnz[f] == want.nnz[f]);
        REQUIRE(want.nnz[f] > 0);  // the frames have pixels to compare
        for (std::int32_t k = 0; k < got.nnz[f]; ++k) {
            REQUIRE(got.row[got.start[f] + k] == want.row[want.start[f] + k]);
            REQUIRE(got.col[got.start[f] + k] == want.col[want.start[f] + k]);
            REQUIRE(got.intensity[got.start[f] + k] == want.intensity[want.start[f] + k]);
        }
        for (std::size_t b = 0; b < bins; ++b) REQUIRE(got.powder[f * bins + b] == want.powder[f * bins + b]);
    }
}

}  // namespace

TEST_CASE("the damaged scan's chunks are refused by the library with the codes the tests expect", "[sparse-errors]") {
    Chunk2Sparse lib(std::vector<std::uint8_t>(test::kCorruptNi * test::kCorruptNj, 1), test::kCorruptNi, test::kCorruptNj,
                     PixelType::u16);
    for (const test::BadChunk& b : test::bad_chunks()) {
        if (b.code == ErrorCode::wrong_decoded_size) continue;  // a raw chunk: the tool's own check
        INFO("frame " << b.frame);
        CHECK(code_thrown_by([&] { lib(test::damaged_chunk(b), 4); }) == b.code);
    }
}

TEST_CASE("--on-error skip: bad chunks at the start, middle and end cost their frames only; the good frames equal the "
          "undamaged scan's bit for bit, the bad ones have nnz 0 and a zero powder and are listed with their codes",
          "[sparse-errors]") {
    const Scans& s = scans();
    const std::string want_out = temp_path("errors_clean_out.h5"), got_out = temp_path("errors_skip_out.h5");
    const std::string common = " --cut 4 --cpu --quiet --matrix " + s.matrix + ":csr";
    test::ToolResult r = run_tool("sparse --overwrite " + s.clean + " -o " + want_out + common);
    INFO(r.err);
    REQUIRE(r.code == 0);
    for (const char* readers : {"1", "3"}) {
        INFO(readers << " readers");
        r = run_tool("sparse --overwrite " + s.damaged + " -o " + got_out + common + " --on-error skip --readers " + readers);
        INFO(r.err << r.out);
        CHECK(r.code == 1);
        check_good_frames_equal(read_output(got_out), read_output(want_out), kBins);

        const test::H5Reader f(got_out);
        CHECK(f.attribute(kGroup, "nframes") == std::vector<std::int64_t>{static_cast<std::int64_t>(test::kCorruptFrames)});
        CHECK(f.attribute(kGroup, "complete") == std::vector<std::int64_t>{1});
        const std::vector<test::BadFrameRow> bad = f.bad_frames(kGroup + "/bad_frames");
        REQUIRE(bad.size() == test::bad_chunks().size());
        for (std::size_t k = 0; k < bad.size(); ++k) {
            const test::BadChunk& b = test::bad_chunks()[k];
            INFO("bad frame " << b.frame);
            CHECK(bad[k].frame == static_cast<std::int64_t>(b.frame));
            CHECK(bad[k].code == static_cast<std::int32_t>(b.code));
            CHECK(bad[k].code_name == error_code_name(b.code));
            // the message --on-error stop would have ended with: file, dataset, the input's frame
            CHECK_THAT(bad[k].message, Catch::StartsWith(s.damaged + ":/entry/data/data frame " + std::to_string(b.frame) + ": "));
            CHECK_THAT(bad[k].message, !Catch::Contains("frame " + std::to_string(b.frame) + ": frame "));
        }
        // the summary: how many, the first five with their codes, and their messages on stderr
        CHECK_THAT(r.out, Catch::Contains(got_out + ": 6 bad frames (nnz 0, in bad_frames): /entry/data/data frame 0 "
                                                    "(bad_lz4_sequence), /entry/data/data frame 30 (truncated_chunk), "
                                                    "/entry/data/data frame 63 (bad_block_length), /entry/data/data frame 64 "
                                                    "(wrong_decoded_size), /entry/data/data frame 100 (bad_header) and 1 more"));
        CHECK_THAT(r.err, Catch::Contains("bslz4: " + s.damaged + ":/entry/data/data frame 0: ") &&
                              Catch::Contains("bslz4: " + s.damaged + ":/entry/data/data frame 100: ") &&
                              Catch::Contains("... and 1 more bad frame, listed in " + got_out + "'s bad_frames"));
    }
    // without a matrix too (no powder): the same lists
    r = run_tool("sparse --overwrite " + s.damaged + " -o " + got_out + " --cut 4 --cpu --quiet --on-error skip");
    CHECK(r.code == 1);
    const Output got = read_output(got_out), want = read_output(want_out);
    REQUIRE(got.nnz.size() == want.nnz.size());
    for (std::size_t f = 0; f < got.nnz.size(); ++f) CHECK(got.nnz[f] == (is_bad(f) ? 0 : want.nnz[f]));
}

TEST_CASE("--on-error skip through the job: bad frames are counted, the first five kept with their dataset, and a scan "
          "with none is not marked",
          "[sparse-errors]") {
    const Scans& s = scans();
    const std::atomic<bool> stop{false};
    tool::SparseJob job = cpu_sparse_job(s.damaged, temp_path("errors_job_skip.h5"));
    job.on_error = OnError::report;
    const tool::SparseSummary got = tool::run_sparse_file(job, stop);
    CHECK(got.frames == test::kCorruptFrames);
    CHECK(got.bad_frames == test::bad_chunks().size());
    REQUIRE(got.first_bad.size() == tool::SparseSummary::kFirstBadKept);
    for (std::size_t k = 0; k < got.first_bad.size(); ++k) {
        CHECK(got.first_bad[k].dataset == "/entry/data/data");
        CHECK(got.first_bad[k].error.frame == test::bad_chunks()[k].frame);
        CHECK(got.first_bad[k].error.code == test::bad_chunks()[k].code);
    }
    job.input = s.clean;
    const tool::SparseSummary clean = tool::run_sparse_file(job, stop);
    CHECK(clean.bad_frames == 0);
    CHECK(clean.first_bad.empty());
    CHECK(tool::bad_frames_summary(clean).empty());
    // a single bad frame: no "more"
    tool::SparseSummary one;
    one.bad_frames = 1;
    one.first_bad.push_back({"/entry/data/data", FrameError{7, ErrorCode::truncated_chunk, "x"}});
    CHECK(tool::bad_frames_summary(one) == "1 bad frame (nnz 0, in bad_frames): /entry/data/data frame 7 (truncated_chunk)");
}

TEST_CASE("--on-error stop (the default) ends the scan at its first bad frame: exit 1, the message names the file, the "
          "dataset and the frame, and no output is written",
          "[sparse-errors]") {
    const Scans& s = scans();
    const std::string out = temp_path("errors_stop_out.h5");
    for (const char* mode : {"", " --on-error stop"}) {
        INFO("mode:" << mode);
        std::remove(out.c_str());
        const test::ToolResult r = run_tool("sparse --overwrite " + s.damaged + " -o " + out + " --cut 4 --cpu --quiet" + mode);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::StartsWith("bslz4: " + s.damaged + ":/entry/data/data frame 0: ") &&
                              Catch::Contains(out + " is not written"));
        CHECK_FALSE(file_exists(out));
    }
    // a bad frame behind raw chunks (frames 10 and 20) is named by its frame in the input, not its
    // place among the chunks the decoder was given
    const std::string behind = temp_path("errors_behind_raw.h5");
    test::write_corrupt_scan(behind, false);
    test::rewrite_chunk(behind, 30, test::damaged_chunk({30, ErrorCode::truncated_chunk}), 0);
    const test::ToolResult r = run_tool("sparse --overwrite " + behind + " -o " + out + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::StartsWith("bslz4: " + behind + ":/entry/data/data frame 30: "));
}

TEST_CASE("a bad frame's error reaching main keeps its code (bad_lz4_sequence, not unspecified)", "[sparse-errors]") {
    const Scans& s = scans();
    const std::atomic<bool> stop{false};
    const tool::SparseJob job = cpu_sparse_job(s.damaged, temp_path("errors_code_out.h5"));
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_lz4_sequence);
    std::string what;
    try {
        tool::run_sparse_file(job, stop);
    } catch (const Error& e) {
        what = e.what();
    }
    CHECK_THAT(what, Catch::StartsWith(s.damaged + ":/entry/data/data frame 0: "));
    // each kind, alone in a scan, as stop meets it (the raw chunk's is the tool's own check)
    const std::string one = temp_path("errors_one_bad.h5");
    for (const test::BadChunk& b : test::bad_chunks()) {
        INFO("frame " << b.frame);
        test::write_corrupt_scan(one, false);
        test::rewrite_chunk(one, b.frame, test::damaged_chunk(b), b.code == ErrorCode::wrong_decoded_size ? 1 : 0);
        const tool::SparseJob j = cpu_sparse_job(one, temp_path("errors_one_out.h5"));
        CHECK(code_thrown_by([&] { tool::run_sparse_file(j, stop); }) == b.code);
    }
    // a file's error through about_file keeps its code too
    CHECK(code_thrown_by([] { tool::about_file("x.bin", [] { throw Error(ErrorCode::io, "cannot read"); }); }) == ErrorCode::io);
    CHECK_THROWS_WITH(tool::about_file("x.bin", [] { throw Error(ErrorCode::io, "cannot read"); }), "x.bin: cannot read");
}

TEST_CASE("the job's own refusals carry bad_argument: --frames, the mask's spec, reader threads, GPUs it cannot have",
          "[sparse-errors]") {
    const Scans& s = scans();
    const std::atomic<bool> stop{false};
    const tool::SparseJob base = cpu_sparse_job(s.clean, temp_path("errors_argument_out.h5"));
    for (const char* frames : {"5", "x:3", "9:2", "200:300"}) {
        INFO("--frames " << frames);
        tool::SparseJob job = base;
        job.frames_spec = frames;
        CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
    }
    tool::SparseJob job = base;
    job.mask_spec = "no_colon";
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
    job = base;
    job.reader_threads = 17;
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
#if !BSLZ4_HAVE_CUDA
    job = base;
    job.where = tool::SparseJob::Where::gpu;
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
    job.where = tool::SparseJob::Where::any;
    job.devices = {0};
    CHECK(code_thrown_by([&] { tool::run_sparse_file(job, stop); }) == ErrorCode::bad_argument);
#endif
}

TEST_CASE("--on-error takes stop or skip; anything else is a usage error (exit 2) and nothing is read", "[sparse-errors]") {
    const std::string missing = temp_path("errors_no_such_scan.h5"), out = temp_path("errors_usage_out.h5");
    for (const char* bad : {"Skip", "ignore", "''", "stop,skip"}) {
        INFO(bad);
        const test::ToolResult r = run_tool("sparse --overwrite " + missing + " -o " + out + " --cut 4 --cpu --on-error " + bad);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--on-error '") && Catch::Contains("expected stop") && Catch::Contains("or skip"));
    }
    const test::ToolResult none = run_tool("sparse --overwrite " + missing + " -o " + out + " --cut 4 --cpu --on-error");
    CHECK(none.code == 2);
    CHECK_FALSE(file_exists(out));
    CHECK(tool::parse_on_error("stop") == OnError::throw_first);
    CHECK(tool::parse_on_error("skip") == OnError::report);
    const test::ToolResult help = run_tool("sparse --overwrite --help");
    CHECK(help.code == 0);
    CHECK_THAT(help.out, Catch::Contains("--on-error stop|skip"));
}

TEST_CASE("in a campaign under --on-error skip, a scan with bad frames is written whole and listed with them, the "
          "others as usual, and the exit status is 1",
          "[sparse-errors][sparse-campaign]") {
    const Scans& s = scans();
    const std::string dir = temp_path("errors_campaign");
    std::filesystem::remove_all(dir);
    const std::string damaged_out = tool::sparse_output_name(s.damaged, dir + "/"),
                      clean_out = tool::sparse_output_name(s.clean, dir + "/");
    test::ToolResult r = run_tool("sparse --overwrite " + s.damaged + " " + s.clean + " -o " + dir + "/ --cut 4 --cpu --on-error skip");
    INFO(r.err << r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains(s.damaged + " -> " + damaged_out + ": 150 frames") &&
                          Catch::Contains("; 6 bad frames (nnz 0, in bad_frames): /entry/data/data frame 0 (bad_lz4_sequence)"));
    CHECK_THAT(r.out, Catch::Contains(s.clean + " -> " + clean_out + ": 150 frames"));
    CHECK_THAT(r.out, !Catch::Contains("FAILED"));
    CHECK_THAT(r.out, Catch::Contains("total (2 inputs): 2 done, 0 failed, 0 not done, 1 with bad frames;"));
    CHECK_THAT(r.err, Catch::Contains("bslz4: " + s.damaged + ":/entry/data/data frame 0: "));
    {
        const test::H5Reader f(damaged_out);
        CHECK(f.attribute(kGroup, "complete") == std::vector<std::int64_t>{1});
        CHECK(f.bad_frames(kGroup + "/bad_frames").size() == test::bad_chunks().size());
    }
    CHECK(test::H5Reader(clean_out).bad_frames(kGroup + "/bad_frames").empty());
    // the clean scan alone: exit 0
    r = run_tool("sparse --overwrite " + s.clean + " -o " + dir + "/ --cut 4 --cpu --on-error skip");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("total (1 inputs): 1 done, 0 failed, 0 not done, 0 with bad frames;"));
    // under stop, the damaged scan fails as before and is not written
    std::filesystem::remove_all(dir);
    r = run_tool("sparse --overwrite " + s.damaged + " " + s.clean + " -o " + dir + "/ --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains(s.damaged + ": FAILED: ") && Catch::Contains("1 done, 1 failed"));
    CHECK_FALSE(file_exists(damaged_out));
}

TEST_CASE("every Error the tools make names its code: none from a message alone", "[sparse-errors][error-codes]") {
    namespace fs = std::filesystem;
    const fs::path root = test::source_copy();
    std::vector<std::string> found;
    std::size_t files = 0;
    for (const fs::path& dir : {root / "tools" / "cli", root / "tools" / "sparse", root / "tools" / "bench", root / "tools" / "hdf5",
                               root / "tools" / "synthetic"})
        for (const auto& entry : fs::directory_iterator(dir)) {
            const fs::path& p = entry.path();
            if (p.extension() != ".cpp" && p.extension() != ".hpp") continue;
            ++files;
            for (const std::string& f : test::errors_from_a_message_alone(p.string())) found.push_back(f);
        }
    REQUIRE(files > 40);
    INFO(Catch::Detail::stringify(found));
    REQUIRE(found.empty());
}
