// Several GPUs at once: objects on each device driven from threads of their own at the same time,
// an object made on one thread and called from another, and `bslz4 sparse`'s job spread over
// the GPUs, all equal to the CPU bit for bit. Part of test_gpu (whose main skips without a GPU);
// each case here returns early, saying why, with fewer than two GPUs, but the job's bad frames
// (--on-error skip), which are checked on GPU 0 and then on every GPU there is.
#include <catch2/catch.hpp>

#include <atomic>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "gpu_comparison.hpp"
#include "list_rows_buffer.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

#if BSLZ4_HAVE_HDF5
#include "corrupt_scan.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#include "tool_runner.hpp"
#endif

using namespace bslz4;

namespace {

bool two_gpus() {
    if (cuda::device_count() >= 2) return true;
    WARN("only " << cuda::device_count() << " GPU here: several devices at once are not tested");
    return false;
}

// Frames of an Eiger-like stack: their chunks, mask and shape.
using Frames = test::Stack;

Frames eiger_frames(std::size_t ni, std::size_t nj, PixelType t, std::size_t frames, unsigned seed) {
    Frames s{ni, nj, t, {}, synthetic_eiger_mask(ni, nj)};
    for (std::size_t f = 0; f < frames; ++f)
        s.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, t, static_cast<std::uint32_t>(seed + f % 11)), pixel_size(t)));
    return s;
}

// The batch's lists, owned (a batch's views are overwritten by the object's next call).
struct Lists {
    std::vector<std::uint32_t> npixels;
    std::vector<std::vector<std::uint8_t>> indices, values;
};

Lists lists_of(const SparseBatch& b) {
    Lists l;
    const std::size_t bpp = pixel_size(b.pixel_type);
    for (std::size_t f = 0; f < b.nframes; ++f) {
        const SparseFrame fr = b.frame(f);
        l.npixels.push_back(static_cast<std::uint32_t>(fr.npixels));
        const auto* i = reinterpret_cast<const std::uint8_t*>(fr.indices);
        const auto* v = static_cast<const std::uint8_t*>(fr.values);
        l.indices.emplace_back(i, i + fr.npixels * 4);
        l.values.emplace_back(v, v + fr.npixels * bpp);
    }
    return l;
}

// Runs each job on a thread of its own, all at once; rethrows the first failure (a REQUIRE
// inside a thread cannot stop Catch, so the threads compare and throw, the test checks here).
void at_once(const std::vector<std::function<void()>>& jobs) {
    std::vector<std::exception_ptr> errors(jobs.size());
    std::atomic<std::size_t> ready{0};
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < jobs.size(); ++k)
        threads.emplace_back([&, k] {
            ++ready;
            while (ready < jobs.size()) std::this_thread::yield();  // start together
            try {
                jobs[k]();
            } catch (...) {
                errors[k] = std::current_exception();
            }
        });
    for (std::thread& t : threads) t.join();
    for (std::size_t k = 0; k < errors.size(); ++k) {
        INFO("thread " << k);
        if (errors[k]) std::rethrow_exception(errors[k]);
    }
}

void expect_equal(const Lists& got, const Lists& want, const std::string& who) {
    if (got.npixels != want.npixels) throw Error(who + ": pixel counts differ from the CPU's");
    if (got.indices != want.indices) throw Error(who + ": indices differ from the CPU's");
    if (got.values != want.values) throw Error(who + ": values differ from the CPU's");
}

}  // namespace

