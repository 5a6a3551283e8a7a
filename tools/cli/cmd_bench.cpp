// bslz4 bench: decode + sparsify throughput on a synthetic Eiger 4M stack. Speed is measured
// here, never in a timed test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "bslz4/cpu_count.hpp"
#include "bslz4/cpu_path.hpp"
#include "bslz4/chunk2sparse.hpp"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/encode.hpp"
#include "bench/bench_devices.hpp"
#include "bench/bench_e2e.hpp"
#include "synthetic/synthetic_eiger.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/device_list.hpp"
#include "bench/eiger_stack.hpp"

#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "bench/pinned_chunks.hpp"
#endif

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 bench [--cpu] [--profile P] [--type T] [--frames K] [--seconds S] [--cut C] [--threads N]\n"
    "                   [--device N] [--matrix-bins LIST] [--e2e [--scan-frames F]]\n"
    "Decodes and sparsifies a synthetic Eiger 4M stack (2162 x 2068, fixed seed) and prints\n"
    "frames/s and decoded GB/s: on the GPU (chunks already on the device; multi from pinned and\n"
    "from pageable host memory, against the copy bandwidths measured in the same run) and on the\n"
    "CPU (one thread, all cores); then the same frames encoded with zstd, on all cores and on the\n"
    "GPU (which decompresses zstd on the host). Each section says how long it took.\n"
    "  --cpu           the CPU decoder only\n"
    "  --profile P     dense (default: background 0.1-1 counts, ratio about 8), sparse (0.01-0.04,\n"
    "                  ratio about 27), very-sparse (0.0003-0.0015, ratio about 90), or all of them\n"
    "  --type T        u16 (default) or u32\n"
    "  --device D      the GPU (default 0); all or a list such as 0,1: every figure on the first,\n"
    "                  then (a) and (b) on all of them at once, a host thread each: each GPU's\n"
    "                  rate, the sum and the ratio to one GPU (and with --e2e the job on all)\n"
    "  --frames K      distinct frames generated (default 16), cycled through\n"
    "  --seconds S     time spent on each measurement (default 2)\n"
    "  --cut C         the cut (default 10)\n"
    "  --matrix-bins L the powders measured with the lists (sparse + powder, f64): a comma list of\n"
    "                  B (B radial bins, as integrate1d) or BxA (B radial x A azimuthal, as\n"
    "                  integrate2d), each pixel split between two radial bins; default 2000,1500x72;\n"
    "                  with --e2e, the GPU job runs with --matrix of each too\n"
    "  --threads N     threads for the all-cores run (default: all cores)\n"
    "  --e2e           also end to end: one frame's latency from host memory to lists on the host\n"
    "                  (median, 99th percentile), then a scan written to $TMPDIR, the file's read\n"
    "                  rate, and the job of `bslz4 sparse` on it on the GPU and the CPU: its whole\n"
    "                  call (what a user waits for) and its steady rate (the read-decode-write loop\n"
    "                  after the first batch), each against the read rate, and its fixed costs\n"
    "  --scan-frames F frames in that scan (default with a GPU: as many as make 2.2 GB, the size of a\n"
    "                  2,000-frame dense scan, at least 1,000; without: 100; removed after)\n";

using Clock = std::chrono::steady_clock;

struct Rate {
    double frames_per_s, gb_per_s, pixels_per_frame;
};

// Repeats step() (which decodes `per_step` frames) until `seconds` have passed.
template <class Step>
Rate measure(double seconds, std::size_t per_step, std::size_t frame_bytes, Step&& step) {
    step();  // warm-up: buffers, pages, thread start
    std::size_t frames = 0, pixels = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
        pixels += step();
        frames += per_step;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < seconds);
    return {frames / elapsed, frames * static_cast<double>(frame_bytes) / elapsed / 1e9,
            static_cast<double>(pixels) / frames};
}

std::size_t total_pixels(const SparseBatch& b) {
    std::size_t px = 0;
    for (std::size_t f = 0; f < b.nframes; ++f) px += b.npixels[f];
    return px;
}

