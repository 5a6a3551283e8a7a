// bslz4 demo: checks the shared reference cases (when present), then runs the main job
// (`bslz4 sparse`) on a synthetic Eiger 4M scan it writes, and says what it did.
#include <cstdio>
#include <cstring>

#include "bslz4/decode.hpp"
#include "bslz4/error.hpp"
#include "synthetic/synthetic_eiger.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "bench/eiger_stack.hpp"
#include "cli/file_io.hpp"
#include "cli/reference_cases.hpp"
#include "cli/sha256.hpp"

#if BSLZ4_HAVE_HDF5
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "bslz4/chunk2sparse_csc.hpp"
#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#endif
#endif

namespace bslz4::tool {

namespace {
constexpr const char* kHelp =
    "usage: bslz4 demo [--frames N] [--dir DIR] [--cut C] [--cpu] [--profile P] [--type T] [--testdata DIR]\n"
    "The main job on built-in data: makes a synthetic Eiger 4M scan of N frames (default 200)\n"
    "in an HDF5 file (our encoder, direct chunk writes) with its pixel_mask and a radial\n"
    "integration matrix, runs `bslz4 sparse` on it (on the GPU when there is one), checks the GPU\n"
    "against the CPU on some frames, and says where the output is (in DIR, made with its parents\n"
    "when it is not there; default a new directory under $TMPDIR). First it checks the reference\n"
    "chunks in --testdata (default $BSLZ4_TESTDATA or ../shared/testdata beside the sources)\n"
    "against their sha256.\n"
    "  --profile P   dense (default: background 0.1-1 counts, ratio about 8), sparse (0.01-0.04,\n"
    "                ratio about 27) or very-sparse (0.0003-0.0015, ratio about 90)\n"
    "  --type T      u16 (default) or u32\n";

#if BSLZ4_HAVE_HDF5
// The GPU's lists and powders against the CPU's on the first frames of the scan.
void compare_gpu_cpu(const EigerStack& stack, const IntegrationMatrix& matrix, double cut) {
#if BSLZ4_HAVE_CUDA
    if (!cuda::available()) return;
    const auto views = stack.views(std::min<std::size_t>(8, stack.chunks.size()));
    Chunk2SparseCSC cpu(stack.mask, stack.ni, stack.nj, stack.type, matrix);
    cuda::Chunk2SparseCSC gpu(stack.mask, stack.ni, stack.nj, stack.type, matrix);
    const IntegratedBatch c = cpu.multi(views, cut), g = gpu.multi(views, cut);
    double worst = 0;
    for (std::size_t f = 0; f < views.size(); ++f) {
        const SparseFrame cf = c.sparse.frame(f), gf = g.sparse.frame(f);
        if (cf.npixels != gf.npixels || std::memcmp(cf.indices, gf.indices, 4 * cf.npixels) != 0 ||
            std::memcmp(cf.values, gf.values, pixel_size(stack.type) * cf.npixels) != 0)
            throw Error(ErrorCode::gpu_fault, "demo: GPU and CPU lists differ on frame " + std::to_string(f));
        for (std::size_t b = 0; b < matrix.bins; ++b)
            worst = std::max(worst, std::fabs(g.powder.value(f, b) - c.powder.value(f, b)) /
                                        std::max(1.0, std::fabs(c.powder.value(f, b))));
    }
    if (worst > 1e-12) throw Error(ErrorCode::gpu_fault, "demo: GPU and CPU powders differ by " + std::to_string(worst));
    std::printf("GPU == CPU on the first %zu frames: the same pixel lists, powders within %.1e (relative)\n",
                views.size(), worst);
#else
    (void)stack, (void)matrix, (void)cut;
#endif
}

// --dir as `mkdir -p` makes it: a folder that is there already is used as it is.
void make_directories(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) throw Error(ErrorCode::io, "demo: --dir " + dir + ": cannot make the directory: " + ec.message());
    if (!std::filesystem::is_directory(dir, ec))
        throw Error(ErrorCode::io, "demo: --dir " + dir + ": not a directory");
}

int scan_demo(std::size_t frames, std::string dir, double cut, bool cpu, PixelType type, SyntheticProfile profile) {
    if (dir.empty()) {
        std::string pattern = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/bslz4-demo-XXXXXX";
        if (!mkdtemp(pattern.data())) throw Error(ErrorCode::io, "demo: cannot make a directory under " + pattern);
        dir = pattern;
    } else {
        make_directories(dir);
    }
    constexpr std::size_t kDistinct = 16, kBins = 2000;
    const EigerStack stack =
        make_eiger_stack(kEiger4mRows, kEiger4mCols, type, std::min(kDistinct, frames), profile);
    std::vector<std::uint8_t> nexus(stack.mask.size());
    for (std::size_t i = 0; i < nexus.size(); ++i) nexus[i] = stack.mask[i] ? 0 : 1;
    const std::string scan = dir + "/scan.h5", matrix_file = dir + "/matrix.h5", output = dir + "/sparse.h5";
    write_scan(scan, stack.ni, stack.nj, stack.type, frames, nexus, stack.chunks);
    const IntegrationMatrix matrix = radial_matrix(stack.ni, stack.nj, kBins);
    write_matrix(matrix_file, "csr", matrix);
    std::printf("%s scan: %zu frames of %zu x %zu in %s (%.1f MB of chunks, compression ratio %.1f), matrix of %zu "
                "bins in %s\n",
                stack.describe().c_str(), frames, stack.ni, stack.nj, scan.c_str(),
                stack.compressed_bytes() * 1e-6 * frames / stack.chunks.size(), stack.compression_ratio(), kBins,
                matrix_file.c_str());
    SparseJob job;
    job.input = scan;
    job.output = output;
    job.overwrite = true;  // the demo's own output, made again each run
    job.cut = cut;
    job.matrix_spec = matrix_file + ":csr";
    job.where = cpu ? SparseJob::Where::cpu : SparseJob::Where::any;
    char cut_text[32];
    std::snprintf(cut_text, sizeof cut_text, "%g", cut);
    job.command_line = "bslz4 sparse " + scan + " -o " + output + " --cut " + cut_text + " --matrix " + job.matrix_spec;
    std::printf("running: %s\n", job.command_line.c_str());
    std::fflush(stdout);
    const std::atomic<bool> never{false};
    const SparseSummary s = run_sparse_job(job, never);
    std::printf("%zu frames, %zu pixels kept, %.2f GB decoded, %.2f s, %.0f frames/s on %s\n", s.frames, s.pixels,
                s.decoded_bytes / 1e9, s.seconds, s.frames / s.seconds, s.decoder.c_str());
    if (!cpu) compare_gpu_cpu(stack, matrix, cut);
    std::printf("output: %s (ImageD11's segmenter layout: group /entry/data/data with row, col, intensity, nnz, powder)\n",
                output.c_str());
    return 0;
}
#endif

int reference_cases(const std::string& dir) {
    const auto cases = read_reference_cases(dir);
    std::size_t ok = 0, bytes = 0;
    for (const ReferenceCase& c : cases) {
        const auto chunk = read_file(c.chunk_path);
        const auto pixels = about_file(c.chunk_path, [&] { return decode_chunk(chunk, c.elem_size, c.codec); });
        if (sha256_hex(pixels) != c.sha256) {
            std::fprintf(stderr, "bslz4: %s: decoded pixels do not match the recorded sha256\n", c.chunk_path.c_str());
            return 1;
        }
        ++ok;
        bytes += pixels.size();
    }
    std::printf("reference cases: %zu of %zu chunks in %s decode to their recorded sha256 (%.2f MB)\n", ok,
                cases.size(), dir.c_str(), bytes / 1e6);
    return 0;
}
}  // namespace

