#include "sparse/job_files.hpp"

#include <sys/stat.h>

#include <cstdio>

#include "bslz4/error.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/mask_file.hpp"
#include "hdf5/matrix_file.hpp"

namespace bslz4::tool {

// A mask that leaves fewer than half the pixels is more often one given in the other convention
// than a real one: the warning says which options read it the other way.
std::string mask_warning(const SparseJob& job, const SparseSummary& s) {
    char share[32];
    std::snprintf(share, sizeof share, "%.1f %%", 100.0 * static_cast<double>(s.masked_pixels) / static_cast<double>(s.frame_pixels));
    const std::string masks = "the mask " + s.mask_source + " masks " + std::to_string(s.masked_pixels) + " of the frame's " +
                              std::to_string(s.frame_pixels) + " pixels (" + share + "): ";
    if (!job.mask_spec.empty())
        return masks + "--mask reads nonzero as do NOT use (NeXus's pixel_mask); if nonzero marks the pixels to use, give it as --use-mask " +
               job.mask_spec;
    if (!job.use_mask_spec.empty())
        return masks + "--use-mask reads nonzero as USE the pixel; if nonzero marks bad pixels (NeXus's pixel_mask), give it as --mask " +
               job.use_mask_spec;
    return masks + "the file's pixel_mask is read as NeXus's (nonzero = do not use); give --use-mask FILE:PATH if it is the other "
                   "convention, or --no-mask";
}

// The file at `path` (when there is one) among those the job reads, as `role`.
void note_file_at(std::vector<ScanInput::FileRead>& reads, const std::string& path, const char* role) {
    struct stat st {};
    if (stat(path.c_str(), &st) == 0)
        reads.push_back({{path, static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)}, role});
}

// The job would write over a file it reads (the output names it, through a link, another path
// or a hard link): refused before anything is written, naming both.
void refuse_output_over_reads(const SparseJob& job, const std::vector<ScanInput::FileRead>& reads) {
    struct stat st {};
    if (stat(job.output.c_str(), &st) != 0) return;  // a new file is none of them
    for (const ScanInput::FileRead& r : reads)
        if (r.file.device == static_cast<std::uint64_t>(st.st_dev) && r.file.inode == static_cast<std::uint64_t>(st.st_ino))
            throw Error(ErrorCode::bad_argument, "-o " + job.output + " is the " + r.role + " " + r.file.name + ", which this job reads; " +
                                                     "give another output file (" + job.output + " is left unchanged, nothing was written)");
}

std::vector<std::uint8_t> choose_mask(const SparseJob& job, const ScanInput& scan, std::string& source,
                                      std::vector<ScanInput::FileRead>& reads) {
    std::vector<std::uint8_t> use(scan.ni * scan.nj, 1);
    if (!job.mask_spec.empty() && !job.use_mask_spec.empty())
        throw Error(ErrorCode::bad_argument, "give a mask (nonzero = do not use) or a use-mask (nonzero = use), not both");
    if (job.no_mask) {
        source = "none (--no-mask)";
    } else if (!job.mask_spec.empty() || !job.use_mask_spec.empty()) {
        // Both read the same; they differ in what nonzero means.
        const bool nexus = !job.mask_spec.empty();
        const std::string& spec = nexus ? job.mask_spec : job.use_mask_spec;
        const MaskFile m = read_mask_file(spec, scan.ni, scan.nj);
        reads.push_back({m.file, nexus ? "--mask file" : "--use-mask file"});
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = nexus ? !m.nonzero[i] : m.nonzero[i] != 0;
        source = nexus ? spec : spec + " (--use-mask: nonzero = use)";
    } else if (!scan.nexus_mask.empty()) {
        for (std::size_t i = 0; i < use.size(); ++i) use[i] = scan.nexus_mask[i] == 0;
        source = scan.file_name + ":" + scan.nexus_mask_path;
    } else {
        source = scan.mask_source;  // "none (the file has no pixel_mask)"
    }
    return use;
}

std::string output_over_files_read(const SparseJob& job) {
    struct stat st {};
    if (stat(job.output.c_str(), &st) != 0) return "";  // a new file is none of them
    std::vector<ScanInput::FileRead> reads;
    try {
        const h5::Lock lock;
        reads = open_scan(job.input, job.dataset, NexusMask::skip).files_read;
    } catch (const Error&) {
        return "";  // the run itself says why the scan cannot be read
    }
    if (!job.mask_spec.empty()) note_file_at(reads, job.mask_spec.substr(0, job.mask_spec.rfind(':')), "--mask file");
    if (!job.use_mask_spec.empty()) note_file_at(reads, job.use_mask_spec.substr(0, job.use_mask_spec.rfind(':')), "--use-mask file");
    if (!job.matrix_spec.empty()) note_file_at(reads, parse_matrix_spec(job.matrix_spec).file, "--matrix file");
    try {
        refuse_output_over_reads(job, reads);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

}  // namespace bslz4::tool