void print_rate(const char* what, const Rate& r, unsigned threads) {
    std::printf("%-28s %9.1f frames/s  %7.2f GB/s decoded  %6.2f GB/s per core  (%.0f pixels/frame)\n", what,
                r.frames_per_s, r.gb_per_s, r.gb_per_s / threads, r.pixels_per_frame);
}
// A powder the bench measures: its matrix, and the CPU's rate with it on all cores.
struct PowderCase {
    std::size_t bins, azim;
    IntegrationMatrix matrix;
    Rate cpu;

    std::string name() const {
        return azim > 1 ? std::to_string(bins) + " x " + std::to_string(azim) + " bins" : std::to_string(bins) + " bins";
    }
};
constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();
// The top-pixel figures' howmany: under a dense Eiger 4M frame's pixels above cut 10 (about
// 7,700), so every frame is cut down.
constexpr std::size_t kBenchHowmany = 1000;

double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// frames/s of (a) chunks on the device, (b) from pinned, (c) from pageable host memory.
struct GpuFigures {
    double a = kNotMeasured, b = kNotMeasured, c = kNotMeasured;
};

GpuFigures bench_gpu(const EigerStack& stack, const std::vector<PowderCase>& powders, double cut, double seconds, int device,
                     const Rate& cpu_all) {
#if BSLZ4_HAVE_CUDA
    if (!cuda::available()) {
        std::printf("\ngpu: not measured: %s\n", cuda::unavailable_reason().c_str());
        return {};
    }
    const cuda::DeviceInfo info = cuda::device_info(device);
    std::printf("\ngpu %d: %s, sm_%d, %d SMs, %.0f MB L2, %.1f GB, driver %d.%d; kernels for %s\n", device,
                info.name.c_str(), info.sm, info.multiprocessors, info.l2_bytes / 1e6, info.memory_bytes / 1e9,
                info.driver_version / 1000, info.driver_version % 1000 / 10, cuda::built_architectures());
    constexpr std::size_t kCopyBytes = std::size_t{1} << 30;
    const double d2d = cuda::copy_bandwidth(cuda::Copy::device_to_device, kCopyBytes, device);
    const double h2d_pageable = cuda::copy_bandwidth(cuda::Copy::pageable_to_device, kCopyBytes, device);
    // Where the driver will not pin, there is no pinned ceiling: the ratios to it say so, rather
    // than measure against the pageable rate under the pinned name.
    double h2d_pinned = 0;
    std::string pinned_text;
    try {
        h2d_pinned = cuda::copy_bandwidth(cuda::Copy::pinned_to_device, kCopyBytes, device);
        char text[64];
        std::snprintf(text, sizeof text, "%.1f GB/s pinned", h2d_pinned);
        pinned_text = text;
    } catch (const Error& e) {
        if (e.code() != ErrorCode::out_of_memory) throw;
        pinned_text = "pinned: none (the driver refused to pin)";
    }
    std::printf("ceilings: device-to-device copy %.1f GB/s (read + write), host-to-device %s, %.1f GB/s pageable\n", d2d,
                pinned_text.c_str(), h2d_pageable);
    // The way results come back (powders, lists): what a call's copies to the caller compare with.
    const double d2h_pageable = cuda::copy_bandwidth(cuda::Copy::device_to_pageable, kCopyBytes, device);
    std::string d2h_pinned_text = "pinned: none";
    try {
        char text[64];
        std::snprintf(text, sizeof text, "%.1f GB/s pinned",
                      cuda::copy_bandwidth(cuda::Copy::device_to_pinned, kCopyBytes, device));
        d2h_pinned_text = text;
    } catch (const Error& e) {
        if (e.code() != ErrorCode::out_of_memory) throw;
    }
    std::printf("          device-to-host %s, %.1f GB/s pageable\n", d2h_pinned_text.c_str(), d2h_pageable);
    const auto of_pinned = [h2d_pinned](double gb_per_s) {
        char text[64];
        if (h2d_pinned > 0) std::snprintf(text, sizeof text, "%.2f x pinned host-to-device", gb_per_s / h2d_pinned);
        else std::snprintf(text, sizeof text, "(no pinned host-to-device rate)");
        return std::string(text);
    };

    cuda::Chunk2Sparse gpu(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
    std::printf("batch %u, group %u, cap %zu pixels a frame\n\n", gpu.batch(), gpu.group(), gpu.cap());
    const double frame_gb = stack.frame_bytes() / 1e9;
    const double chunk_gb = static_cast<double>(stack.compressed_bytes()) / stack.chunks.size() / 1e9;

    // (a) kernels only
    const auto group = stack.views(gpu.group());
    unsigned repeats = 2;
    double t = gpu.time_on_device(group, cut, repeats);
    repeats = static_cast<unsigned>(std::max(2.0, seconds / (t / repeats)));
    t = gpu.time_on_device(group, cut, repeats);
    const double fa = group.size() * repeats / t;
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  = %.2f x the device copy bandwidth\n",
                "gpu (a) chunks on the device", fa, fa * frame_gb, fa * frame_gb / d2d);

    // (b) from pinned memory, (c) from pageable memory: whole calls of multi / from_buffer.
    const std::size_t nframes = 4 * gpu.group();  // several groups a call: uploads overlap kernels
    const auto views = stack.views(nframes);
    const PinnedChunks pinned = pin_chunks(views, device);
    const Rate rb = measure(seconds, nframes, stack.frame_bytes(), [&] {
        return total_pixels(gpu.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut));
    });
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  %5.1f GB/s compressed = %s\n",
                pinned.memory.pinned() ? "gpu (b) from pinned host memory" : "gpu (b) from_buffer (pinning refused)",
                rb.frames_per_s, rb.gb_per_s, rb.frames_per_s * chunk_gb, of_pinned(rb.frames_per_s * chunk_gb).c_str());
    const Rate rc = measure(seconds, nframes, stack.frame_bytes(), [&] {
        return total_pixels(gpu.multi(views, cut));
    });
    // (c) is measured against the pinned upload, as (b) is: the staging copy is there to hide the
    // pageable one, which is what a plain cuMemcpy of the caller's memory would give.
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  %5.1f GB/s compressed = %s, %.1f x pageable\n",
                "gpu (c) from pageable host memory", rc.frames_per_s, rc.gb_per_s, rc.frames_per_s * chunk_gb,
                of_pinned(rc.frames_per_s * chunk_gb).c_str(), rc.frames_per_s * chunk_gb / h2d_pageable);
    std::printf("\ngpu vs cpu (all cores): (a) %.1f x, (b) %.1f x, (c) %.1f x\n", fa / cpu_all.frames_per_s,
                rb.frames_per_s / cpu_all.frames_per_s, rc.frames_per_s / cpu_all.frames_per_s);

    // Sparse lists and powders together (Chunk2SparseCSC, f64), for each matrix.
    for (const PowderCase& p : powders) {
        cuda::Chunk2SparseCSC csc(stack.mask, stack.ni, stack.nj, stack.type, p.matrix, Accumulator::f64,
                                  {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
        double ti = csc.time_on_device(group, cut, 2);
        const unsigned ri = static_cast<unsigned>(std::max(2.0, seconds / (ti / 2)));
        ti = csc.time_on_device(group, cut, ri);
        const double fi = group.size() * ri / ti;
        const Rate rbi = measure(seconds, nframes, stack.frame_bytes(), [&] {
            return total_pixels(csc.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut).sparse);
        });
        std::printf("\nsparse + powder (%s, %zu weights, f64):\n", p.name().c_str(), p.matrix.nnz());
        std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (a) chunks on the device", fi, fi / fa);
        std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (b) from pinned host memory", rbi.frames_per_s,
                    rbi.frames_per_s / rb.frames_per_s);
        std::printf("%-34s %9.0f frames/s   gpu (a) = %.1f x\n", "cpu (all cores)", p.cpu.frames_per_s, fi / p.cpu.frames_per_s);
    }

    // Top pixels: at most kBenchHowmany pixels a frame (default thresholds), chosen on the device.
    cuda::Chunk2Sparse top(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::lz4});
    top.set_top_pixels(kBenchHowmany);
    double tt = top.time_on_device(group, cut, 2);
    const unsigned rt = static_cast<unsigned>(std::max(2.0, seconds / (tt / 2)));
    tt = top.time_on_device(group, cut, rt);
    const double ft = group.size() * rt / tt;
    const Rate rbt = measure(seconds, nframes, stack.frame_bytes(), [&] {
        return total_pixels(top.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut));
    });
    Chunk2Sparse cpu_top(stack.mask, stack.ni, stack.nj, stack.type);
    cpu_top.set_top_pixels(kBenchHowmany);
    const auto cpu_views = stack.views(4 * cpu_top.threads());
    const Rate rct = measure(seconds, cpu_views.size(), stack.frame_bytes(), [&] {
        return total_pixels(cpu_top.multi(cpu_views, cut));
    });
    std::printf("\ntop pixels (howmany %zu, thresholds max(cut, 1) * 2**i):\n", kBenchHowmany);
    std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (a) chunks on the device", ft, ft / fa);
    std::printf("%-34s %9.0f frames/s  = %.2f x without\n", "gpu (b) from pinned host memory", rbt.frames_per_s,
                rbt.frames_per_s / rb.frames_per_s);
    std::printf("%-34s %9.0f frames/s   gpu (a) = %.1f x\n", "cpu (all cores)", rct.frames_per_s, ft / rct.frames_per_s);
    return {fa, rb.frames_per_s, rc.frames_per_s};