TEST_CASE("objects on every GPU, driven from a thread each at the same time, equal the CPU bit for bit", "[gpu][devices]") {
    if (!two_gpus()) return;
    const int devices = cuda::device_count();
    // Two scans of different shapes and types, a few groups a call (group 32), so that uploads,
    // kernels and host listing of every device overlap the others'.
    const Frames u16 = eiger_frames(514, 1030, PixelType::u16, 150, 3), i32 = eiger_frames(257, 515, PixelType::i32, 90, 5);
    const Lists want16 = lists_of(bslz4::Chunk2Sparse(u16.mask, u16.ni, u16.nj, u16.type).multi(u16.views(), 2.0));
    const Lists want32 = lists_of(bslz4::Chunk2Sparse(i32.mask, i32.ni, i32.nj, i32.type).multi(i32.views(), 2.0));
    const Lists want16_one = lists_of(bslz4::Chunk2Sparse(u16.mask, u16.ni, u16.nj, u16.type).multi({u16.views()[7]}, 2.0));
    const IntegrationMatrix m =
        fixed_point_matrix(normalise_matrix(test::random_csr(40, u16.ni * u16.nj, 1.5, 23).input()), u16.type);
    // The CPU object lives on: its batch is a view into its own memory.
    bslz4::Chunk2SparseCSC cpu_powder(u16.mask, u16.ni, u16.nj, u16.type, m, Accumulator::i64);
    const IntegratedBatch want_powder = cpu_powder.multi(u16.views(), 2.0);
    const std::size_t powder_bytes = u16.chunks.size() * m.bins * 8;

    std::vector<std::function<void()>> jobs;
    for (int d = 0; d < devices; ++d) {
        const cuda::Chunk2SparseOptions on{0, 32, cuda::Unblock::gpu, d, Codec::lz4};
        const std::string who = "GPU " + std::to_string(d);
        // lists from pageable memory, one frame at a time, and from pinned memory
        jobs.push_back([&, on, who] {
            cuda::Chunk2Sparse gpu(u16.mask, u16.ni, u16.nj, u16.type, on);
            if (gpu.device() != on.device) throw Error(who + ": the object says it is on GPU " + std::to_string(gpu.device()));
            std::vector<std::uint64_t> offsets, lengths;
            std::size_t total = 0;
            for (const auto& c : u16.chunks) {
                offsets.push_back(total);
                lengths.push_back(c.size());
                total += c.size();
            }
            cuda::PinnedHostMemory pinned(total, on.device);
            for (std::size_t f = 0; f < u16.chunks.size(); ++f)
                std::memcpy(pinned.data() + offsets[f], u16.chunks[f].data(), lengths[f]);
            for (int round = 0; round < 4; ++round) {
                expect_equal(lists_of(gpu.multi(u16.views(), 2.0)), want16, who + " multi u16");
                expect_equal(lists_of(gpu.from_buffer(ByteView(pinned.data(), total), offsets, lengths, 2.0)), want16,
                             who + " from_buffer u16");
                const SparseFrame one = gpu(u16.views()[7], 2.0);
                if (one.npixels != want16_one.npixels[0] ||
                    std::memcmp(one.indices, want16_one.indices[0].data(), want16_one.indices[0].size()) != 0)
                    throw Error(who + ": operator() differs from the CPU's");
            }
        });
        // a second object on the same device, another type, on a thread of its own
        jobs.push_back([&, on, who] {
            cuda::Chunk2Sparse gpu(i32.mask, i32.ni, i32.nj, i32.type, on);
            for (int round = 0; round < 6; ++round) expect_equal(lists_of(gpu.multi(i32.views(), 2.0)), want32, who + " multi i32");
        });
        // lists and powders (exact integer sums) on the same device
        jobs.push_back([&, on, who] {
            cuda::Chunk2SparseCSC gpu(u16.mask, u16.ni, u16.nj, u16.type, m, Accumulator::i64, on);
            for (int round = 0; round < 3; ++round) {
                const IntegratedBatch r = gpu.multi(u16.views(), 2.0);
                expect_equal(lists_of(r.sparse), want16, who + " csc lists");
                if (std::memcmp(r.powder.data, want_powder.powder.data, powder_bytes) != 0)
                    throw Error(who + ": powders differ from the CPU's");
            }
        });
    }
    REQUIRE_NOTHROW(at_once(jobs));
}

