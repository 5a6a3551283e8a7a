// `bslz4 sparse` as a user meets it: what -o does to files that exist already (never destroyed,
// the input never overwritten), the --matrix file's spec, shape and messages, and --device (the
// list, no GPU, and the machinery that spreads batches over several GPUs, run here on the CPU).
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>

#include "sparse/batch_reader.hpp"
#include "bslz4/bslz4.hpp"
#include "cli/command_line.hpp"
#include "cli/device_list.hpp"
#include "h5_reader.hpp"
#include "hdf5/chunk_index.hpp"
#include "hdf5/scan_input.hpp"
#include "sparse/ordered_decoding.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_writer.hpp"
#include "matrix_file_writer.hpp"
#include "matrix_support.hpp"
#include "sparse/sparse_job.hpp"
#include "sparse_job_fixture.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#include "synthetic/synthetic_eiger.hpp"
#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/device.hpp"
#endif

using namespace bslz4;
using bslz4::tool::OutputRows;
using test::run_tool;
using test::temp_path;

namespace {

constexpr std::size_t kCliNi = 30, kCliNj = 40, kCliFrames = 80;  // two batches of the job

// A u16 scan without pixel_mask; frame `corrupt_frame` truncated (in the second batch by default).
void write_cli_scan(const std::string& path, std::size_t corrupt_frame = SIZE_MAX) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < kCliFrames; ++f) {
        chunks.push_back(encode_chunk(synthetic_eiger_frame(kCliNi, kCliNj, PixelType::u16, f), 2));
        if (f == corrupt_frame) chunks.back().resize(chunks.back().size() - 7);
    }
    tool::write_scan(path, kCliNi, kCliNj, PixelType::u16, kCliFrames, {}, chunks);
}

std::string bytes_of(const std::string& path) { return test::slurp(path); }

bool file_exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

std::int64_t nframes_in(const test::H5Reader& f) { return f.attribute("/entry/data/data", "nframes").at(0); }

// A CSR matrix over the scan's frames whose last bin and last pixel carry weights, so that its
// shape can be told from its arrays alone.
test::RawMatrix cli_matrix() {
    test::RawMatrix m = test::random_csr(24, kCliNi * kCliNj, 2.0, 17);
    m.indices.push_back(static_cast<std::int32_t>(kCliNi * kCliNj - 1));
    m.data.push_back(0.75f);
    m.indptr.back() += 1;
    return m;
}

void require_same_matrix(const IntegrationMatrix& a, const IntegrationMatrix& b) {
    REQUIRE(a.bins == b.bins);
    REQUIRE(a.pixels == b.pixels);
    REQUIRE(a.row_start == b.row_start);
    REQUIRE(a.pixel == b.pixel);
    REQUIRE(a.weight == b.weight);
}

}  // namespace

