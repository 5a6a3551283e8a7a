// What ImageD11's properties step reads, for `bslz4 peaks`: the dataset file's scans (the rows
// of a scanning 3DXRD dataset, each a group of the sparse file), their omega angles (dataset
// omega, rows x frames), and the names of the sparse file and of the peaks table it writes
// (ImageD11.sinograms.dataset.DataSet's sparsefile and pksfile); then, row by row, the pixels of
// each scan group (nnz, row, col, intensity, and the attributes nframes, shape0, shape1: the
// layout of ImageD11's assemble_label and of `bslz4 sparse`'s own output).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "hdf5_file.hpp"
#include "peaks/scan_peaks.hpp"

namespace bslz4::tool {

struct ImageD11Scans {
    std::string file, sparsefile, pksfile;  // the last two "" when the file names none
    std::vector<std::string> scans;
    std::vector<std::vector<double>> omega;  // a row a scan
};

// Everything missing or malformed is an Error naming the file and what.
ImageD11Scans read_imaged11_scans(const std::string& dataset_file);

// Reads scan groups of one sparse file. Every size is checked before anything is sized by it:
// nnz has nframes values, each at most shape0 x shape1, and row, col and intensity hold at least
// their sum; the intensity is read as float32, as ImageD11 reads it.
class SparsePixelsFile {
public:
    explicit SparsePixelsFile(const std::string& path);
    // A group with labels made by `algorithm` (bslz4 sparse --peaks: attribute peaks_algorithm,
    // datasets labels and nlabels) has them read too, so the row is not labelled again.
    peaks::ScanPixels read(const std::string& group, const std::vector<double>& omega, const std::string& algorithm) const;
    hid_t id() const { return file_.get(); }

private:
    std::string path_;
    h5::Handle file_;
};

// The segmenter's files of each scan: `files` (a dataset's sparsefiles, in order) dealt out to
// the scans by their frames (each file's group at limapath says its nframes), `frames` a scan.
// A file left over, or a scan a file would overrun, is an error naming both.
std::vector<std::vector<std::string>> files_of_scans(const std::vector<std::string>& files, const std::string& limapath,
                                                     std::size_t scans, std::size_t frames);

// A scan's pixels from the segmenter's own files (ImageD11's sparsefiles, one a LImA file, each a
// group at limapath), the files taken in order, as many as make the scan's frames; their labels
// too when every file has them (bslz4 sparse --imaged11 --peaks), so the scan is not labelled
// again. `name` names the scan in messages.
peaks::ScanPixels read_segmenter_files(const std::vector<std::string>& files, const std::string& limapath,
                                       const std::string& name, const std::vector<double>& omega, const std::string& algorithm);

}  // namespace bslz4::tool