TEST_CASE("an object made on GPU k in one thread works when called from another thread", "[gpu][devices]") {
    if (!two_gpus()) return;
    const Frames s = eiger_frames(300, 400, PixelType::u16, 40, 9);
    const Lists want = lists_of(bslz4::Chunk2Sparse(s.mask, s.ni, s.nj, s.type).multi(s.views(), 3.0));
    for (int d = 0; d < cuda::device_count(); ++d) {
        INFO("GPU " << d);
        const cuda::Chunk2SparseOptions on{0, 16, cuda::Unblock::gpu, d, Codec::lz4};
        // made on thread A, called here (thread B), then on thread C while this thread holds another device's context
        std::unique_ptr<cuda::Chunk2Sparse> made;
        std::thread a([&] { made = std::make_unique<cuda::Chunk2Sparse>(s.mask, s.ni, s.nj, s.type, on); });
        a.join();
        REQUIRE(made->device() == d);
        REQUIRE_NOTHROW(expect_equal(lists_of(made->multi(s.views(), 3.0)), want, "called from another thread"));
        cuda::Chunk2Sparse other(s.mask, s.ni, s.nj, s.type, {0, 16, cuda::Unblock::gpu, (d + 1) % cuda::device_count(), Codec::lz4});
        std::exception_ptr error;
        std::thread c([&] {
            try {
                expect_equal(lists_of(made->multi(s.views(), 3.0)), want, "called from a third thread");
            } catch (...) {
                error = std::current_exception();
            }
        });
        REQUIRE_NOTHROW(expect_equal(lists_of(other.multi(s.views(), 3.0)), want, "the other device's, meanwhile"));
        c.join();
        if (error) REQUIRE_NOTHROW(std::rethrow_exception(error));
        // a device array made from another thread stays on the object's device
        cuda::DeviceArray dense;
        std::thread e([&] { dense = made->decompress({s.views()[0]}); });
        e.join();
        CHECK(dense.device() == d);
        CHECK(dense.to_host() == decode_chunk(s.chunks[0], 2));
        // and the object is destroyed on yet another thread
        std::thread f([&] { made.reset(); });
        f.join();
    }
}