TEST_CASE("a failing run leaves an existing output file as it was, even while another process holds it open",
          "[sparse-cli]") {
    const std::string good = temp_path("cli_good.h5"), bad = temp_path("cli_bad.h5"), out = temp_path("cli_kept.h5");
    write_cli_scan(good);
    write_cli_scan(bad, 70);  // the first batch is written before the fault
    std::remove(out.c_str());
    test::ToolResult r = run_tool("sparse --overwrite " + good + " -o " + out + " --cut 4 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const std::string before = bytes_of(out);
    REQUIRE(!before.empty());
    {
        const test::H5Reader held(out);  // open (and HDF5-locked) here while bslz4 runs
        r = run_tool("sparse --overwrite " + bad + " -o " + out + " --cut 4 --cpu --quiet");
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("frame 70") && Catch::Contains(out + " is left unchanged"));
        CHECK(nframes_in(held) == static_cast<std::int64_t>(kCliFrames));
    }
    CHECK(bytes_of(out) == before);
    CHECK(test::temporaries_of(out).empty());

    // with no file there before, a failing run leaves none
    const std::string fresh = temp_path("cli_never_written.h5");
    std::remove(fresh.c_str());
    r = run_tool("sparse --overwrite " + bad + " -o " + fresh + " --cut 4 --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(fresh + " is not written"));
    CHECK_FALSE(file_exists(fresh));
    CHECK(test::temporaries_of(fresh).empty());
}

TEST_CASE("a successful run replaces an existing output file; a reader of the old one keeps reading it",
          "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_replace.h5"), out = temp_path("cli_replaced.h5");
    write_cli_scan(scan);
    std::remove(out.c_str());
    test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --frames 0:10 --cpu --quiet");
    INFO(r.err);
    REQUIRE(r.code == 0);
    REQUIRE(chmod(out.c_str(), 0640) == 0);
    {
        const test::H5Reader held(out);
        r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet");
        INFO(r.err);
        REQUIRE(r.code == 0);
        CHECK(nframes_in(held) == 10);
    }
    const test::H5Reader now(out);
    CHECK(nframes_in(now) == static_cast<std::int64_t>(kCliFrames));
    CHECK(now.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{1});
    struct stat st {};
    REQUIRE(stat(out.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0640);  // the replaced file's permissions are kept
    CHECK(test::temporaries_of(out).empty());
}

TEST_CASE("a stopped run (Ctrl-C) keeps its readable, incomplete file in OUTPUT.incomplete and leaves an existing output as "
          "it was", "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_stop.h5"), out = temp_path("cli_stopped.h5");
    write_cli_scan(scan);
    {
        std::FILE* f = std::fopen(out.c_str(), "wb");
        REQUIRE(f);
        std::fputs("an older file", f);
        std::fclose(f);
    }
    test::check_stopped_after_first_batch(test::cpu_sparse_job(scan, out));
    CHECK(test::temporaries_of(out).empty());
}

TEST_CASE("-o naming the input, the mask file or the matrix file is refused as a usage error, the file intact",
          "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_self.h5"), link = temp_path("cli_scan_self_link.h5");
    const std::string mat = temp_path("cli_matrix_self.h5");
    write_cli_scan(scan);
    tool::write_matrix(mat, "csr", normalise_matrix(cli_matrix().input()));
    std::remove(link.c_str());
    REQUIRE(symlink(scan.c_str(), link.c_str()) == 0);
    const std::string scan_bytes = bytes_of(scan), mat_bytes = bytes_of(mat);

    for (const std::string& o : {scan, link}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + o + " --cut 4 --cpu --quiet");
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("is the input file") && Catch::Contains("left unchanged"));
    }
    test::ToolResult r = run_tool("sparse --overwrite " + link + " -o " + scan + " --cut 4 --cpu --quiet");  // through another path
    CHECK(r.code == 2);
    const std::string other = temp_path("cli_scan_other.h5");
    write_cli_scan(other);
    r = run_tool("sparse --overwrite " + other + " -o " + link + " --cut 4 --mask " + scan + ":/entry/data/data --cpu --quiet");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("is the --mask file"));
    r = run_tool("sparse --overwrite " + scan + " -o " + mat + " --cut 4 --matrix " + mat + ":csr --cpu --quiet");
    CHECK(r.code == 2);
    CHECK_THAT(r.err, Catch::Contains("is the --matrix file"));
    CHECK(bytes_of(scan) == scan_bytes);
    CHECK(bytes_of(mat) == mat_bytes);
    CHECK(test::temporaries_of(scan).empty());
}

TEST_CASE("--matrix FILE without :GROUP is a usage error saying FILE.h5:GROUP is expected", "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_spec.h5"), mat = temp_path("cli_matrix_spec.h5");
    write_cli_scan(scan);
    tool::write_matrix(mat, "csr", normalise_matrix(cli_matrix().input()));
    for (const std::string& spec : {mat, mat + ":"}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + temp_path("cli_out_spec.h5") +
                                            " --cut 4 --matrix " + spec + " --cpu --quiet");
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("FILE.h5:GROUP expected"));
    }
}

