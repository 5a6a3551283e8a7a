// bslz4 sparse: the main job. Every frame of an HDF5 scan -> the pixels above a cut (and the
// powder pattern, with a matrix) in an ImageD11 sparse file; the job itself (reads, decoding on
// the GPU when there is one, writes) is sparse_job's. Several scans (a campaign, shared out over
// a job array with --shard) go one by one with the same options, an output each in the -o folder.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "bslz4/chunk2sparse.hpp"

#include "cli/command_line.hpp"
#include "cli/commands.hpp"
#include "cli/device_list.hpp"
#include "cli/frame_selection.hpp"
#include "sparse/output_file.hpp"
#include "sparse/sparse_job.hpp"
#if BSLZ4_HAVE_HDF5
#include "edf/edf_mask.hpp"
#include "hdf5/imaged11_dataset.hpp"
#include "cli/peak_arguments.hpp"
#include "peaks/frame_labels.hpp"
#include "hdf5/matrix_file.hpp"
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
// --thresholds a,b,c (checked as the library checks them, as a usage error); '' is the empty list.
std::vector<double> parse_thresholds(const std::string& text) {
    std::vector<double> out;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end) throw UsageError("--thresholds '" + text + "': expected numbers separated by commas");
        out.push_back(v);
        at = comma + 1;
    }
    try {
        check_top_pixel_thresholds(out);
    } catch (const Error& e) {
        throw UsageError(std::string("--thresholds: ") + e.what());
    }
    return out;
}

std::atomic<bool> interrupted{false};
extern "C" void on_signal(int) { interrupted = true; }