TEST_CASE("on one GPU: an object made in one thread is called from another, two threads with an object each run at "
          "once, and a call into an object already in a call on another thread is refused, the object unharmed",
          "[gpu][devices][threads]") {
    const Frames s = eiger_frames(300, 400, PixelType::u16, 200, 9);
    const Lists want = lists_of(bslz4::Chunk2Sparse(s.mask, s.ni, s.nj, s.type).multi(s.views(), 3.0));
    std::unique_ptr<cuda::Chunk2Sparse> made;
    std::thread a([&] { made = std::make_unique<cuda::Chunk2Sparse>(s.mask, s.ni, s.nj, s.type); });
    a.join();
    REQUIRE_NOTHROW(expect_equal(lists_of(made->multi(s.views(), 3.0)), want, "called from another thread"));
    // Two objects, two threads, at once.
    cuda::Chunk2Sparse second(s.mask, s.ni, s.nj, s.type);
    std::vector<std::function<void()>> both;
    for (cuda::Chunk2Sparse* o : {made.get(), &second})
        both.push_back([o, &s, &want] {
            for (int round = 0; round < 3; ++round) expect_equal(lists_of(o->multi(s.views(), 3.0)), want, "two objects at once");
        });
    REQUIRE_NOTHROW(at_once(both));
    // One object, two threads: while a long call runs, the other thread's calls are refused.
    // The long calls list into rows of their own: a view of the object's buffers would be the
    // other thread's to overwrite once the call has returned (the next call's, on any thread).
    test::ListRowsBuffer rows(s.views().size(), s.ni * s.nj, s.ni * s.nj, s.type);
    const std::vector<std::size_t> want_npixels(want.npixels.begin(), want.npixels.end());
    const auto listed_in_rows = [&](const SparseBatch& returned) {
        SparseBatch in = returned;  // its own arrays may be overwritten already: the rows' and want's counts
        in.npixels = want_npixels.data();
        in.values = rows.rows().values;
        in.indices = rows.rows().indices;
        return lists_of(in);
    };
    std::atomic<bool> running{true};
    std::atomic<int> refused{0};
    std::string says;
    std::exception_ptr long_call_error;
    std::thread busy([&] {
        try {
            for (int round = 0; round < 20;) {
                try {
                    expect_equal(listed_in_rows(made->multi(s.views(), 3.0, rows.rows())), want, "the long calls");
                    ++round;
                } catch (const Error& e) {  // refused itself, while the other thread's short call ran
                    if (std::string(e.what()).find("in a call on another thread") == std::string::npos) throw;
                }
            }
        } catch (...) {
            long_call_error = std::current_exception();
        }
        running = false;
    });
    while (running) {
        try {
            made->multi({s.views()[0]}, 3.0);
        } catch (const Error& e) {
            if (refused++ == 0) says = e.what();
            CHECK(e.code() == ErrorCode::bad_argument);
        }
    }
    busy.join();
    if (long_call_error) REQUIRE_NOTHROW(std::rethrow_exception(long_call_error));
    INFO(says);
    CHECK(refused > 0);
    CHECK_THAT(says, Catch::Contains("in a call on another thread") && Catch::Contains("give each thread its own object"));
    REQUIRE_NOTHROW(expect_equal(lists_of(made->multi(s.views(), 3.0)), want, "after the refusals"));
}

#if BSLZ4_HAVE_HDF5
namespace {

struct SparseFile {
    std::vector<std::uint32_t> row, col, nnz;
    std::vector<std::uint32_t> intensity;  // u16 in the file
};

SparseFile read_sparse(const std::string& path) {
    const test::H5Reader f(path);
    return {f.dataset<std::uint32_t>("/entry/data/data/row", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>("/entry/data/data/col", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32),
            f.dataset<std::uint32_t>("/entry/data/data/intensity", H5T_NATIVE_UINT32)};
}

tool::SparseSummary run_job(const std::string& scan, const std::string& out, tool::SparseJob::Where where,
                            std::vector<int> devices, OnError on_error = OnError::throw_first,
                            const std::string& matrix_spec = "") {
    tool::SparseJob job;
    job.input = scan;
    job.output = out;
    job.cut = 3;
    job.overwrite = true;
    job.where = where;
    job.devices = std::move(devices);
    job.quiet = true;
    job.on_error = on_error;
    job.matrix_spec = matrix_spec;
    job.acc = Accumulator::i64;  // exact sums: the GPU's powders equal the CPU's
    const std::atomic<bool> never{false};
    return tool::run_sparse_job(job, never);
}

}  // namespace

TEST_CASE("bslz4 sparse's job on every GPU writes what one GPU and the CPU write; a bad chunk is named as on one",
          "[gpu][devices][sparse]") {
    if (!two_gpus()) return;
    std::vector<int> all;
    for (int d = 0; d < cuda::device_count(); ++d) all.push_back(d);
    const std::size_t ni = 257, nj = 300, frames = 64 * 7 + 9;  // eight batches, the last short
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u16, f % 13), 2));
    const std::string scan = test::temp_path("devices_scan.h5");
    tool::write_scan(scan, ni, nj, PixelType::u16, frames, {}, chunks);
    const tool::SparseSummary cpu = run_job(scan, test::temp_path("devices_cpu.h5"), tool::SparseJob::Where::cpu, {});
    const tool::SparseSummary one = run_job(scan, test::temp_path("devices_one.h5"), tool::SparseJob::Where::gpu, {1});
    const tool::SparseSummary every = run_job(scan, test::temp_path("devices_all.h5"), tool::SparseJob::Where::any, all);
    CHECK(every.frames == frames);
    CHECK(every.pixels == cpu.pixels);
    CHECK(one.pixels == cpu.pixels);
    REQUIRE(every.frames_per_gpu.size() == all.size());
    for (std::size_t k = 0; k < all.size(); ++k) CHECK(every.frames_per_gpu[k] > 0);
    const SparseFile want = read_sparse(test::temp_path("devices_cpu.h5"));
    for (const char* name : {"devices_one.h5", "devices_all.h5"}) {
        INFO(name);
        const SparseFile got = read_sparse(test::temp_path(name));
        CHECK(got.nnz == want.nnz);
        CHECK(got.row == want.row);
        CHECK(got.col == want.col);
        CHECK(got.intensity == want.intensity);
    }

    // frame 200 (batch 3) cut short: the same message on every GPU as on one, frames before it written
    chunks[200].resize(chunks[200].size() - 9);
    const std::string bad = test::temp_path("devices_bad.h5");
    tool::write_scan(bad, ni, nj, PixelType::u16, frames, {}, chunks);
    std::string one_says, all_says;
    try {
        run_job(bad, test::temp_path("devices_bad_one.h5"), tool::SparseJob::Where::gpu, {0});
    } catch (const Error& e) {
        one_says = e.what();
    }
    try {
        run_job(bad, test::temp_path("devices_bad_all.h5"), tool::SparseJob::Where::gpu, all);
    } catch (const Error& e) {
        all_says = e.what();
    }
    CHECK_THAT(one_says, Catch::Contains(" frame 200: "));
    CHECK(all_says == one_says);
}