TEST_CASE("a matrix saved without a shape attribute: bins and pixels are inferred from indptr and indices",
          "[sparse-cli]") {
    const std::string mat = temp_path("cli_matrix_noshape.h5");
    const test::RawMatrix csr = cli_matrix(), csc = test::to_csc(csr);
    {
        const tool::h5::Handle file = tool::h5::create_file(mat);
        test::write_matrix_arrays(file.get(), "csr", csr, false);
        test::write_matrix_arrays(file.get(), "csc", csc, false);
        test::write_matrix_arrays(file.get(), "csr_shaped", csr, true);
    }
    const IntegrationMatrix want = normalise_matrix(csr.input());
    const std::size_t pixels = kCliNi * kCliNj;
    for (const char* group : {"csr", "csc", "csr_shaped"}) {
        INFO(group);
        require_same_matrix(tool::read_matrix_file(mat + ":" + group, pixels).matrix, want);
        require_same_matrix(tool::read_matrix_file(mat + ":" + group).matrix, want);
    }

    // pixels the matrix never uses at the end of the frame: only the frame's pixel count tells
    test::RawMatrix short_csr = test::random_csr(24, pixels - 50, 2.0, 5);
    short_csr.pixels = pixels;
    const std::string mat2 = temp_path("cli_matrix_noshape_short.h5");
    {
        const tool::h5::Handle file = tool::h5::create_file(mat2);
        test::write_matrix_arrays(file.get(), "csr", short_csr, false);
        test::write_matrix_arrays(file.get(), "csc", test::to_csc(short_csr), false);
    }
    require_same_matrix(tool::read_matrix_file(mat2 + ":csr", pixels).matrix, normalise_matrix(short_csr.input()));
    require_same_matrix(tool::read_matrix_file(mat2 + ":csc", pixels).matrix, normalise_matrix(short_csr.input()));

    // end to end: the same powders as with the attribute
    const std::string scan = temp_path("cli_scan_noshape.h5"), out = temp_path("cli_out_noshape.h5");
    write_cli_scan(scan);
    std::vector<double> first;
    for (const char* group : {"csr_shaped", "csr", "csc"}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --matrix " + mat + ":" + group +
                                            " --cpu --quiet");
        INFO(group << ": " << r.err);
        REQUIRE(r.code == 0);
        const auto powder = test::H5Reader(out).dataset<double>("/entry/data/data/powder", H5T_NATIVE_DOUBLE);
        REQUIRE(powder.size() == kCliFrames * 24);
        if (first.empty()) first = powder;
        CHECK(powder == first);
    }
}