#else
    (void)stack, (void)powders, (void)cut, (void)seconds, (void)device, (void)cpu_all;
    std::printf("\ngpu: not measured: this build has no GPU runtime (no nvcc at build time)\n");
    return {};
#endif
}

// The stack's frames encoded with bitshuffle + zstd (level 3), on all cores.
EigerStack zstd_stack(const EigerStack& lz4) {
    EigerStack out = lz4;
    const std::size_t bpp = pixel_size(lz4.type), frames = lz4.chunks.size();
    const unsigned workers = std::max(1u, std::min<unsigned>(usable_cpu_count(), static_cast<unsigned>(frames)));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t f = w; f < frames; f += workers)
                out.chunks[f] = encode_chunk(decode_chunk(lz4.chunks[f], bpp, Codec::lz4), bpp, {Codec::zstd, 0, 3});
        });
    for (std::thread& t : pool) t.join();
    return out;
}

// zstd: the CPU on all cores against the GPU from pinned (b) and pageable (c) memory, where the
// zstd blocks are decompressed on the host and the rest runs on the GPU.
void bench_zstd(const EigerStack& lz4, double cut, double seconds, unsigned threads, bool gpu_wanted, int device) {
    const auto t0 = Clock::now();
    const EigerStack stack = zstd_stack(lz4);
    std::printf("\nzstd: the same frames with bitshuffle + zstd (level 3), %.3f MB compressed on average (ratio %.1f), "
                "made in %.1f s\n",
                stack.compressed_bytes() / 1e6 / stack.chunks.size(), stack.compression_ratio(), since(t0));
    Chunk2Sparse all(stack.mask, stack.ni, stack.nj, stack.type, {Codec::zstd, threads});
    const auto cpu_views = stack.views(4 * all.threads());
    const Rate rn = measure(seconds, cpu_views.size(), stack.frame_bytes(), [&] {
        return total_pixels(all.multi(cpu_views, cut));
    });
    char label[64];
    std::snprintf(label, sizeof label, "cpu, %u threads (multi), zstd", all.threads());
    print_rate(label, rn, all.threads());
#if BSLZ4_HAVE_CUDA
    if (!gpu_wanted || !cuda::available()) return;
    cuda::Chunk2Sparse gpu(stack.mask, stack.ni, stack.nj, stack.type, {0, 0, cuda::Unblock::gpu, device, Codec::zstd});
    const auto views = stack.views(4 * gpu.group());
    const PinnedChunks pinned = pin_chunks(views, device);
    const Rate rb = measure(seconds, views.size(), stack.frame_bytes(), [&] {
        return total_pixels(gpu.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, cut));
    });
    const Rate rc = measure(seconds, views.size(), stack.frame_bytes(), [&] { return total_pixels(gpu.multi(views, cut)); });
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  = %.1f x the cpu's zstd (all cores)\n",
                pinned.memory.pinned() ? "gpu (b) from pinned memory, zstd" : "gpu (b) from_buffer, zstd", rb.frames_per_s,
                rb.gb_per_s, rb.frames_per_s / rn.frames_per_s);
    std::printf("%-34s %9.0f frames/s  %7.1f GB/s decoded  = %.1f x the cpu's zstd (all cores)\n",
                "gpu (c) from pageable memory, zstd", rc.frames_per_s, rc.gb_per_s, rc.frames_per_s / rn.frames_per_s);