TEST_CASE("bslz4 sparse --howmany on the GPU writes the CPU's top-pixel lists, with and without thresholds",
          "[gpu][sparse][top_pixels]") {
    const std::size_t ni = 257, nj = 300, frames = 150;
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u16, f % 13), 2));
    const std::string scan = test::temp_path("top_gpu_scan.h5");
    tool::write_scan(scan, ni, nj, PixelType::u16, frames, {}, chunks);
    for (const std::optional<std::vector<double>>& thresholds :
         {std::optional<std::vector<double>>{}, std::optional<std::vector<double>>{std::vector<double>{4, 8, 50}},
          std::optional<std::vector<double>>{std::vector<double>{}}}) {
        INFO("thresholds " << (thresholds ? static_cast<long>(thresholds->size()) : -1));
        std::vector<SparseFile> written;
        for (const auto where : {tool::SparseJob::Where::cpu, tool::SparseJob::Where::gpu}) {
            tool::SparseJob job;
            job.input = scan;
            job.output = test::temp_path("top_gpu_out.h5");
            job.overwrite = true;
            job.cut = 2;
            job.where = where;
            job.quiet = true;
            job.howmany = 15;
            job.thresholds = thresholds;
            const std::atomic<bool> never{false};
            tool::run_sparse_job(job, never);
            written.push_back(read_sparse(job.output));
        }
        CHECK(written[1].nnz == written[0].nnz);
        CHECK(written[1].row == written[0].row);
        CHECK(written[1].col == written[0].col);
        CHECK(written[1].intensity == written[0].intensity);
        for (std::uint32_t n : written[0].nnz) REQUIRE(n <= 15);
    }
}