TEST_CASE("every matrix file error names the file and the group", "[sparse-cli]") {
    const std::string mat = temp_path("cli_matrix_errors.h5");
    test::RawMatrix bad_index = cli_matrix();
    bad_index.indices[3] = static_cast<std::int32_t>(kCliNi * kCliNj + 5);
    {
        const tool::h5::Handle file = tool::h5::create_file(mat);
        test::write_matrix_arrays(file.get(), "good", cli_matrix(), true);
        test::write_matrix_arrays(file.get(), "bad_index", bad_index, true);
        tool::h5::Handle g(H5Gcreate2(file.get(), "no_indices", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose, "g");
        test::RawMatrix bad_shape = cli_matrix();
        bad_shape.bins = 0;
        test::write_matrix_arrays(file.get(), "bad_shape", bad_shape, true);
    }
    auto message = [](const std::string& spec, std::size_t pixels) {
        try {
            tool::read_matrix_file(spec, pixels);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::size_t pixels = kCliNi * kCliNj;
    CHECK_THAT(message(mat + ":nope", pixels), Catch::StartsWith(mat + ":/nope: "));
    CHECK_THAT(message(mat + ":no_indices", pixels), Catch::StartsWith(mat + ":/no_indices: ") && Catch::Contains("data"));
    CHECK_THAT(message(mat + ":bad_shape", pixels), Catch::StartsWith(mat + ":/bad_shape: ") && Catch::Contains("shape"));
    CHECK_THAT(message(mat + ":bad_index", pixels), Catch::StartsWith(mat + ":/bad_index: "));
    CHECK_THAT(message(mat + ":good", pixels + 1), Catch::StartsWith(mat + ":/good: ") && Catch::Contains("pixels"));
    CHECK_THAT(message(temp_path("cli_no_such_matrix.h5") + ":csr", pixels),
               Catch::StartsWith(temp_path("cli_no_such_matrix.h5") + ":/csr: ") && Catch::Contains("cannot open"));
    CHECK(message(mat + ":good", pixels) == "no error");

    // and through the command, with exit 1 (bad data)
    const std::string scan = temp_path("cli_scan_errors.h5");
    write_cli_scan(scan);
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + temp_path("cli_out_errors.h5") + " --cut 4 --matrix " +
                                        mat + ":bad_shape --cpu --quiet");
    CHECK(r.code == 1);
    CHECK_THAT(r.err, Catch::Contains(mat + ":/bad_shape: "));
}

TEST_CASE("--help says what --acc i64 makes exact and that it refuses sums that could overflow", "[sparse-cli]") {
    const test::ToolResult r = run_tool("sparse --overwrite --help");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("i64 sums integers") && Catch::Contains("fixed point") &&
                          Catch::Contains("same on CPU and GPU") && Catch::Contains("refused"));
    CHECK_THAT(r.out, !Catch::Contains("fixed-point, exact"));
}

TEST_CASE("--readers N sets the reading threads: any count gives the same file, 0 or 17 is a usage error",
          "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_readers.h5");
    write_cli_scan(scan);
    std::vector<std::uint32_t> first_rows;
    for (const char* readers : {"1", "3", "16"}) {
        const std::string out = temp_path(std::string("cli_readers_") + readers + ".h5");
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet --readers " + readers);
        INFO(readers << ": " << r.err);
        REQUIRE(r.code == 0);
        const test::H5Reader f(out);
        const auto rows = f.dataset<std::uint32_t>("/entry/data/data/row", H5T_NATIVE_UINT32);
        const auto nnz = f.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32);
        REQUIRE(nnz.size() == kCliFrames);
        if (first_rows.empty()) first_rows = rows;
        CHECK(rows == first_rows);
    }
    for (const char* bad : {"0", "17", "x"}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + temp_path("cli_readers_bad.h5") + " --cut 4 --readers " + bad);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--readers"));
    }
}

TEST_CASE("--peaks writes labels, nlabels, peak_props and peak_pairs; its options without it, or bad, are usage errors",
          "[sparse-cli]") {
    const std::string scan = temp_path("cli_scan_peaks.h5");
    write_cli_scan(scan);
    const std::string out = temp_path("cli_peaks.h5");
    const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --cpu --quiet --peaks cplabel --wtmax 100");
    INFO(r.err);
    REQUIRE(r.code == 0);
    const test::H5Reader f(out);
    const auto nnz = f.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32);
    const auto nlabels = f.dataset<std::uint32_t>("/entry/data/data/nlabels", H5T_NATIVE_UINT32);
    const auto labels = f.dataset<std::int32_t>("/entry/data/data/labels", H5T_NATIVE_INT32);
    const auto props = f.dataset<std::int64_t>("/entry/data/data/peak_props", H5T_NATIVE_INT64);
    REQUIRE(nlabels.size() == nnz.size());
    std::size_t pixels = 0, peaks = 0;
    for (std::size_t k = 0; k < nnz.size(); ++k) {
        pixels += nnz[k];
        peaks += nlabels[k];
    }
    CHECK(labels.size() == pixels);
    CHECK(props.size() == 5 * peaks);
    for (const char* bad : {"--peaks watershed", "--wtmax 5", "--peak-threads 2", "--peaks lmlabel --wtmax x"}) {
        const test::ToolResult b = run_tool("sparse --overwrite " + scan + " -o " + temp_path("cli_peaks_bad.h5") + " --cut 4 " + bad);
        INFO(bad << ": " << b.err);
        CHECK(b.code == 2);
    }
}

