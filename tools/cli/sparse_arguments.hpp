// bslz4 sparse's command line read into a SparseJob: the refusals that need no file, then the
// options in the job's terms (cmd_sparse runs it).
#pragma once
#include <optional>

#include "cli/command_line.hpp"
#include "hdf5/imaged11_dataset.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// The refusals that need no file: what was given with what, before anything is read.
void check_usage(const Arguments& args, bool imaged11, bool campaign);
// The input side of the job: dataset, output, cut, mask, matrix, accumulator, frames, device.
void read_job_inputs(const Arguments& args, SparseJob& job);
// The output side: what is listed and how it is written and reported. segmenter_defaults: the
// thresholds may come without --howmany (--imaged11, --preset).
void read_list_options(const Arguments& args, bool segmenter_defaults, SparseJob& job);
// --imaged11's dataset file's segmenter options and --preset's defaults, each given on the
// command line taking its place. Returns the dataset file read (--imaged11), else nothing.
std::optional<ImageD11Dataset> apply_segmenter_defaults(const Arguments& args, bool segmenter_defaults, SparseJob& job);

}  // namespace bslz4::tool