// -o names a folder of outputs rather than one output file.
bool campaign_wanted(const Arguments& args) {
    const std::string o = args.get("-o");
    struct stat st {};
    return args.has("--list") || args.has("--shard") || args.positional.size() > 1 || (!o.empty() && o.back() == '/') ||
           (stat(o.c_str(), &st) == 0 && S_ISDIR(st.st_mode));
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
    if (args.has("--preset") && args.get("--preset") != "imaged11")
        throw UsageError("--preset '" + args.get("--preset") + "': the one preset is imaged11 (ImageD11's segmenter's defaults)");
    const bool segmenter_defaults = imaged11 || args.has("--preset");
    if (imaged11) {
        if (!args.positional.empty() || args.has("--list"))
            throw UsageError("--imaged11 takes the scans from the dataset file: give no input files or --list");
        if (args.has("-o"))
            throw UsageError("--imaged11 writes each scan's sparse file where ImageD11 expects it (the dataset's "
                             "analysispath/sparsefiles): give no -o");
    } else {
        if (args.has("--list") && !args.positional.empty()) throw UsageError("give input files or --list FILE, not both");
        if (args.positional.empty() && !args.has("--list"))
            throw UsageError("give one input file (or several, or --list FILE, or --imaged11 DATASET.h5)");
    }
    const bool campaign = imaged11 || campaign_wanted(args);
    if (!imaged11 && !args.has("-o"))
        throw UsageError(campaign ? "give the folder of the outputs with -o DIR"
                                  : "give the output file with -o OUTPUT.h5");
    if (!imaged11 && !args.has("--cut")) throw UsageError("give the cut with --cut C");
    if (args.has("--resume") && !campaign)
        throw UsageError("--resume goes with several scans (-o DIR, --list, --shard or --imaged11): one output is "
                         "refused if it exists, or replaced with --overwrite");
    if (args.has("--resume") && args.has("--overwrite")) throw UsageError("give --resume or --overwrite, not both");
    if (args.has("--cpu") && args.has("--gpu")) throw UsageError("give --cpu or --gpu, not both");
    if (args.has("--mask") + args.has("--use-mask") + args.has("--no-mask") > 1)
        throw UsageError("give one of --mask FILE:PATH (nonzero = do not use), --use-mask FILE:PATH (nonzero = use) or --no-mask");
    if (args.has("--cpu") && args.has("--device")) throw UsageError("give --cpu or --device, not both");
    const DeviceList devices = parse_device_list(args.get("--device", "0"));
    // Before any file is read, so that every shard of a job array refuses the same command.
    const Shard shard = args.has("--shard") ? parse_shard(args.get("--shard")) : Shard{};
    const OnError on_error = parse_on_error(args.get("--on-error", "stop"));
    SparseJob job;
    job.dataset = args.get("--dataset");
    job.output = args.get("-o");
    job.cut = args.number("--cut", 0);
    if (!std::isfinite(job.cut))
        throw UsageError("--cut " + args.get("--cut") + ": the cut must be a finite number (pixels > C are listed)");
    job.overwrite = args.has("--overwrite");
    job.resume = args.has("--resume");
    job.mask_spec = args.get("--mask");
    job.use_mask_spec = args.get("--use-mask");
    for (const char* option : {"--mask", "--use-mask"}) {
        const std::string spec = args.get(option);
        const std::size_t colon = spec.rfind(':');
        if (args.has(option) && !is_edf_file(spec) && (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()))
            throw UsageError(std::string(option) + " '" + spec +
                             "': expected FILE:PATH (the mask dataset's file and its path in it) or an EDF image FILE.edf");
    }
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
    try {
        parse_frame_selection(job.frames_spec);
    } catch (const Error& e) {
        throw UsageError(e.what());
    }
    job.where = args.has("--cpu") ? SparseJob::Where::cpu : args.has("--gpu") ? SparseJob::Where::gpu : SparseJob::Where::any;
    job.quiet = args.has("--quiet");
    job.json = args.has("--json");
    job.per_file = args.has("--per-file");
    if (!parse_list_compression(args.get("--compression", "bitshuffle-lz4"), job.compression))
        throw UsageError("--compression '" + args.get("--compression") + "': bitshuffle-lz4, deflate or none");
    job.pixels_in_spot = static_cast<std::size_t>(args.count("--pixels-in-spot", 0));
    if (args.has("--peaks")) {
        const peaks::PeakOptions peak_options = peak_arguments(args, "--peaks", "");
        const unsigned long long threads = args.count("--peak-threads", 0);
        if (threads > 4096) throw UsageError("--peak-threads " + args.get("--peak-threads") + " is more than 4096");
        job.peaks = peak_options;
        job.peak_threads = static_cast<unsigned>(threads);
    } else if (args.has("--wtmax") || args.has("--peak-threads")) {
        throw UsageError(std::string(args.has("--wtmax") ? "--wtmax" : "--peak-threads") + " goes with --peaks");
    }
    job.on_error = on_error;
    if (args.has("--readers")) {
        const unsigned long long readers = args.count("--readers", 0);
        if (readers < 1 || readers > 16) throw UsageError("--readers " + args.get("--readers") + ": from 1 to 16 threads");
        job.reader_threads = static_cast<unsigned>(readers);
    }
    if (args.has("--howmany")) {
        job.howmany = static_cast<std::size_t>(args.count("--howmany", 0));
        if (args.has("--thresholds")) job.thresholds = parse_thresholds(args.get("--thresholds"));
    } else if (args.has("--thresholds") && !segmenter_defaults) {
        throw UsageError("--thresholds goes with --howmany N");
    }
    std::optional<ImageD11Dataset> dataset;
    if (imaged11) {
        // The dataset file's segmenter options, each given on the command line taking its place.
        dataset = read_imaged11_dataset(args.get("--imaged11"));
        if (!args.has("--cut")) job.cut = dataset->cut.value_or(kImageD11Cut);
        if (!args.has("--howmany") && dataset->howmany) job.howmany = dataset->howmany;
        if (!args.has("--pixels-in-spot") && dataset->pixels_in_spot) job.pixels_in_spot = *dataset->pixels_in_spot;
        if (!args.has("--mask") && !args.has("--use-mask") && !args.has("--no-mask") && !dataset->maskfile.empty())
            job.mask_spec = dataset->maskfile;
        if (!args.has("--dataset")) job.dataset = dataset->limapath;
    }
    if (segmenter_defaults) {  // ImageD11's SegmenterOptions, where nothing above said otherwise
        if (!job.howmany) job.howmany = kImageD11Howmany;
        if (args.has("--thresholds")) {
            job.thresholds = parse_thresholds(args.get("--thresholds"));
        } else {
            std::vector<double> t;
            for (std::size_t i = 0; i < kImageD11Thresholds; ++i) t.push_back(job.cut * std::ldexp(1.0, static_cast<int>(i)));
            job.thresholds = t;
        }
        if (!args.has("--pixels-in-spot") && !(dataset && dataset->pixels_in_spot)) job.pixels_in_spot = kImageD11PixelsInSpot;
    }
    job.command_line = "bslz4 sparse";
    for (const std::string& a : raw) job.command_line += " " + a;
    // Before any file is read: the GPUs named must be there (every scan would fail otherwise).
    if (args.has("--device")) job.devices = resolve_devices(devices, args.get("--device"));

    if (imaged11) {
        const CampaignPlan plan = plan_named_campaign(job, dataset->inputs(), dataset->outputs());
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
        return run_campaign(job, plan, shard, interrupted, stdout, stderr).exit_code();
    }
    if (campaign) {
        struct stat st {};
        if (stat(job.output.c_str(), &st) == 0 && !S_ISDIR(st.st_mode))
            throw UsageError("-o " + job.output +
                             " is a file: with several inputs, --list or --shard, -o names the folder "
                             "of the outputs");
        const CampaignPlan plan =
            plan_campaign(job, args.has("--list") ? read_input_list(args.get("--list")) : args.positional, job.output);
        std::signal(SIGINT, on_signal);
        std::signal(SIGTERM, on_signal);
        return run_campaign(job, plan, shard, interrupted, stdout, stderr).exit_code();
    }
    job.input = args.positional[0];
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
#endif
}

}  // namespace bslz4::tool