TEST_CASE("--device takes all, a GPU number or a comma list; anything else is a usage error naming it", "[sparse-cli][device]") {
    CHECK(tool::parse_device_list("all").all);
    CHECK(tool::parse_device_list("1").ordinals == std::vector<int>{1});
    CHECK(tool::parse_device_list("2,0,1").ordinals == std::vector<int>{2, 0, 1});
    for (const char* bad : {"", "x", "-1", "0,", ",1", "0,,1", "1.5", "0 1", "ALL", "0,0", "99999"})
        CHECK_THROWS_AS(tool::parse_device_list(bad), tool::UsageError);
    CHECK_THROWS_WITH(tool::parse_device_list("1,0,1"), Catch::Contains("names GPU 1 twice"));
    CHECK_THROWS_WITH(tool::parse_device_list("gpu1"),
                      Catch::Contains("--device 'gpu1': expected all, a GPU number (0, 1, ...) or a comma list such as 0,1"));

    // As the command meets them: refused before anything is read (the input does not exist).
    const std::string missing = temp_path("cli_device_no_such_scan.h5"), out = temp_path("cli_device_out.h5");
    for (const char* bad : {"x", "0,,1", "-1", "1,1"}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + missing + " -o " + out + " --cut 4 --device " + bad);
        INFO(bad << ": " << r.err);
        CHECK(r.code == 2);
        CHECK_THAT(r.err, Catch::Contains("--device '" + std::string(bad) + "'"));
    }
    const test::ToolResult both = run_tool("sparse --overwrite " + missing + " -o " + out + " --cut 4 --cpu --device 0");
    CHECK(both.code == 2);
    CHECK_THAT(both.err, Catch::Contains("give --cpu or --device, not both"));
    const test::ToolResult bench = run_tool("bench --device 0,x");
    CHECK(bench.code == 2);
    CHECK_THAT(bench.err, Catch::Contains("--device '0,x'"));
    CHECK(!file_exists(out));
}

TEST_CASE("--device with no GPU present is an error saying so (and pointing at --cpu) before any file is read, not a run on the CPU",
          "[sparse-cli][device]") {
#if BSLZ4_HAVE_CUDA
    if (cuda::available()) {
        WARN("a GPU is present here (" << cuda::device_count() << "): the no-GPU error is not tested");
        return;
    }
    const std::string why = "no GPU to run on: " + cuda::unavailable_reason();
#else
    const std::string why = "no GPU to run on: this build has no GPU runtime";
#endif
    const std::string scan = temp_path("cli_scan_device.h5"), out = temp_path("cli_device_none.h5");
    write_cli_scan(scan);
    for (const char* spec : {"all", "0", "0,1"}) {
        const test::ToolResult r = run_tool("sparse --overwrite " + scan + " -o " + out + " --cut 4 --quiet --device " + spec);
        INFO(spec << ": " << r.err);
        CHECK(r.code == 1);
        CHECK_THAT(r.err, Catch::Contains("--device " + std::string(spec) + ": " + why) && Catch::Contains("; give --cpu to run on the CPU"));
        CHECK(!file_exists(out));
    }
    // before the input is opened: the same error for a scan that is not there
    const test::ToolResult missing = run_tool("sparse --overwrite " + temp_path("cli_device_missing.h5") + " -o " + out + " --cut 4 --device all");
    CHECK(missing.code == 1);
    CHECK_THAT(missing.err, Catch::Contains("--device all: " + why));
    // the library's callers: a job naming GPUs does not fall back to the CPU either
    tool::SparseJob job = test::cpu_sparse_job(scan, out);
    job.where = tool::SparseJob::Where::any;
    job.devices = {0};
    const std::atomic<bool> never{false};
    CHECK_THROWS_WITH(tool::run_sparse_job(job, never), Catch::Contains("--device: no GPU to run on") && Catch::Contains("give --cpu"));
    const test::ToolResult bench = run_tool("bench --device all --frames 1 --seconds 0.01");
    CHECK(bench.code == 1);
    CHECK_THAT(bench.err, Catch::Contains("--device all: " + why));
}

