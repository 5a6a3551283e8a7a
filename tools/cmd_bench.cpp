// bslz4 bench: decode + sparsify throughput on a synthetic Eiger 4M stack. Speed is measured
// here, never in a timed test.
#include <chrono>
#include <cstdio>
#include <thread>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/synthetic_eiger.hpp"
#include "command_line.hpp"
#include "commands.hpp"
#include "eiger_stack.hpp"

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 bench [--cpu] [--frames K] [--seconds S] [--cut C] [--threads N]\n"
    "Decodes and sparsifies a synthetic Eiger 4M u16 stack (2162 x 2068, fixed seed) and prints\n"
    "frames/s and decoded GB/s for one thread and for all cores.\n"
    "  --cpu         the CPU decoder only (this build has no other)\n"
    "  --frames K    distinct frames generated (default 16), cycled through\n"
    "  --seconds S   time spent on each measurement (default 2)\n"
    "  --cut C       the cut (default 10)\n"
    "  --threads N   threads for the all-cores run (default: all cores)\n";

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

void print_rate(const char* what, const Rate& r, unsigned threads) {
    std::printf("%-28s %9.1f frames/s  %7.2f GB/s decoded  %6.2f GB/s per core  (%.0f pixels/frame)\n", what,
                r.frames_per_s, r.gb_per_s, r.gb_per_s / threads, r.pixels_per_frame);
}
}  // namespace

int cmd_bench(const Args& raw) {
    const Arguments args = parse_arguments(raw, {"--frames", "--seconds", "--cut", "--threads"}, {"--cpu"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (!args.positional.empty()) throw UsageError("unexpected argument '" + args.positional[0] + "'");
    const std::size_t nframes = static_cast<std::size_t>(args.count("--frames", 16));
    if (nframes == 0) throw UsageError("--frames must be at least 1");
    const double seconds = args.number("--seconds", 2.0);
    const double cut = args.number("--cut", 10.0);
    const unsigned threads = static_cast<unsigned>(args.count("--threads", 0));

    const auto t0 = Clock::now();
    const EigerStack stack = make_eiger_stack(kEiger4mRows, kEiger4mCols, PixelType::u16, nframes);
    const double gen = std::chrono::duration<double>(Clock::now() - t0).count();
    std::printf("synthetic Eiger 4M u16: %zu x %zu, %zu distinct frames, %.2f MB each, %.3f MB compressed on average "
                "(ratio %.1f), made in %.1f s\n",
                stack.ni, stack.nj, nframes, stack.frame_bytes() / 1e6, stack.compressed_bytes() / 1e6 / nframes,
                static_cast<double>(stack.frame_bytes()) * nframes / stack.compressed_bytes(), gen);
    std::printf("cut %g, mask: module gaps\n\n", cut);

    Chunk2Sparse one(stack.mask, stack.ni, stack.nj, stack.type, {Codec::lz4, 1});
    std::size_t next = 0;
    const Rate r1 = measure(seconds, 1, stack.frame_bytes(), [&] {
        return one(stack.chunks[next++ % nframes], cut).npixels;
    });
    print_rate("cpu, 1 thread", r1, 1);

    Chunk2Sparse all(stack.mask, stack.ni, stack.nj, stack.type, {Codec::lz4, threads});
    const std::size_t batch = 4 * all.threads();
    const auto views = stack.views(batch);
    const Rate rn = measure(seconds, batch, stack.frame_bytes(), [&] {
        const SparseBatch b = all.multi(views, cut);
        std::size_t px = 0;
        for (std::size_t f = 0; f < b.nframes; ++f) px += b.npixels[f];
        return px;
    });
    char label[64];
    std::snprintf(label, sizeof label, "cpu, %u threads (multi)", all.threads());
    print_rate(label, rn, all.threads());
    std::printf("\nhost: %u hardware threads\n", std::thread::hardware_concurrency());
    return 0;
}

}  // namespace bslz4::tool
