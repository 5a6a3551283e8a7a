// bslz4 bench: decode + sparsify throughput on a synthetic Eiger 4M stack. Speed is measured
// here, never in a timed test.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
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
#include "bench/bench_gpu.hpp"
#include "bench/bench_measure.hpp"
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
    "                   [--device N] [--matrix-bins LIST] [--e2e [--scan-frames F] [--peak-rounds R]]\n"
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
    "                  with --e2e, the job runs with --matrix of each too (the GPU job; the CPU job\n"
    "                  where there is no GPU)\n"
    "  --threads N     threads for the all-cores run (default: all cores)\n"
    "  --e2e           also end to end: one frame's latency from host memory to lists on the host\n"
    "                  (median, 99th percentile), then a scan written to $TMPDIR, the file's read\n"
    "                  rate, and the job of `bslz4 sparse` on it on the GPU and the CPU: its whole\n"
    "                  call (what a user waits for) and its steady rate (the read-decode-write loop\n"
    "                  after the first batch), each against the read rate, and its fixed costs\n"
    "  --scan-frames F frames in that scan (default with a GPU: as many as make 2.2 GB, the size of a\n"
    "                  2,000-frame dense scan, at least 1,000; without: 100; removed after)\n"
    "  --peak-rounds R runs of each job in the comparison of the job with --peaks and without: the\n"
    "                  three jobs in turn R times, the ratios those of the medians (default 5)\n";

void print_rate(const char* what, const Rate& r, unsigned threads) {
    std::printf("%-28s %9.1f frames/s  %7.2f GB/s decoded  %6.2f GB/s per core  (%.0f pixels/frame)\n", what,
                r.frames_per_s, r.gb_per_s, r.gb_per_s / threads, r.pixels_per_frame);
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
        raw, {"--frames", "--seconds", "--cut", "--threads", "--device", "--profile", "--type", "--scan-frames", "--matrix-bins",
              "--peak-rounds"},
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
    if (args.has("--peak-rounds") && !set.e2e) throw UsageError("--peak-rounds is for --e2e");
    if (args.has("--peak-rounds") && args.count("--peak-rounds", 0) == 0) throw UsageError("--peak-rounds must be at least 1");
    set.e2e_options.peak_rounds = static_cast<unsigned>(std::min<std::size_t>(args.count("--peak-rounds", 5), 1000));
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
