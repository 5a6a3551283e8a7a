// What bslz4 sparse reads besides the scan's frames, and the output it may not write over: the
// mask (the file's pixel_mask, a mask file, or none) with the warning a suspicious one earns,
// and the files the job reads, which -o may not name.
#pragma once
#include <string>
#include <vector>

#include "hdf5/scan_input.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// A mask that leaves fewer than half the pixels is more often one given in the other convention
// than a real one: the warning says which options read it the other way.
std::string mask_warning(const SparseJob& job, const SparseSummary& s);

// The file at `path` (when there is one) among those the job reads, as `role`.
void note_file_at(std::vector<ScanInput::FileRead>& reads, const std::string& path, const char* role);

// The job would write over a file it reads (the output names it, through a link, another path
// or a hard link): refused before anything is written, naming both.
void refuse_output_over_reads(const SparseJob& job, const std::vector<ScanInput::FileRead>& reads);

// The pixels to use (1) and not (0), and `source` saying where that came from; a mask file read
// is added to `reads`.
std::vector<std::uint8_t> choose_mask(const SparseJob& job, const ScanInput& scan, std::string& source,
                                      std::vector<ScanInput::FileRead>& reads);

}  // namespace bslz4::tool