int cmd_demo(const Args& raw) {
    const Arguments args =
        parse_arguments(raw, {"--testdata", "--cut", "--frames", "--dir", "--profile", "--type"}, {"--cpu"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    const std::string testdata = args.get("--testdata", default_testdata_dir());
    const double cut = args.number("--cut", 10.0);
    const std::size_t frames = static_cast<std::size_t>(args.count("--frames", 200));
    if (frames == 0) throw UsageError("--frames must be at least 1");
    const SyntheticProfile profile = parse_profiles(args.get("--profile", "dense"), false).front();
    const PixelType type = parse_synthetic_type(args.get("--type", "u16"));
    if (std::FILE* f = std::fopen((testdata + "/cases.tsv").c_str(), "r")) {
        std::fclose(f);
        if (int rc = reference_cases(testdata)) return rc;
    } else {
        std::printf("reference cases: none at %s (skipped)\n", testdata.c_str());
    }
#if BSLZ4_HAVE_HDF5
    return scan_demo(frames, args.get("--dir"), cut, args.has("--cpu"), type, profile);
#else
    (void)profile, (void)type, (void)cut;
    std::printf("this build has no HDF5 (install libhdf5-dev and rebuild): the scan demo needs it\n");
    return 1;
#endif
}

}  // namespace bslz4::tool