namespace {

// A scan of `frames` small frames and its chunk index, for the decoders below.
struct IndexedScan {
    tool::ScanInput scan;
    tool::ChunkIndex index;
};

IndexedScan indexed_scan(const std::string& path, std::size_t frames) {
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(6, 8, PixelType::u16, f), 2));
    tool::write_scan(path, 6, 8, PixelType::u16, frames, {}, chunks);
    IndexedScan s{tool::open_scan(path, ""), {}};
    s.index = tool::read_chunk_index(s.scan.datasets[0].dataset.get(), 0, frames, path, s.scan.largest_chunk, 8192);
    return s;
}

// Rows whose nnz holds the batch's frame numbers, after a pause of a few ms that differs by
// decoder and batch, so that later batches often finish first.
OutputRows numbered_rows(const tool::ReadBatch& batch, std::size_t k) {
    std::this_thread::sleep_for(std::chrono::milliseconds((batch.number * 7 + k * 3) % 11));
    OutputRows rows;
    for (std::size_t f = 0; f < batch.lengths.size(); ++f) rows.nnz.push_back(static_cast<std::uint32_t>(batch.first + f));
    return rows;
}

}  // namespace

TEST_CASE("batches taken by several decoders at once come back in frame order; an error comes after the batches before it",
          "[sparse-cli][device]") {
    const std::size_t frames = 64 * 9 + 5;  // ten batches, the last short
    const IndexedScan s = indexed_scan(temp_path("cli_ordered.h5"), frames);
    for (std::size_t decoders : {1, 2, 3}) {
        INFO(decoders << " decoders");
        tool::BufferRing ring(2 + 2 * decoders, tool::largest_batch_bytes(s.index, 64), tool::ordinary_memory);
        tool::BatchReader reader(s.index, ring, 64, 2);
        std::vector<std::uint32_t> seen;
        std::vector<std::size_t> by(decoders, 0);
        std::mutex m;
        const bool all = tool::decode_in_order(
            reader, decoders, ring.slots(),
            [&](const tool::ReadBatch& b, std::size_t k) {
                {
                    std::lock_guard<std::mutex> lock(m);
                    by.at(k) += 1;
                }
                return numbered_rows(b, k);
            },
            [&](OutputRows&& rows) {
                seen.insert(seen.end(), rows.nnz.begin(), rows.nnz.end());
                return true;
            });
        CHECK(all);
        REQUIRE(seen.size() == frames);
        for (std::size_t f = 0; f < frames; ++f) REQUIRE(seen[f] == static_cast<std::uint32_t>(f));
        if (decoders > 1) CHECK(std::count(by.begin(), by.end(), 0u) == 0);  // each took some
    }
    // batch 4 fails on whichever decoder takes it: batches 0 to 3 are sunk first, none after
    for (std::size_t decoders : {1, 3}) {
        tool::BufferRing ring(2 + 2 * decoders, tool::largest_batch_bytes(s.index, 64), tool::ordinary_memory);
        tool::BatchReader reader(s.index, ring, 64, 3);
        std::size_t sunk = 0;
        CHECK_THROWS_WITH(tool::decode_in_order(
                              reader, decoders, ring.slots(),
                              [&](const tool::ReadBatch& b, std::size_t k) {
                                  if (b.number == 4) throw Error("frame 3: batch four is bad");
                                  return numbered_rows(b, k);
                              },
                              [&](OutputRows&& rows) {
                                  CHECK(rows.nnz.front() == static_cast<std::uint32_t>(64 * sunk));
                                  ++sunk;
                                  return true;
                              }),
                          "frame 3: batch four is bad");
        CHECK(sunk == 4);
    }
    // the sink says stop after batch 2: the decoders stop too, and the call says it was stopped
    tool::BufferRing ring(8, tool::largest_batch_bytes(s.index, 64), tool::ordinary_memory);
    tool::BatchReader reader(s.index, ring, 64, 2);
    std::size_t sunk = 0;
    CHECK_FALSE(tool::decode_in_order(reader, 3, ring.slots(), numbered_rows, [&](OutputRows&&) { return ++sunk < 3; }));
    CHECK(sunk == 3);
}