#else
    (void)gpu_wanted, (void)device;
#endif
}

struct BenchSettings {
    PixelType type;
    std::size_t distinct;
    double seconds, cut;
    unsigned threads;
    std::vector<int> devices;  // every figure on the first; with several, (a) and (b) on all at once
    bool gpu, e2e;
    std::vector<std::pair<std::size_t, std::size_t>> powders;  // (radial bins, azimuthal bins)
    EndToEndOptions e2e_options;
};

struct ProfileFigures {
    SyntheticProfile profile;
    double ratio;
    Rate cpu_all;
    GpuFigures gpu;
    SeveralGpuFigures several;
    EndToEndFigures e2e;
};

ProfileFigures bench_profile(SyntheticProfile profile, const BenchSettings& set) {
    auto t0 = Clock::now();
    const EigerStack stack = make_eiger_stack(kEiger4mRows, kEiger4mCols, set.type, set.distinct, profile);
    std::printf("=== %s: %zu x %zu, %zu distinct frames, %.2f MB each, %.3f MB compressed on average (ratio %.1f), "
                "made in %.1f s\n",
                stack.describe().c_str(), stack.ni, stack.nj, set.distinct, stack.frame_bytes() / 1e6,
                stack.compressed_bytes() / 1e6 / set.distinct, stack.compression_ratio(), since(t0));
    std::printf("cut %g, mask: module gaps; CPU path %s\n\n", set.cut, describe_cpu_paths().c_str());

    t0 = Clock::now();
    Chunk2Sparse one(stack.mask, stack.ni, stack.nj, stack.type, {Codec::lz4, 1});
    std::size_t next = 0;
    const Rate r1 = measure(set.seconds, 1, stack.frame_bytes(), [&] {
        return one(stack.chunks[next++ % set.distinct], set.cut).npixels;
    });
    print_rate("cpu, 1 thread", r1, 1);

    Chunk2Sparse all(stack.mask, stack.ni, stack.nj, stack.type, {Codec::lz4, set.threads});
    const std::size_t batch = 4 * all.threads();
    const auto views = stack.views(batch);
    const Rate rn = measure(set.seconds, batch, stack.frame_bytes(), [&] {
        return total_pixels(all.multi(views, set.cut));
    });
    char label[64];
    std::snprintf(label, sizeof label, "cpu, %u threads (multi)", all.threads());
    print_rate(label, rn, all.threads());
    std::vector<PowderCase> powders;
    for (const auto& [bins, azim] : set.powders) {
        PowderCase p{bins, azim, radial_matrix(stack.ni, stack.nj, bins, azim), {}};
        Chunk2SparseCSC csc(stack.mask, stack.ni, stack.nj, stack.type, p.matrix, Accumulator::f64, {Codec::lz4, set.threads});
        p.cpu = measure(set.seconds, batch, stack.frame_bytes(), [&] { return total_pixels(csc.multi(views, set.cut).sparse); });
        std::snprintf(label, sizeof label, "cpu, %u threads, + powder", all.threads());
        print_rate(label, p.cpu, all.threads());
        std::printf("%-28s (%s, %zu weights)\n", "", p.name().c_str(), p.matrix.nnz());
        powders.push_back(std::move(p));
    }
    std::printf("[cpu: %.1f s]\n", since(t0));

    ProfileFigures fig{profile, stack.compression_ratio(), rn, {}, {}, {}};
    if (set.gpu) {
        t0 = Clock::now();
        fig.gpu = bench_gpu(stack, powders, set.cut, set.seconds, set.devices[0], rn);
        if (set.devices.size() > 1 && !std::isnan(fig.gpu.a))
            fig.several = bench_several_gpus(stack, set.cut, set.seconds, set.devices, fig.gpu.a, fig.gpu.b);
        std::printf("[gpu: %.1f s]\n", since(t0));
    }
    t0 = Clock::now();
    bench_zstd(stack, set.cut, set.seconds, set.threads, set.gpu, set.devices[0]);
    std::printf("[zstd: %.1f s]\n", since(t0));
    if (set.e2e) {
        t0 = Clock::now();
        fig.e2e = bench_end_to_end(stack, set.e2e_options);
        std::printf("[end to end: %.1f s]\n", since(t0));
    }
    std::printf("\n");
    return fig;
}