TEST_CASE("bslz4 sparse on a bitshuffle-zstd scan decodes on the GPU and writes what the CPU writes",
          "[gpu][sparse][zstd]") {
    const std::size_t ni = 257, nj = 300, frames = 150;
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u16, f % 13), 2, {Codec::zstd, 0, 3}));
    const std::string scan = test::temp_path("zstd_gpu_scan.h5");
    tool::write_scan(scan, ni, nj, PixelType::u16, frames, {}, chunks, {Codec::zstd, 3});
    const tool::SparseSummary cpu = run_job(scan, test::temp_path("zstd_gpu_cpu.h5"), tool::SparseJob::Where::cpu, {});
    const tool::SparseSummary gpu = run_job(scan, test::temp_path("zstd_gpu_gpu.h5"), tool::SparseJob::Where::any, {});
    REQUIRE(gpu.frames_per_gpu.size() == 1);  // on the GPU, not quietly on the CPU
    CHECK(gpu.frames_per_gpu[0] == frames);
    CHECK(gpu.pixels == cpu.pixels);
    const SparseFile want = read_sparse(test::temp_path("zstd_gpu_cpu.h5")), got = read_sparse(test::temp_path("zstd_gpu_gpu.h5"));
    CHECK(got.nnz == want.nnz);
    CHECK(got.row == want.row);
    CHECK(got.col == want.col);
    CHECK(got.intensity == want.intensity);
}

TEST_CASE("bslz4 sparse on a scan PyPI's hdf5plugin wrote with Bitshuffle(cname='zstd') decodes on the GPU and writes "
          "what the CPU writes",
          "[gpu][sparse][zstd][interop]") {
    // Made by tests/make_hdf5plugin_zstd_scan.py (h5py 3.16, hdf5plugin 7.1.0): 12 frames, a pixel_mask.
    const std::string scan = test::env_or("BSLZ4_LOCAL_TESTDATA", "tests/data") + "/hdf5plugin_zstd_scan.h5";
    const tool::SparseSummary cpu = run_job(scan, test::temp_path("hdf5plugin_zstd_cpu.h5"), tool::SparseJob::Where::cpu, {});
    const tool::SparseSummary gpu = run_job(scan, test::temp_path("hdf5plugin_zstd_gpu.h5"), tool::SparseJob::Where::any, {});
    REQUIRE(gpu.frames_per_gpu.size() == 1);
    CHECK(gpu.frames_per_gpu[0] == 12);
    CHECK(gpu.pixels == cpu.pixels);
    CHECK(cpu.pixels > 0);
    const SparseFile want = read_sparse(test::temp_path("hdf5plugin_zstd_cpu.h5")),
                     got = read_sparse(test::temp_path("hdf5plugin_zstd_gpu.h5"));
    CHECK(got.nnz == want.nnz);
    CHECK(got.row == want.row);
    CHECK(got.col == want.col);
    CHECK(got.intensity == want.intensity);
}

TEST_CASE("bslz4 sparse --matrix on the GPU writes the CPU's powders bit for bit, over whole batches and a short last "
          "one; two objects more only where a batch's powders are large",
          "[gpu][sparse][integrate]") {
    const std::size_t ni = 131, nj = 190, frames = 64 * 3 + 21;
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u16, f % 7), 2));
    const std::string scan = test::temp_path("matrix_job_scan.h5"), mat = test::temp_path("matrix_job_matrix.h5");
    tool::write_scan(scan, ni, nj, PixelType::u16, frames, {}, chunks);
    // 1,100 bins: a batch's rows are 563 kB, copied from the staging in pieces
    tool::write_matrix(mat, "csr", normalise_matrix(test::random_csr(1100, ni * nj, 2.0, 41).input()));
    const std::string cpu_out = test::temp_path("matrix_job_cpu.h5"), gpu_out = test::temp_path("matrix_job_gpu.h5");
    run_job(scan, cpu_out, tool::SparseJob::Where::cpu, {}, OnError::throw_first, mat + ":csr");
    const tool::SparseSummary gpu = run_job(scan, gpu_out, tool::SparseJob::Where::gpu, {0}, OnError::throw_first, mat + ":csr");
    CHECK(gpu.frames == frames);
    CHECK(gpu.decoder_threads == 2);  // 563 kB of powders a batch: the objects of a job without a matrix
    const auto want = test::H5Reader(cpu_out).dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64);
    const auto got = test::H5Reader(gpu_out).dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64);
    REQUIRE(want.size() == frames * 1100);
    CHECK(got == want);
    const SparseFile a = read_sparse(cpu_out), b = read_sparse(gpu_out);
    CHECK(b.nnz == a.nnz);
    CHECK(b.intensity == a.intensity);
    // 20,000 bins of int64: 10 MB of powders a batch, written on the decoders' threads: two more
    const std::string wide = test::temp_path("matrix_job_wide.h5");
    tool::write_matrix(wide, "csr", normalise_matrix(test::random_csr(20000, ni * nj, 1.0, 43).input()));
    run_job(scan, cpu_out, tool::SparseJob::Where::cpu, {}, OnError::throw_first, wide + ":csr");
    const tool::SparseSummary many = run_job(scan, gpu_out, tool::SparseJob::Where::gpu, {0}, OnError::throw_first, wide + ":csr");
    CHECK(many.decoder_threads == 4);
    CHECK(test::H5Reader(gpu_out).dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64) ==
          test::H5Reader(cpu_out).dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64));
    for (const std::string& f : {scan, mat, wide, cpu_out, gpu_out}) std::remove(f.c_str());
}