TEST_CASE("a batch's finishing step runs on its decoder's thread after its slot is back, and its error is that batch's",
          "[sparse-cli][device]") {
    const std::size_t frames = 64 * 6;
    const IndexedScan s = indexed_scan(temp_path("cli_finish.h5"), frames);
    // One slot, two decoders, a window of two: batch 1 can be read only into the slot batch 0
    // gave back, so batch 0's finishing step sees batch 1 decoded only if it runs after that.
    tool::BufferRing ring(1, tool::largest_batch_bytes(s.index, 64), tool::ordinary_memory);
    tool::BatchReader reader(s.index, ring, 64, 1);
    std::atomic<bool> second_decoded{false};
    std::mutex m;
    std::vector<std::thread::id> decoded_on(6), finished_on(6);
    std::vector<std::size_t> finished_first(6, 99999);
    std::vector<std::uint32_t> seen;
    const bool all = tool::decode_in_order(
        reader, 2, 2,
        [&](const tool::ReadBatch& b, std::size_t k) {
            if (b.number == 1) second_decoded = true;
            std::lock_guard<std::mutex> lock(m);
            decoded_on.at(b.number) = std::this_thread::get_id();
            return numbered_rows(b, k);
        },
        [&](OutputRows&& rows) {
            seen.insert(seen.end(), rows.nnz.begin(), rows.nnz.end());
            return true;
        },
        [&](OutputRows& rows, std::size_t first, std::size_t) {
            const std::size_t number = first / 64;
            if (number == 0) {
                const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
                while (!second_decoded && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(1));
                CHECK(second_decoded);
            }
            std::lock_guard<std::mutex> lock(m);
            finished_on.at(number) = std::this_thread::get_id();
            finished_first.at(number) = first;
            rows.nnz.push_back(0);  // what the step did reaches the sink
        });
    CHECK(all);
    REQUIRE(seen.size() == frames + 6);
    for (std::size_t n = 0; n < 6; ++n) {
        CHECK(finished_on[n] == decoded_on[n]);
        CHECK(finished_first[n] == 64 * n);
        CHECK(seen[65 * n] == 64 * n);
        CHECK(seen[65 * n + 64] == 0);
    }
    // batch 3's finishing step fails: batches 0 to 2 are sunk, then its error is the call's
    tool::BufferRing ring2(4, tool::largest_batch_bytes(s.index, 64), tool::ordinary_memory);
    tool::BatchReader reader2(s.index, ring2, 64, 2);
    std::size_t sunk = 0;
    CHECK_THROWS_WITH(tool::decode_in_order(
                          reader2, 3, ring2.slots(), numbered_rows,
                          [&](OutputRows&&) {
                              ++sunk;
                              return true;
                          },
                          [&](OutputRows&, std::size_t first, std::size_t) {
                              if (first == 3 * 64) throw Error("frame 192: its peaks could not be labelled");
                          }),
                      "frame 192: its peaks could not be labelled");
    CHECK(sunk == 3);
}
