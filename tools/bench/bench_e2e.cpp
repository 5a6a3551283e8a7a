#include "bench/bench_e2e.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/error.hpp"
#include "bench/bench_measure.hpp"

#if BSLZ4_HAVE_HDF5
#include <atomic>

#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#endif
#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#endif

namespace bslz4::tool {

namespace {

// 200 calls give a 99th percentile that is more than the slowest call; fewer are made only when
// the calls are so slow that 200 would outlast the time asked for (at least 20 even then).
constexpr std::size_t kLatencyCalls = 200, kLatencyMinCalls = 20;

struct Latency {
    double median_us = kNotMeasured, p99_us = kNotMeasured;
    std::size_t calls = 0;
};

// One frame at a time through decode(chunk), the stack's distinct frames in turn, after one call
// of each: a call whose chunk is longer than any before it grows the object's buffers (H200,
// dense: 1.9 ms, the bench's p99 of 2.1 ms when only the first chunk warmed up; reserve() grows
// them ahead), which a stream pays in its first frames, not in its steady latency.
template <class Decode>
Latency time_one_frame(const EigerStack& stack, double seconds, Decode&& decode) {
    for (const auto& chunk : stack.chunks) decode(ByteView(chunk));
    std::vector<double> us;
    const auto t0 = Clock::now();
    while (us.size() < kLatencyCalls && (us.size() < kLatencyMinCalls || since(t0) < seconds)) {
        const ByteView chunk(stack.chunks[us.size() % stack.chunks.size()]);
        const auto t = Clock::now();
        decode(chunk);
        us.push_back(since(t) * 1e6);
    }
    std::sort(us.begin(), us.end());
    const std::size_t n = us.size();
    const double median = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
    const std::size_t p99 = static_cast<std::size_t>(std::ceil(0.99 * static_cast<double>(n))) - 1;
    return {median, us[p99], n};
}

void print_latency(const char* who, const Latency& l) {
    std::printf("  %-44s median %8.0f us   p99 %8.0f us   (%zu calls)\n", who, l.median_us, l.p99_us, l.calls);
}

#if BSLZ4_HAVE_HDF5
// A directory under $TMPDIR for the scan and the outputs, removed with everything in it.
class ScratchDirectory {
public:
    ScratchDirectory() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/bslz4-bench-XXXXXX";
        if (!mkdtemp(pattern.data())) throw Error(ErrorCode::io, "bench: cannot make a directory under " + pattern);
        path_ = pattern;
    }
    ~ScratchDirectory() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

// Seconds to read the whole file with large sequential reads (what `cat` does, larger).
double read_whole_file(const std::string& path) {
    constexpr std::size_t kRead = std::size_t{16} << 20;
    std::vector<char> buffer(kRead);
    const auto t0 = Clock::now();
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw Error(ErrorCode::io, path + ": cannot open for reading");
    ssize_t got;
    while ((got = ::read(fd, buffer.data(), kRead)) > 0) {
    }
    ::close(fd);
    if (got < 0) throw Error(ErrorCode::io, path + ": read failed");
    return since(t0);
}

struct JobRun {
    double wall_s;
    SparseSummary summary;
};

JobRun run_job(const std::string& scan, const std::string& output, double cut, SparseJob::Where where,
               const std::vector<int>& devices, const std::function<void(SparseJob&)>& variant = {}) {
    SparseJob job;
    job.input = scan;
    job.output = output;
    job.overwrite = true;  // the bench's own output, made again each job
    job.cut = cut;
    job.where = where;
    if (where == SparseJob::Where::gpu) job.devices = devices;
    job.quiet = true;
    job.command_line = "bslz4 bench --e2e";
    if (variant) variant(job);
    const std::atomic<bool> never{false};
#if BSLZ4_HAVE_CUDA
    // Each job as a user's process runs it: the masks and matrices the bench's kernel sections
    // (and jobs before) prepared on the GPU are not this job's to find (a matrix job prepares its
    // matrix anew: 0.1-0.2 s on the H200 host before the first object could start, which the
    // kernel sections' copy hid).
    cuda::release_shared();
#endif
    const auto t0 = Clock::now();
    SparseSummary summary = run_sparse_job(job, never);
    return {since(t0), summary};
}

void print_job(const JobRun& r, double read_frames_per_s, const char* note = "") {
    const SparseSummary& s = r.summary;
    const JobTimes& t = s.times;
    const double whole = s.frames / r.wall_s, steady = s.steady_frames_per_s();
    std::printf("  %-44s %9.0f frames/s  whole call (%.3f s: what a user waits for) = %.2f x the read rate\n",
                ("bslz4 sparse on " + s.decoder + note).c_str(), whole, r.wall_s, whole / read_frames_per_s);
    std::printf("  %-44s %9.0f frames/s  steady (the loop after its first batch: %zu frames in %.3f s) = %.2f x the "
                "read rate\n",
                "", steady, s.frames - t.first_frames, t.steady, steady / read_frames_per_s);
    char matrix[80] = "";
    if (t.matrix > 0) std::snprintf(matrix, sizeof matrix, "matrix %.3f s (while the first batches are read), ", t.matrix);
    std::printf("  %-44s open %.3f s, chunk index %.3f s, %sdecoder objects %.3f s (%.3f s of it waited for after the "
                "index), first batch %.3f s (%zu frames; ring slots made meanwhile: %.3f s over %u reader threads, %u slots), "
                "last writes and close %.3f s, decoders and ring given back %.3f s\n",
                "    fixed costs:", t.open, t.index, matrix, t.decoders, t.decoders_wait, t.first_batch, t.first_frames,
                t.slot_memory, s.reader_threads, s.ring_slots, t.finish, t.release);
    std::printf("  %-44s reading %.3f s over %u threads, decoding %.3f s over %u, handing on %.3f s, writing %.3f s (of the "
                "loop's %.3f s); chunks read %s\n",
                "    busy:", t.reading, s.reader_threads, t.decoding, s.decoder_threads, t.handing, t.writing, t.loop,
                s.frames_through_hdf5 ? (std::to_string(s.frames_through_hdf5) + " through HDF5 (its lock), the rest by position").c_str()
                                      : "by position");
    if (s.frames_per_gpu.size() > 1) {
        std::printf("  %-44s", "    frames per GPU:");
        for (std::size_t k = 0; k < s.frames_per_gpu.size(); ++k) std::printf(" %zu", s.frames_per_gpu[k]);
        std::printf("\n");
    }
}

// The middle value (the mean of the middle two of an even count).
double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n == 0 ? 0 : n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The same job with --peaks lmlabel and cplabel (ImageD11's labelling in the pass: on the GPU
// for a GPU job), against the job without: the rate a user keeps when asking for peaks. One
// run of a 0.2-0.3 s job moves by 10-30 % from the next (the page cache, the writer's flushes),
// as much as what is measured, so the three jobs run `rounds` times in turn, and the ratios are
// those of the medians; the first round's peak jobs are printed in full.
void print_peak_jobs(const JobRun& plain, const std::string& scan, const std::string& dir, double cut, SparseJob::Where where,
                     const std::vector<int>& devices, double read_frames_per_s, unsigned rounds) {
    struct Rates {
        std::vector<double> whole, steady;
        std::string runs;  // each run's whole call, first batch and steady loop, in seconds
        void add(const JobRun& r) {
            whole.push_back(r.summary.frames / r.wall_s);
            steady.push_back(r.summary.steady_frames_per_s());
            char run[64];
            std::snprintf(run, sizeof run, " %.3f (%.3f, %.3f)", r.wall_s, r.summary.times.first_batch, r.summary.times.steady);
            runs += run;
        }
    };
    const peaks::PeakAlgorithm rules[] = {peaks::PeakAlgorithm::lmlabel, peaks::PeakAlgorithm::cplabel};
    Rates without, with[2];
    without.add(plain);
    for (unsigned round = 0; round < rounds; ++round) {
        if (round > 0) {
            without.add(run_job(scan, dir + "/sparse-without-peaks.h5", cut, where, devices));
            std::filesystem::remove(dir + "/sparse-without-peaks.h5");
        }
        for (int a = 0; a < 2; ++a) {
            const std::string name = peaks::algorithm_name(rules[a]);
            const JobRun r = run_job(scan, dir + "/sparse-peaks.h5", cut, where, devices, [&](SparseJob& j) {
                j.peaks = peaks::PeakOptions{};
                j.peaks->algorithm = rules[a];
            });
            with[a].add(r);
            std::filesystem::remove(dir + "/sparse-peaks.h5");
            if (round > 0) continue;
            print_job(r, read_frames_per_s, (", --peaks " + name).c_str());
            std::printf("  %-44s %zu peaks, %zu overlaps, labelled in %.3f s; with peaks / without = %.2f whole call, %.2f steady "
                        "(this run)\n",
                        "", r.summary.peaks, r.summary.peak_pairs, r.summary.times.peaks, with[a].whole[0] / without.whole[0],
                        with[a].steady[0] / without.steady[0]);
        }
    }
    for (int a = 0; a < 2; ++a)
        std::printf("  %-44s with peaks / without = %.2f whole call (%.0f / %.0f frames/s), %.2f steady (%.0f / %.0f): "
                    "medians of %u runs each, in turn\n",
                    ("--peaks " + std::string(peaks::algorithm_name(rules[a])) + ", " + plain.summary.decoder).c_str(),
                    median_of(with[a].whole) / median_of(without.whole), median_of(with[a].whole), median_of(without.whole),
                    median_of(with[a].steady) / median_of(without.steady), median_of(with[a].steady),
                    median_of(without.steady), rounds);
    std::printf("  %-44s whole call s (first batch, steady loop), run by run: without%s; lmlabel%s; cplabel%s\n", "",
                without.runs.c_str(), with[0].runs.c_str(), with[1].runs.c_str());
}

// The scan the jobs read, written to a scratch folder, and the file's page-cached read rate
// (fig.read_frames_per_s), which every job is compared with.
std::string write_bench_scan(const EigerStack& stack, const EndToEndOptions& o, const std::string& dir, EndToEndFigures& fig) {
    const auto t0 = Clock::now();
    const std::string scan = dir + "/scan.h5";
    std::vector<std::uint8_t> nexus(stack.mask.size());
    for (std::size_t i = 0; i < nexus.size(); ++i) nexus[i] = stack.mask[i] ? 0 : 1;
    const double chunk_bytes = static_cast<double>(stack.compressed_bytes()) / stack.chunks.size();
    const std::size_t scan_frames =
        o.scan_frames ? o.scan_frames : std::max<std::size_t>(1000, static_cast<std::size_t>(std::ceil(o.scan_bytes / chunk_bytes / 100)) * 100);
    write_scan(scan, stack.ni, stack.nj, stack.type, scan_frames, nexus, stack.chunks);
    const double file_bytes = static_cast<double>(std::filesystem::file_size(scan));
    std::printf("a scan of %zu frames%s written to %s in %.1f s: %.0f MB (%.3f MB a frame and a %.1f MB pixel_mask)\n",
                scan_frames, o.scan_frames ? "" : " (as many as make 2.2 GB, at least 1,000; --scan-frames to choose)", scan.c_str(),
                since(t0), file_bytes / 1e6, chunk_bytes / 1e6, stack.mask.size() / 1e6);
    const double first = read_whole_file(scan), second = read_whole_file(scan);
    fig.read_frames_per_s = scan_frames / second;
    std::printf("  %-44s %9.0f frames/s  %6.2f GB/s  (the second of two whole reads, 16 MB each: the page-cached "
                "rate; the first %.2f GB/s)\n",
                "reading the file", fig.read_frames_per_s, file_bytes / second / 1e9, file_bytes / first / 1e9);
    return scan;
}

// The job with each powder (pyFAI-like matrices, default 2,000 rings and 1,500 rings x 72
// sectors: integrate1d and integrate2d), read from a matrix file as a user's job reads one.
void print_powder_jobs(const EigerStack& stack, const EndToEndOptions& o, const std::string& scan, const std::string& dir,
                       SparseJob::Where where, const std::vector<int>& devices, double read_frames_per_s) {
    for (const auto& [bins, azim] : o.powders) {
        const std::string matrix_file = dir + "/matrix-" + std::to_string(bins) + "x" + std::to_string(azim) + ".h5";
        const auto m0 = Clock::now();
        write_matrix(matrix_file, "/matrix", radial_matrix(stack.ni, stack.nj, bins, azim));
        const double made = since(m0);
        const std::string note = azim > 1 ? ", --matrix " + std::to_string(bins) + " x " + std::to_string(azim)
                                          : ", --matrix " + std::to_string(bins) + " bins";
        const JobRun r = run_job(scan, dir + "/sparse-matrix.h5", o.cut, where, devices,
                                 [&](SparseJob& j) { j.matrix_spec = matrix_file + ":/matrix"; });
        print_job(r, read_frames_per_s, note.c_str());
        std::printf("  %-44s (its matrix file made and written in %.2f s, not in the job's time)\n", "", made);
        std::filesystem::remove(dir + "/sparse-matrix.h5");
        std::filesystem::remove(matrix_file);
    }
}

// The job's default against the other choices (see SparseJob).
void ordinary_ring(SparseJob& j) { j.pinned_ring = false; }

// The GPU job on the first GPU: as users run it, then with the other choices, with peaks, and
// with each powder (pyFAI-like matrices, default 2,000 rings and 1,500 rings x 72 sectors:
// integrate1d and integrate2d, read from a matrix file as a user's job reads one).
JobRun gpu_jobs(const EigerStack& stack, const EndToEndOptions& o, const std::string& scan, const std::string& dir,
                EndToEndFigures& fig) {
#if BSLZ4_HAVE_CUDA
    // What pinning costs here (the job's ring is pinned).
    constexpr std::size_t kPinBytes = std::size_t{256} << 20;
    const auto p0 = Clock::now();
    { cuda::PinnedHostMemory pinned(kPinBytes, o.devices[0]); }
    std::printf("  %-44s %9.2f GB/s  (%zu MB made and freed)\n", "pinning host memory", kPinBytes / since(p0) / 1e9,
                kPinBytes >> 20);
#endif
    const JobRun g = run_job(scan, dir + "/sparse-gpu.h5", o.cut, SparseJob::Where::gpu, {o.devices[0]});
    print_job(g, fig.read_frames_per_s);
    fig.gpu_job_frames_per_s = g.summary.frames / g.wall_s;
    fig.gpu_job_steady_frames_per_s = g.summary.steady_frames_per_s();
    print_job(run_job(scan, dir + "/sparse-gpu-ordinary.h5", o.cut, SparseJob::Where::gpu, {o.devices[0]}, ordinary_ring),
              fig.read_frames_per_s, ", ring in ordinary memory");
    print_job(run_job(scan, dir + "/sparse-gpu-one.h5", o.cut, SparseJob::Where::gpu, {o.devices[0]},
                      [](SparseJob& j) { j.objects_per_gpu = 1; }),
              fig.read_frames_per_s, ", one object a GPU");
    print_peak_jobs(g, scan, dir, o.cut, SparseJob::Where::gpu, {o.devices[0]}, fig.read_frames_per_s, o.peak_rounds);
    print_powder_jobs(stack, o, scan, dir, SparseJob::Where::gpu, {o.devices[0]}, fig.read_frames_per_s);
    return g;
}

// The job on every GPU given (--device list).
JobRun all_gpus_job(const EndToEndOptions& o, const std::string& scan, const std::string& dir, EndToEndFigures& fig) {
    const JobRun all = run_job(scan, dir + "/sparse-gpus.h5", o.cut, SparseJob::Where::gpu, o.devices);
    print_job(all, fig.read_frames_per_s);
    fig.gpus_job_frames_per_s = all.summary.frames / all.wall_s;
    fig.gpus_job_steady_frames_per_s = all.summary.steady_frames_per_s();
    print_job(run_job(scan, dir + "/sparse-gpus-ordinary.h5", o.cut, SparseJob::Where::gpu, o.devices, ordinary_ring),
              fig.read_frames_per_s, ", ring in ordinary memory");
    return all;
}

// The scan, its read rate and the jobs on it: the GPU's (when there is one) and the CPU's,
// whose lists must be the same.
void bench_jobs(const EigerStack& stack, const EndToEndOptions& o, bool gpu_present, EndToEndFigures& fig) {
    const auto t0 = Clock::now();
    const ScratchDirectory dir;
    const std::string scan = write_bench_scan(stack, o, dir.path(), fig);
    const JobRun g = gpu_present ? gpu_jobs(stack, o, scan, dir.path(), fig) : JobRun{};
    const JobRun all = gpu_present && o.devices.size() > 1 ? all_gpus_job(o, scan, dir.path(), fig) : JobRun{};
    const JobRun c = run_job(scan, dir.path() + "/sparse-cpu.h5", o.cut, SparseJob::Where::cpu, {});
    print_job(c, fig.read_frames_per_s);
    print_peak_jobs(c, scan, dir.path(), o.cut, SparseJob::Where::cpu, {}, fig.read_frames_per_s, o.peak_rounds);
    // Where there is no GPU, the CPU job's powders are the ones a user there runs.
    if (!gpu_present) print_powder_jobs(stack, o, scan, dir.path(), SparseJob::Where::cpu, {}, fig.read_frames_per_s);
    fig.cpu_job_frames_per_s = c.summary.frames / c.wall_s;
    fig.cpu_job_steady_frames_per_s = c.summary.steady_frames_per_s();
    if (gpu_present) {
        for (const JobRun* r : {&g, &all})
            if (r->summary.frames && r->summary.pixels != c.summary.pixels)
                throw Error(ErrorCode::gpu_fault,  // the GPU's lists differ from the CPU's on frames both accept
                            "bench: the job on " + r->summary.decoder + " kept " + std::to_string(r->summary.pixels) +
                                " pixels, the CPU job " + std::to_string(c.summary.pixels));
        std::printf("  GPU job / file read = %.2f whole call, %.2f steady; GPU job / CPU job = %.2f whole call, %.2f "
                    "steady  (lists only, no powder)\n",
                    fig.gpu_job_frames_per_s / fig.read_frames_per_s, fig.gpu_job_steady_frames_per_s / fig.read_frames_per_s,
                    fig.gpu_job_frames_per_s / fig.cpu_job_frames_per_s,
                    fig.gpu_job_steady_frames_per_s / fig.cpu_job_steady_frames_per_s);
    } else {
        std::printf("  GPU job: skipped (%s); CPU job / file read = %.2f  (timed over the whole call: open, decode, "
                    "write the lists, close; no powder)\n",
                    o.gpu ? "no GPU" : "--cpu", fig.cpu_job_frames_per_s / fig.read_frames_per_s);
    }
    std::printf("  [scan, read and jobs: %.1f s]\n", since(t0));
}
#endif

// A GPU object kept through the jobs: the GPU's primary context stays made (as in a program that
// decodes many scans), so the jobs' times are not its start-up.
struct HeldGpu {
#if BSLZ4_HAVE_CUDA
    std::unique_ptr<cuda::Chunk2Sparse> object;
#endif
    bool present = false;
};

// One frame's latency from host memory to lists on the host, on the CPU and on the first GPU.
HeldGpu bench_latency(const EigerStack& stack, const EndToEndOptions& o, EndToEndFigures& fig) {
    const auto t0 = Clock::now();
    std::printf("one frame, host memory to lists on the host (operator() on one chunk, pageable memory; after one call of "
                "each distinct frame):\n");
    Chunk2Sparse cpu(stack.mask, stack.ni, stack.nj, stack.type);
    const Latency lc = time_one_frame(stack, o.seconds, [&](ByteView c) { return cpu(c, o.cut).npixels; });
    print_latency("cpu (Chunk2Sparse)", lc);
    fig.cpu_latency_median_us = lc.median_us;
    fig.cpu_latency_p99_us = lc.p99_us;
    HeldGpu held;
#if BSLZ4_HAVE_CUDA
    if (o.gpu && cuda::available()) {
        // The first object on a device also makes the device's context: the part of a
        // `bslz4 sparse` process's fixed cost that the jobs below (run in this process) do not pay.
        const cuda::Chunk2SparseOptions on{0, 0, cuda::Unblock::gpu, o.devices[0], Codec::lz4};
        auto made = Clock::now();
        held.object = std::make_unique<cuda::Chunk2Sparse>(stack.mask, stack.ni, stack.nj, stack.type, on);
        const double first_object = since(made);
        made = Clock::now();
        { cuda::Chunk2Sparse second(stack.mask, stack.ni, stack.nj, stack.type, on); }
        std::printf("  %-44s %.3f s (context, kernels, buffers); a second one %.3f s\n",
                    ("first GPU object on GPU " + std::to_string(o.devices[0]) + " in the process").c_str(), first_object,
                    since(made));
        cuda::Chunk2Sparse& gpu = *held.object;
        const Latency lg = time_one_frame(stack, o.seconds, [&](ByteView c) { return gpu(c, o.cut).npixels; });
        print_latency("gpu (cuda::Chunk2Sparse)", lg);
        fig.gpu_latency_median_us = lg.median_us;
        fig.gpu_latency_p99_us = lg.p99_us;
        held.present = true;
    } else {
        std::printf("  gpu: skipped: %s\n", o.gpu ? cuda::unavailable_reason().c_str() : "--cpu");
    }
#else
    std::printf("  gpu: skipped: this build has no GPU runtime\n");
#endif
    std::printf("  [latency: %.1f s]\n", since(t0));
    return held;
}

}  // namespace

EndToEndFigures bench_end_to_end(const EigerStack& stack, const EndToEndOptions& o) {
    EndToEndFigures fig{kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured,
                        kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured, kNotMeasured};
    std::printf("\nend to end: %s, cut %g\n", stack.describe().c_str(), o.cut);
    const HeldGpu gpu = bench_latency(stack, o, fig);
#if BSLZ4_HAVE_HDF5
    bench_jobs(stack, o, gpu.present, fig);
#else
    (void)gpu;
    std::printf("the scan, its read rate and the jobs: skipped: this build has no HDF5\n");
#endif
    return fig;
}

}  // namespace bslz4::tool