// One line a profile, for the table; "-" where a figure was not measured. The jobs'
// "whole" is the whole call, "steady" the loop after its first batch (see bench_e2e.hpp).
void print_table(const std::vector<ProfileFigures>& figs) {
    const auto cell = [](double v, const char* format) {
        char text[32];
        if (std::isnan(v) || v == 0) return std::string("-");
        std::snprintf(text, sizeof text, format, v);
        return std::string(text);
    };
    const bool several = std::any_of(figs.begin(), figs.end(), [](const ProfileFigures& f) { return !f.several.a.empty(); });
    std::printf("%-12s %6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %8s %17s %17s", "profile", "ratio", "cpu all",
                "gpu (a)", "gpu (b)", "gpu (c)", "file read", "gpu job", "gpu job", "cpu job", "cpu job", "gpu/read",
                "gpu/read", "gpu/cpu", "gpu 1 frame us", "cpu 1 frame us");
    if (several) std::printf(" %10s %8s %10s %9s %9s", "gpus (a)", "/ one", "gpus (b)", "gpus job", "gpus job");
    std::printf("\n%-12s %6s %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %8s %17s %17s", "", "", "frames/s", "frames/s",
                "frames/s", "frames/s", "frames/s", "whole", "steady", "whole", "steady", "whole", "steady", "whole",
                "median / p99", "median / p99");
    if (several) std::printf(" %10s %8s %10s %9s %9s", "sum", "", "sum", "whole", "steady");
    std::printf("\n");
    for (const ProfileFigures& f : figs) {
        const EndToEndFigures& e = f.e2e;
        std::printf("%-12s %6.1f %9s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %8s %17s %17s", synthetic_profile_name(f.profile),
                    f.ratio, cell(f.cpu_all.frames_per_s, "%.0f").c_str(), cell(f.gpu.a, "%.0f").c_str(),
                    cell(f.gpu.b, "%.0f").c_str(), cell(f.gpu.c, "%.0f").c_str(), cell(e.read_frames_per_s, "%.0f").c_str(),
                    cell(e.gpu_job_frames_per_s, "%.0f").c_str(), cell(e.gpu_job_steady_frames_per_s, "%.0f").c_str(),
                    cell(e.cpu_job_frames_per_s, "%.0f").c_str(), cell(e.cpu_job_steady_frames_per_s, "%.0f").c_str(),
                    cell(e.gpu_job_frames_per_s / e.read_frames_per_s, "%.2f").c_str(),
                    cell(e.gpu_job_steady_frames_per_s / e.read_frames_per_s, "%.2f").c_str(),
                    cell(e.gpu_job_frames_per_s / e.cpu_job_frames_per_s, "%.2f").c_str(),
                    (cell(e.gpu_latency_median_us, "%.0f") + " / " + cell(e.gpu_latency_p99_us, "%.0f")).c_str(),
                    (cell(e.cpu_latency_median_us, "%.0f") + " / " + cell(e.cpu_latency_p99_us, "%.0f")).c_str());
        if (several)
            std::printf(" %10s %8s %10s %9s %9s", cell(f.several.a_sum, "%.0f").c_str(),
                        cell(f.several.a_sum / f.gpu.a, "%.2f").c_str(), cell(f.several.b_sum, "%.0f").c_str(),
                        cell(e.gpus_job_frames_per_s, "%.0f").c_str(), cell(e.gpus_job_steady_frames_per_s, "%.0f").c_str());
        std::printf("\n");
    }
}

