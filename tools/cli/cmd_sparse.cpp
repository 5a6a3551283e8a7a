// bslz4 sparse: the main job. Every frame of an HDF5 scan -> the pixels above a cut (and the
// powder pattern, with a matrix) in an ImageD11 sparse file; the job itself (reads, decoding on
// the GPU when there is one, writes) is sparse_job's. Several scans (a campaign, shared out over
// a job array with --shard) go one by one with the same options, an output each in the -o folder.
#include <sys/stat.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/device_list.hpp"
#include "sparse/output_file.hpp"
#include "sparse/sparse_job.hpp"
#if BSLZ4_HAVE_HDF5
#include "hdf5/imaged11_dataset.hpp"
#include "cli/sparse_arguments.hpp"
#include "sparse/sparse_campaign.hpp"
#endif

namespace bslz4::tool {

namespace {

constexpr const char* kHelp =
    "usage: bslz4 sparse INPUT.h5 [--dataset PATH] -o OUTPUT.h5 --cut C [options]\n"
    "       bslz4 sparse (INPUT.h5... | --list FILE) -o DIR --cut C [--shard K/N] [options]\n"
    "Every frame of an HDF5 scan (bitshuffle chunks, filter 32008, one chunk a frame; read raw,\n"
    "no filter plugin needed) -> the pixels above the cut, and with --matrix the powder pattern,\n"
    "in the layout of ImageD11's segmenter (a group at the input dataset's path: row, col,\n"
    "intensity, nnz, and powder, bad_frames).\n"
    "  --dataset PATH       default /entry/data/data, else /entry/data/data_000001... in order,\n"
    "                       else a LImA file's /entry_NNNN/INSTRUMENT/DETECTOR/data; a Bliss\n"
    "                       master's virtual dataset (--dataset /1.1/measurement/eiger) is read\n"
    "                       from its LImA files' chunks\n"
    "  --cut C              list pixels with value > C (required)\n"
    "Masks come in two opposite conventions; give at most one of:\n"
    "  --mask FILE:PATH     NeXus's, as in a pixel_mask: nonzero = bad, do NOT use the pixel\n"
    "  --use-mask FILE:PATH the library's (Chunk2Sparse's mask): nonzero = USE the pixel\n"
    "  --no-mask            use every pixel\n"
    "                       (default: the file's NeXus pixel_mask; a file without one, such as\n"
    "                       a LImA file, runs unmasked, and the summary says so)\n"
    "  --matrix FILE:GROUP  integration matrix (data, indices, indptr, attribute shape)\n"
    "  --acc f64|f32|i64    powder accumulator (default f64). i64 sums integers: the weights\n"
    "                       rounded once to fixed point (at most 24 bits) times integer\n"
    "                       pixels, so each sum is exact and the same on CPU and GPU; the\n"
    "                       scale keeps every sum within int64, and a matrix and pixel type\n"
    "                       that would leave too few bits (or float or 64-bit pixels) are\n"
    "                       refused: use f64\n"
    "  --frames A:B         frames A to B-1 of the scan (default all), as a Python slice: A or\n"
    "                       B may be left out, negative ones count from the end (-10: is the\n"
    "                       last ten); an end past the scan is an error naming its length\n"
    "  --cpu | --gpu        where to decode (default: the GPU when there is one); the CPU\n"
    "                       decoder runs a thread on each CPU the process may use (its\n"
    "                       affinity mask: taskset, SLURM's --cpus-per-task; its cgroup's\n"
    "                       CPU quota), not on every core of the machine\n"
    "  --device D           which GPUs: N (default 0), a comma list such as 0,1, or all; the\n"
    "                       batches of 64 frames go to whichever GPU is free (two decoders a\n"
    "                       GPU), the output is the same and in frame order. No GPU there is\n"
    "                       an error, not a run on the CPU\n"
    "  --readers N          threads reading chunks from the file at once (at most 16; default 2\n"
    "                       on the CPU, 2 + 2 a GPU on GPUs)\n"
    "  --on-error stop|skip a frame that cannot be decoded: stop (default; the error names the\n"
    "                       file, dataset and frame; no output is written, an existing one is\n"
    "                       left as it was) or skip (written with nnz 0 and a zero powder,\n"
    "                       listed with its error code and message in the group's bad_frames\n"
    "                       and in the summary; the scan goes on, and the exit status is 1)\n"
    "  --howmany N          at most N pixels a frame (ImageD11's top_pixels): a frame with more\n"
    "                       than N above the cut keeps those above the first threshold that\n"
    "                       fewer than N pixels exceed (else the last), then the first N of them\n"
    "                       in pixel order; the powder still sums the whole frame (GPU or CPU)\n"
    "  --thresholds a,b,... with --howmany: at most 16 values, sorted increasing (default\n"
    "                       max(C, 1) * 2**i, i = 0..15); '' for none: simply the first N\n"
    "  --pixels-in-spot K   drop the listed pixels in 8-connected groups of fewer than K of\n"
    "                       them, as ImageD11's segmenter's pixels_in_spot (after --howmany, as\n"
    "                       there; on the host); 0 or 1 keeps all (default)\n"
    "  --peaks A            label each frame's listed pixels into peaks as ImageD11's properties\n"
    "                       step does (A: lmlabel or cplabel, after --pixels-in-spot), and write\n"
    "                       beside the lists each pixel's label, each frame's peaks with their\n"
    "                       properties, and the overlaps of consecutive frames (labels, nlabels,\n"
    "                       peak_props, peak_pairs); on the host, on --peak-threads threads\n"
    "  --wtmax W            with --peaks: pixel weights above W count as W\n"
    "  --peak-threads N     with --peaks: threads labelling a batch (default: the cores)\n"
    "  --preset imaged11    ImageD11's segmenter's defaults for what is not given: --howmany\n"
    "                       100000, --thresholds C*2**i for i = 0..5, --pixels-in-spot 3\n"
    "  --per-file           a group per data file of an Eiger master, each at its own path\n"
    "                       (/entry/data/data_000001 ...), instead of one for the scan at\n"
    "                       /entry/data/data\n"
    "  --compression C      how row, col and intensity are stored: bitshuffle-lz4 (default;\n"
    "                       fast, read with hdf5plugin, which ImageD11 imports, or the\n"
    "                       system's bitshuffle plugin), deflate (HDF5's shuffle + deflate:\n"
    "                       readable with no plugin, smaller, about a third of the rate) or none\n"
    "  --overwrite          replace an existing output file (without it, an existing output is\n"
    "                       refused before anything is read). The output is written under a\n"
    "                       temporary name beside it (OUTPUT.part-HOST-PID) and renamed over it\n"
    "                       when the run is done; an interrupted or failed run leaves OUTPUT as\n"
    "                       it was and keeps what it wrote in OUTPUT.incomplete (complete = 0).\n"
    "                       No output may be a file the job reads (the input, an Eiger master's\n"
    "                       data files, a virtual dataset's sources, the mask or matrix file)\n"
    "  --quiet              print nothing on success: no progress, no summary (errors, bad\n"
    "                       frames and an interruption are still reported)\n"
    "  --json               the summary as one JSON object on a line of stdout, for scripts:\n"
    "                       kind, input, output, status, frames, pixels, pixels_not_in_spots,\n"
    "                       bad_frames (with --peaks: peaks, peak_pairs, peak_seconds),\n"
    "                       decoded_bytes, seconds, frames_per_s, decoder, mask, unmasked (a\n"
    "                       failed scan: status failed and error); several scans:\n"
    "                       a line each, then kind total with the counts. Also with --quiet\n"
    "Several scans (a campaign) run one by one with the same options:\n"
    "  -o DIR               with several inputs, --list or --shard (or a single input and an\n"
    "                       existing folder or a name ending in /): DIR/NAME_sparse.h5 for each\n"
    "                       .../NAME.h5 (DIR is created); when inputs share a file name in\n"
    "                       different folders (LImA's eiger_0000.h5), DIR/FOLDER_NAME_sparse.h5\n"
    "                       for every input; names that still collide are refused\n"
    "  --list FILE          the inputs, one path a line (# comments and blank lines skipped)\n"
    "  --imaged11 DATASET.h5 ImageD11's dataset file (DataSet.save, after lima_segmenter.setup):\n"
    "                       every LImA file it lists (datapath/imagefiles, frames at limapath) to\n"
    "                       the sparse file ImageD11 expects (analysispath/sparsefiles, folders\n"
    "                       made), with its segmenter's options (cut, howmany, pixels_in_spot,\n"
    "                       maskfile: an EDF image) and --preset imaged11's defaults; an option\n"
    "                       given here takes the file's place. No inputs, no -o\n"
    "  --shard K/N          only inputs K, K+N, K+2N... of the list (0 <= K < N), e.g.\n"
    "                       --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT in a job array\n"
    "  --resume             run again after a stop: an input whose output is finished (written\n"
    "                       by bslz4 sparse from that input with this --cut, complete = 1) is not\n"
    "                       run again; any other file at an output's name fails that input and\n"
    "                       is left as it is (--overwrite replaces them all)\n"
    "A failed scan is reported (bslz4: FILE: problem) and the others go on; a line per scan and\n"
    "a total go to stdout (with --quiet only the lines of scans FAILED, INTERRUPTED or with bad\n"
    "frames, and then the total). Ctrl-C stops after the current batch (what that scan wrote is\n"
    "kept, readable, in OUTPUT.incomplete) and names the scans not done.\n"
    "Exit: 0 all done, 1 a scan failed or had bad frames, 2 bad usage (nothing run), 130 interrupted.\n";

#if BSLZ4_HAVE_HDF5
std::atomic<bool> interrupted{false};
extern "C" void on_signal(int) { interrupted = true; }

// -o names a folder of outputs rather than one output file.
bool campaign_wanted(const Arguments& args) {
    const std::string o = args.get("-o");
    struct stat st {};
    return args.has("--list") || args.has("--shard") || args.positional.size() > 1 || (!o.empty() && o.back() == '/') ||
           (stat(o.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
}

// Several scans: one output each in the -o folder (or where the dataset file says).
int run_scans(const SparseJob& job, const Arguments& args, const std::optional<ImageD11Dataset>& dataset,
              const Shard& shard) {
    CampaignPlan plan;
    if (dataset) {
        plan = plan_named_campaign(job, dataset->inputs(), dataset->outputs());
    } else {
        struct stat st {};
        if (stat(job.output.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
            throw UsageError("-o " + job.output +
                             " is a file: with several inputs, --list or --shard, -o names the folder "
                             "of the outputs");
        plan = plan_campaign(job, args.has("--list") ? read_input_list(args.get("--list")) : args.positional, job.output);
    }
    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    return run_campaign(job, plan, shard, interrupted, stdout, stderr).exit_code();
}

// One scan into one output file.
int run_one_scan(SparseJob& job, const std::string& input) {
    job.input = input;
    refuse_output_over_inputs(job);
    // what the output is matters more than that it exists
    if (const std::string refusal = output_over_files_read(job); !refusal.empty()) throw Error(ErrorCode::bad_argument, refusal);
    try {
        output_target(job.output, job.overwrite);  // at once: an existing output needs --overwrite
    } catch (const Error& e) {
        if (e.code() != ErrorCode::bad_argument) throw;
        throw UsageError(e.what());
    }

    std::signal(SIGINT, on_signal);
    std::signal(SIGTERM, on_signal);
    SparseSummary s;
    try {
        s = run_sparse_file(job, interrupted);
    } catch (const Error& e) {
        if (job.json) std::printf("%s\n", failed_scan_json(job, e.what()).str().c_str());
        throw;
    }
    const bool success = !s.bad_frames && !s.interrupted;
    if (job.json) {
        std::printf("%s\n", scan_json(s, job).str().c_str());
    } else if (!job.quiet || !success) {
        std::printf("%s: %s\n", job.output.c_str(), scan_summary(s, job).c_str());
        if (s.frames_per_gpu.size() > 1) {
            std::printf("frames per GPU:");
            for (std::size_t k = 0; k < s.frames_per_gpu.size(); ++k)
                std::printf("%s %d: %zu", k ? "," : "", job.devices[k], s.frames_per_gpu[k]);
            std::printf("\n");
        }
    }
    report_bad_frames(s, job.output, stderr);
    if (s.bad_frames && !job.json) std::printf("%s: %s\n", job.output.c_str(), bad_frames_summary(s).c_str());
    if (s.interrupted) {
        std::fprintf(stderr, "bslz4: interrupted: %s\n", interrupted_note(s, job).c_str());
        return 130;
    }
    return s.bad_frames ? 1 : 0;
}
#endif

}  // namespace

int cmd_sparse(const Args& raw) {
#if !BSLZ4_HAVE_HDF5
    if (!raw.empty() && (raw[0] == "--help" || raw[0] == "-h")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    throw Error(ErrorCode::bad_argument, "sparse: this build has no HDF5 (install libhdf5-dev and rebuild)");
#else
    const Arguments args = parse_arguments(
        raw, {"--dataset", "-o", "--cut", "--mask", "--use-mask", "--matrix", "--acc", "--frames", "--device", "--list", "--shard",
              "--readers", "--on-error", "--howmany", "--thresholds", "--pixels-in-spot", "--compression", "--imaged11",
              "--peaks", "--wtmax", "--peak-threads",
              "--preset"},
        {"--no-mask", "--cpu", "--gpu", "--quiet", "--json", "--per-file", "--overwrite", "--resume"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
    const bool imaged11 = args.has("--imaged11");
    const bool campaign = imaged11 || campaign_wanted(args);
    check_usage(args, imaged11, campaign);
    const DeviceList devices = parse_device_list(args.get("--device", "0"));
    // Before any file is read, so that every shard of a job array refuses the same command.
    const Shard shard = args.has("--shard") ? parse_shard(args.get("--shard")) : Shard{};
    SparseJob job;
    job.on_error = parse_on_error(args.get("--on-error", "stop"));
    read_job_inputs(args, job);
    const bool segmenter_defaults = imaged11 || args.has("--preset");
    read_list_options(args, segmenter_defaults, job);
    const std::optional<ImageD11Dataset> dataset = apply_segmenter_defaults(args, segmenter_defaults, job);
    job.command_line = "bslz4 sparse";
    for (const std::string& a : raw) job.command_line += " " + a;
    // Before any file is read: the GPUs named must be there (every scan would fail otherwise).
    if (args.has("--device")) job.devices = resolve_devices(devices, args.get("--device"));
    if (campaign) return run_scans(job, args, dataset, shard);
    return run_one_scan(job, args.positional[0]);
#endif
}

}  // namespace bslz4::tool