TEST_CASE("bslz4 sparse --on-error skip on the GPU writes what the CPU writes: the same good frames and powders, the "
          "same bad frames with the same codes and messages",
          "[gpu][devices][sparse][bad-frames]") {
    const std::string scan = test::temp_path("devices_damaged.h5"), mat = test::temp_path("devices_damaged_matrix.h5");
    test::write_corrupt_scan(scan, true);
    tool::write_matrix(mat, "csr",
                       normalise_matrix(test::random_csr(12, test::kCorruptNi * test::kCorruptNj, 2.0, 31).input()));
    const std::string cpu_out = test::temp_path("devices_damaged_cpu.h5");
    const tool::SparseSummary cpu =
        run_job(scan, cpu_out, tool::SparseJob::Where::cpu, {}, OnError::report, mat + ":csr");
    REQUIRE(cpu.bad_frames == test::bad_chunks().size());
    const test::H5Reader want(cpu_out);
    const auto want_bad = want.bad_frames("/entry/data/data/bad_frames");
    const auto want_powder = want.dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64);
    std::vector<std::vector<int>> placements = {{0}};
    if (cuda::device_count() >= 2) {
        placements.emplace_back();
        for (int d = 0; d < cuda::device_count(); ++d) placements.back().push_back(d);
    }
    for (const std::vector<int>& devices : placements) {
        INFO(devices.size() << " GPUs");
        const std::string out = test::temp_path("devices_damaged_gpu.h5");
        const tool::SparseSummary gpu = run_job(scan, out, tool::SparseJob::Where::gpu, devices, OnError::report, mat + ":csr");
        CHECK(gpu.frames == cpu.frames);
        CHECK(gpu.pixels == cpu.pixels);
        CHECK(gpu.bad_frames == cpu.bad_frames);
        const SparseFile got = read_sparse(out), expected = read_sparse(cpu_out);
        CHECK(got.nnz == expected.nnz);
        CHECK(got.row == expected.row);
        CHECK(got.col == expected.col);
        CHECK(got.intensity == expected.intensity);
        const test::H5Reader f(out);
        CHECK(f.dataset<std::int64_t>("/entry/data/data/powder", H5T_NATIVE_INT64) == want_powder);
        const auto bad = f.bad_frames("/entry/data/data/bad_frames");
        REQUIRE(bad.size() == want_bad.size());
        for (std::size_t k = 0; k < bad.size(); ++k) {
            INFO("bad frame " << want_bad[k].frame);
            CHECK(bad[k].frame == want_bad[k].frame);
            CHECK(bad[k].code_name == want_bad[k].code_name);
            CHECK(bad[k].message == want_bad[k].message);
        }
    }
}
#endif