// "2000,1500x72" -> (2000, 1), (1500, 72). A powder needs two radial bins (a pixel is split
// between two), at most 2^31 bins in all (the matrix's u32 indices), and at most 16 shapes.
std::vector<std::pair<std::size_t, std::size_t>> parse_powder_shapes(const std::string& text) {
    std::vector<std::pair<std::size_t, std::size_t>> out;
    const auto number = [&](const std::string& part, const std::string& item) {
        if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos)
            throw UsageError("--matrix-bins: '" + item + "' is not B or BxA (whole numbers of bins)");
        return static_cast<std::size_t>(std::stoul(part));
    };
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        const std::size_t x = item.find('x');
        const std::size_t bins = number(item.substr(0, x), item);
        const std::size_t azim = x == std::string::npos ? 1 : number(item.substr(x + 1), item);
        if (bins < 2 || azim < 1) throw UsageError("--matrix-bins: '" + item + "' needs at least 2 radial and 1 azimuthal bins");
        if (bins * azim > (std::size_t{1} << 31)) throw UsageError("--matrix-bins: '" + item + "' has more than 2^31 bins");
        out.emplace_back(bins, azim);
        at = comma + 1;
    }
    if (out.size() > 16) throw UsageError("--matrix-bins: at most 16 shapes");
    return out;
}

}  // namespace

