#include "cli/sparse_arguments.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "bslz4/chunk2sparse.hpp"
#include "cli/frame_selection.hpp"
#include "cli/peak_arguments.hpp"
#include "edf/edf_mask.hpp"
#include "hdf5/matrix_file.hpp"
#include "peaks/frame_labels.hpp"
#include "sparse/output_file.hpp"

namespace bslz4::tool {

namespace {

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

}  // namespace

void check_usage(const Arguments& args, bool imaged11, bool campaign) {
    if (args.has("--preset") && args.get("--preset") != "imaged11")
        throw UsageError("--preset '" + args.get("--preset") + "': the one preset is imaged11 (ImageD11's segmenter's defaults)");
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
}

void read_job_inputs(const Arguments& args, SparseJob& job) {
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
}

void read_list_options(const Arguments& args, bool segmenter_defaults, SparseJob& job) {
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
}

std::optional<ImageD11Dataset> apply_segmenter_defaults(const Arguments& args, bool segmenter_defaults, SparseJob& job) {
    std::optional<ImageD11Dataset> dataset;
    if (args.has("--imaged11")) {
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
    return dataset;
}

}  // namespace bslz4::tool
