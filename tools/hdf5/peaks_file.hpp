// The peaks table file `bslz4 peaks` writes: group pks2d as ImageD11's pks_table.save writes it
// (ipk, pk_props, npk and glabel as int64 datasets with its descriptions, the attribute nlabel),
// so that pks_table.load, DataSet.pk2d / pk4d and get_cf_2d / get_cf_4d read it as their own;
// and at the root what made it (writer, command_line, sparse_file, dataset_file, algorithm,
// wtmax when given). Written under a temporary name and renamed into place when complete, as
// `bslz4 sparse` writes (output_file.hpp): an existing file is replaced only with overwrite, and
// never one of the files read.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "peaks/peak_table.hpp"

namespace bslz4::tool {

struct PeaksFileInfo {
    std::string command_line, sparse_file, dataset_file, algorithm;
    std::optional<double> wtmax;
    bool overwrite = false;
    std::vector<std::string> inputs;  // files the run reads: refused as the output
};

// Checks that `path` may be written (before the work starts).
void check_peaks_output(const std::string& path, const PeaksFileInfo& info);
void write_peaks_file(const std::string& path, const peaks::PeakTable& table, const PeaksFileInfo& info);

}  // namespace bslz4::tool