int cmd_bench(const Args& raw) {
    const Arguments args = parse_arguments(
        raw, {"--frames", "--seconds", "--cut", "--threads", "--device", "--profile", "--type", "--scan-frames", "--matrix-bins"},
        {"--cpu", "--e2e"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (!args.positional.empty()) throw UsageError("unexpected argument '" + args.positional[0] + "'");
    const std::vector<SyntheticProfile> profiles = parse_profiles(args.get("--profile", "dense"), true);
    BenchSettings set;
    set.type = parse_synthetic_type(args.get("--type", "u16"));
    set.distinct = static_cast<std::size_t>(args.count("--frames", 16));
    if (set.distinct == 0) throw UsageError("--frames must be at least 1");
    set.seconds = args.number("--seconds", 2.0);
    set.cut = args.number("--cut", 10.0);
    set.threads = static_cast<unsigned>(args.count("--threads", 0));
    set.gpu = !args.flags.count("--cpu");
    if (!set.gpu && args.has("--device")) throw UsageError("give --cpu or --device, not both");
    const DeviceList devices = parse_device_list(args.get("--device", "0"));
    set.devices = args.has("--device") ? resolve_devices(devices, args.get("--device")) : std::vector<int>{0};
    set.e2e = args.flags.count("--e2e") > 0;
    set.powders = parse_powder_shapes(args.get("--matrix-bins", "2000,1500x72"));
    set.e2e_options.powders = set.powders;
    if (args.has("--scan-frames") && !set.e2e) throw UsageError("--scan-frames is for --e2e");
    bool gpu_present = false;
#if BSLZ4_HAVE_CUDA
    gpu_present = set.gpu && cuda::available();
#endif
    if (args.has("--scan-frames") && args.count("--scan-frames", 0) == 0) throw UsageError("--scan-frames must be at least 1");
    set.e2e_options.scan_frames = static_cast<std::size_t>(args.count("--scan-frames", gpu_present ? 0 : 100));
    set.e2e_options.cut = set.cut;
    set.e2e_options.seconds = set.seconds;
    set.e2e_options.gpu = set.gpu;
    set.e2e_options.devices = set.devices;

    const auto t0 = Clock::now();
    std::printf("host: %u usable CPUs (%u hardware threads)\n\n", usable_cpu_count(), std::thread::hardware_concurrency());
    std::vector<ProfileFigures> figs;
    for (SyntheticProfile p : profiles) figs.push_back(bench_profile(p, set));
    if (figs.size() > 1 || set.e2e || set.devices.size() > 1) print_table(figs);
    std::printf("[bench: %.1f s in all]\n", since(t0));
    return 0;
}

}  // namespace bslz4::tool
