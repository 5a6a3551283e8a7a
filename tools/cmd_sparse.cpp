// bslz4 sparse: the main job. Every frame of an HDF5 scan -> the pixels above a cut (and the
// powder pattern, with a matrix) in an ImageD11 sparse file. A reader thread fetches the next
// chunks (HDF5 direct chunk reads) while the current ones are decoded, on the GPU when there
// is one.
#include <atomic>
#include <csignal>
#include <cstdio>

#include "command_line.hpp"
#include "commands.hpp"
#include "sparse_job.hpp"

namespace bslz4::tool {

namespace {

constexpr const char* kHelp =
    "usage: bslz4 sparse INPUT.h5 [--dataset PATH] -o OUTPUT.h5 --cut C [options]\n"
    "Every frame of an HDF5 scan (bitshuffle chunks, filter 32008, one chunk a frame; read raw,\n"
    "no filter plugin needed) -> the pixels above the cut, and with --matrix the powder pattern,\n"
    "in ImageD11's sparse layout (a group per input dataset: row, col, intensity, nnz, powder).\n"
    "  --dataset PATH       default /entry/data/data, else /entry/data/data_000001... in order\n"
    "  --cut C              list pixels with value > C (required)\n"
    "  --mask FILE:PATH     mask dataset, NeXus convention (nonzero = do not use)\n"
    "  --no-mask            use every pixel (default: the file's NeXus pixel_mask when present)\n"
    "  --matrix FILE:GROUP  integration matrix (data, indices, indptr, attribute shape)\n"
    "  --acc f64|f32|i64    powder accumulator (default f64; i64 = fixed-point, exact)\n"
    "  --frames A:B         frames A to B-1 of the scan (default all)\n"
    "  --cpu | --gpu        where to decode (default: the GPU when there is one)\n"
    "  --device N           which GPU (default 0)\n"
    "  --quiet              no progress\n";

#if BSLZ4_HAVE_HDF5
std::atomic<bool> interrupted{false};
extern "C" void on_signal(int) { interrupted = true; }
#endif

}  // namespace

int cmd_sparse(const Args& raw) {
#if !BSLZ4_HAVE_HDF5
    if (!raw.empty() && (raw[0] == "--help" || raw[0] == "-h")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    throw Error("sparse: this build has no HDF5 (install libhdf5-dev and rebuild)");
#else
    const Arguments args = parse_arguments(
        raw, {"--dataset", "-o", "--cut", "--mask", "--matrix", "--acc", "--frames", "--device"},
        {"--no-mask", "--cpu", "--gpu", "--quiet"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    if (args.positional.size() != 1) throw UsageError("give one input file");
    if (!args.has("-o")) throw UsageError("give the output file with -o OUTPUT.h5");
    if (!args.has("--cut")) throw UsageError("give the cut with --cut C");
    if (args.has("--cpu") && args.has("--gpu")) throw UsageError("give --cpu or --gpu, not both");
    if (args.has("--no-mask") && args.has("--mask")) throw UsageError("give --mask or --no-mask, not both");
    SparseJob job;
    job.input = args.positional[0];
    job.dataset = args.get("--dataset");
    job.output = args.get("-o");
    job.cut = args.number("--cut", 0);
    job.mask_spec = args.get("--mask");
    job.no_mask = args.has("--no-mask");
    job.matrix_spec = args.get("--matrix");
    try {
        job.acc = parse_accumulator(args.get("--acc", "f64"));
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    job.frames_spec = args.get("--frames");
    job.where = args.has("--cpu") ? SparseJob::Where::cpu : args.has("--gpu") ? SparseJob::Where::gpu : SparseJob::Where::any;
    job.device = static_cast<int>(args.count("--device", 0));
    job.quiet = args.has("--quiet");
    job.command_line = "bslz4 sparse";
    for (const std::string& a : raw) job.command_line += " " + a;

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    const SparseSummary s = run_sparse_job(job, interrupted);
    std::printf("%s: %zu frames, %zu pixels kept, %.2f GB decoded, %.2f s, %.0f frames/s on %s\n", job.output.c_str(),
                s.frames, s.pixels, s.decoded_bytes / 1e9, s.seconds, s.seconds > 0 ? s.frames / s.seconds : 0.0,
                s.decoder.c_str());
    if (s.interrupted) {
        std::fprintf(stderr, "bslz4: interrupted: %s holds the %zu frames done (readable; attribute complete = 0)\n",
                     job.output.c_str(), s.frames);
        return 130;
    }
    return 0;
#endif
}

}  // namespace bslz4::tool
