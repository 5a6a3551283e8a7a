// bslz4 peaks: ImageD11's properties step (ImageD11.sinograms.properties.main) on the sparse
// pixels of a scanning 3DXRD dataset, in one multithreaded process: each frame's peaks labelled,
// their properties, the overlaps joining them across frames and rows, and the 3D peaks; written as
// ImageD11's peaks table file, for DataSet.pk2d / pk4d and the columnfiles.
#include <chrono>
#include <cstdio>

#include "bslz4/error.hpp"
#include "cli/command_line.hpp"
#include "cli/commands.hpp"

#if BSLZ4_HAVE_HDF5
#include <memory>

#include "hdf5/imaged11_dataset.hpp"
#include "hdf5/peaks_file.hpp"
#include "hdf5/peaks_input.hpp"
#include "cli/peak_arguments.hpp"
#include "peaks/peak_table.hpp"
#endif

namespace bslz4::tool {

namespace {

constexpr const char* kHelp =
    "usage: bslz4 peaks DATASET.h5 [--sparse FILE | --segmenter-files] [-o PKS.h5]\n"
    "                   [--algorithm lmlabel|cplabel] [--wtmax W] [--threads N] [--overwrite] [--quiet]\n"
    "ImageD11's properties step (ImageD11.sinograms.properties.main) on the sparse pixels of\n"
    "the dataset DATASET.h5 (ImageD11's dataset file: its scans, their omega angles, and the\n"
    "names of its sparse file and peaks table file). Every frame of every scan is labelled\n"
    "(lmlabel: each pixel joins its local maximum of the smoothed intensity; cplabel: 8-connected\n"
    "pixels above 0), each peak measured (pixels, sum, sum x row, sum x col, frame), the peaks of\n"
    "neighbouring frames in omega and of the same omega in neighbouring scans joined where they\n"
    "share pixels, and the joined groups numbered as 3D peaks. The result is ImageD11's peaks\n"
    "table (group pks2d: ipk, pk_props, npk, glabel, nlabel), equal to what properties.main\n"
    "writes, for DataSet.pk2d, pk4d, get_cf_2d and get_cf_4d.\n"
    "\n"
    "--sparse FILE   the sparse pixels: one group a scan, as ImageD11's assemble_label writes\n"
    "                (default: the dataset's sparsefile). A scan whose group holds labels that\n"
    "                `bslz4 sparse --peaks` made with the same algorithm is not labelled again:\n"
    "                its labels are checked and used\n"
    "--segmenter-files  the pixels from the segmenter's own files instead (the dataset's\n"
    "                sparsefiles at its limapath, dealt out to the scans in order), with no\n"
    "                assemble_label step; files from `bslz4 sparse --imaged11 --peaks A` come\n"
    "                with their labels, which are used\n"
    "-o PKS.h5       the peaks table file (default: the dataset's pksfile); an existing file is\n"
    "                replaced only with --overwrite, and never one this run reads\n"
    "--algorithm A   lmlabel (default) or cplabel, as properties.main's options['algorithm']\n"
    "--wtmax W       pixel weights above W count as W (options['wtmax'], for saturated pixels)\n"
    "--threads N     scans labelled at once (default: the CPUs this process may use)\n";

#if BSLZ4_HAVE_HDF5
std::string resolve(const std::string& name, const std::string& option, const char* attribute, const std::string& ds_file) {
    if (!name.empty()) return name;
    throw UsageError(ds_file + " names no " + attribute + ": give " + option);
}
#endif

}  // namespace

int cmd_peaks(const Args& raw) {
    const Arguments args =
        parse_arguments(raw, {"--sparse", "-o", "--algorithm", "--wtmax", "--threads"}, {"--overwrite", "--quiet", "--segmenter-files"});
    if (args.flags.count("help")) {
        std::fputs(kHelp, stdout);
        return 0;
    }
#if !BSLZ4_HAVE_HDF5
    throw Error(ErrorCode::bad_argument, "peaks: this build has no HDF5 (install libhdf5-dev and rebuild)");
#else
    if (args.positional.size() != 1) throw UsageError("give one ImageD11 dataset file (DATASET.h5)");
    const peaks::PeakOptions options = peak_arguments(args, "--algorithm", "lmlabel");
    const unsigned long long threads = args.count("--threads", 0);
    if (threads > 4096) throw UsageError("--threads " + std::to_string(threads) + " is more than 4096");
    const bool quiet = args.has("--quiet");
    const std::string ds_file = args.positional[0];
    const auto start = std::chrono::steady_clock::now();
    const ImageD11Scans ds = read_imaged11_scans(ds_file);
    const bool from_files = args.has("--segmenter-files");
    if (from_files && args.has("--sparse")) throw UsageError("--sparse and --segmenter-files name two sources: give one");
    std::vector<std::vector<std::string>> scan_files;
    std::string limapath;
    if (from_files) {
        const ImageD11Dataset segmented = read_imaged11_dataset(ds_file);
        limapath = segmented.limapath;
        scan_files = files_of_scans(segmented.outputs(), limapath, ds.scans.size(), ds.omega.empty() ? 0 : ds.omega[0].size());
    }
    const std::string sparse = from_files ? std::string() : resolve(args.get("--sparse", ds.sparsefile), "--sparse", "sparsefile", ds_file);
    const std::string output = resolve(args.get("-o", ds.pksfile), "-o", "pksfile", ds_file);

    PeaksFileInfo info;
    info.command_line = "bslz4 peaks";
    for (const std::string& a : raw) info.command_line += " " + a;
    info.sparse_file = from_files ? "the segmenter's files at " + limapath : sparse;
    info.dataset_file = ds_file;
    info.algorithm = peaks::algorithm_name(options.algorithm);
    info.wtmax = options.wtmax;
    info.overwrite = args.has("--overwrite");
    info.inputs = {ds_file};
    if (from_files)
        for (const auto& files : scan_files) info.inputs.insert(info.inputs.end(), files.begin(), files.end());
    else
        info.inputs.push_back(sparse);
    check_peaks_output(output, info);  // before the work, not after it

    std::unique_ptr<SparsePixelsFile> pixels;
    if (!from_files) pixels = std::make_unique<SparsePixelsFile>(sparse);
    const auto read = [&](std::size_t r) {
        return from_files ? read_segmenter_files(scan_files[r], limapath, ds_file + " scan " + ds.scans[r], ds.omega[r], info.algorithm)
                          : pixels->read(ds.scans[r], ds.omega[r], info.algorithm);
    };
    const peaks::PeakTable table = peaks::build_peak_table(ds.scans.size(), read, options, static_cast<unsigned>(threads));
    write_peaks_file(output, table, info);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!quiet) {
        std::int64_t ii = 0, ij = 0;
        for (const auto& r : table.npk) {
            ii += r[1];
            ij += r[2];
        }
        if (table.rows_labelled_before)
            std::printf("%zu of %zu scans came labelled (bslz4 sparse --peaks %s): their labels were used\n",
                        table.rows_labelled_before, ds.scans.size(), info.algorithm.c_str());
        std::printf("%s: %zu scans, %zu 2D peaks (%s%s), %lld overlaps in scans and %lld between them, %lld 3D peaks, %.2f s\n",
                    output.c_str(), ds.scans.size(), table.peaks(), info.algorithm.c_str(),
                    options.wtmax ? (", wtmax " + args.get("--wtmax")).c_str() : "", static_cast<long long>(ii),
                    static_cast<long long>(ij), static_cast<long long>(table.nlabel), seconds);
    }
    return 0;
#endif
}

}  // namespace bslz4::tool
