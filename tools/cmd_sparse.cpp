// bslz4 sparse: the main job. Every frame of an HDF5 scan -> the pixels above a cut (and the
// powder pattern, with a matrix) in an ImageD11 sparse file. A reader thread fetches the next
// chunks (HDF5 direct chunk reads) while the current ones are decoded, on the GPU when there
// is one.
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <string>

#include "command_line.hpp"
#include "commands.hpp"
#include "sparse_job.hpp"
#if BSLZ4_HAVE_HDF5
#include "hdf5/matrix_file.hpp"
#endif

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
    "  --acc f64|f32|i64    powder accumulator (default f64). i64 sums integers: the weights\n"
    "                       rounded once to fixed point (at most 24 bits) times integer\n"
    "                       pixels, so each sum is exact and the same on CPU and GPU; the\n"
    "                       scale keeps every sum within int64, and a matrix and pixel type\n"
    "                       that would leave too few bits (or float or 64-bit pixels) are\n"
    "                       refused: use f64\n"
    "  --frames A:B         frames A to B-1 of the scan (default all)\n"
    "  --cpu | --gpu        where to decode (default: the GPU when there is one)\n"
    "  --device N           which GPU (default 0)\n"
    "  --quiet              no progress\n";

#if BSLZ4_HAVE_HDF5
std::atomic<bool> interrupted{false};
extern "C" void on_signal(int) { interrupted = true; }

// True when both name one existing file (through links or other paths too).
bool same_file(const std::string& a, const std::string& b) {
    struct stat sa {}, sb {};
    return stat(a.c_str(), &sa) == 0 && stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// The output would replace a file the run reads: refused before anything is read or written.
void refuse_output_over_inputs(const SparseJob& job) {
    auto check = [&](const std::string& file, const char* what) {
        if (same_file(job.output, file))
            throw UsageError("-o " + job.output + " is the " + what + " (" + file + "); give another output file (" +
                             job.output + " is left unchanged)");
    };
    check(job.input, "input file");
    if (!job.mask_spec.empty()) check(job.mask_spec.substr(0, job.mask_spec.rfind(':')), "--mask file");
    if (!job.matrix_spec.empty()) check(parse_matrix_spec(job.matrix_spec).file, "--matrix file");
}
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
    if (!job.matrix_spec.empty()) {
        try {
            parse_matrix_spec(job.matrix_spec);
        } catch (const Error& e) {
            throw UsageError(std::string("--matrix: ") + e.what());
        }
    }
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

    refuse_output_over_inputs(job);

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    struct stat before {};
    const bool existed = stat(job.output.c_str(), &before) == 0;
    SparseSummary s;
    try {
        s = run_sparse_job(job, interrupted);
    } catch (const Error& e) {
        // The output is written under a temporary name and only renamed over -o at the end.
        throw Error(std::string(e.what()) + " (" + job.output + (existed ? " is left unchanged)" : " is not written)"));
    }
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
