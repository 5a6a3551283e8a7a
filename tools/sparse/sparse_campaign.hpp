// `bslz4 sparse` over many scans (a campaign): the inputs from the command line or a list file,
// one output each in a folder, every N-th input for one shard of a job array, and a failed file
// reported without stopping the others. Also the guards and the error wording that a single
// run (-o FILE.h5) shares with it.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "cli/json_line.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// The paths in a list file, one a line; blank lines and lines whose first non-blank character
// is '#' are skipped, and blanks around a path are dropped. Unreadable or empty: UsageError. A
// list is bounded before it is read: a regular file or a pipe (not a device such as /dev/zero),
// lines of at most ListLimits::line bytes (PATH_MAX), at most ListLimits::bytes in all and
// ListLimits::inputs paths; past them, a UsageError naming the limit.
struct ListLimits {
    std::size_t line = 4096, bytes = std::size_t{256} << 20, inputs = 1000000;
};
std::vector<std::string> read_input_list(const std::string& list_file, const ListLimits& limits = {});

// --shard K/N: this task takes inputs K, K+N, K+2N... (0 <= K < N, decimal). Else UsageError.
struct Shard {
    std::size_t index = 0, count = 1;
    bool takes(std::size_t input) const { return input % count == index; }
};
Shard parse_shard(const std::string& spec);

// --on-error stop|skip: OnError::throw_first or OnError::report. Else UsageError.
OnError parse_on_error(const std::string& spec);

// DIR/NAME_sparse.h5 for .../NAME.EXT (the last extension dropped, if any).
std::string sparse_output_name(const std::string& input, const std::string& dir);

// The job's output would replace its input, mask or matrix file: UsageError, nothing touched.
void refuse_output_over_inputs(const SparseJob& job);

struct CampaignPlan {
    std::string dir;
    std::vector<std::string> inputs, outputs;  // outputs[i] is inputs[i]'s
};
// Outputs for the whole list, checked before any shard starts so that every shard agrees. Two
// inputs with one file name (the same path twice, or one name in two folders) would write one
// output: UsageError naming both; an output that is an input, or the options' mask or matrix
// file, as refuse_output_over_inputs.
CampaignPlan plan_campaign(const SparseJob& options, const std::vector<std::string>& inputs, const std::string& dir);
// The same checks for outputs named one by one (ImageD11's sparsefiles): outputs[i] is
// inputs[i]'s; each output's folder is made when its scan runs.
CampaignPlan plan_named_campaign(const SparseJob& options, const std::vector<std::string>& inputs,
                                 const std::vector<std::string>& outputs);

// A scan's error for its FAILED line: the job's errors mostly start with the input's path
// already, so the line names it once.
std::string scan_problem(const std::string& input, const std::string& what);
// "1600 frames/s" (0 for no time).
std::string frames_per_second(double frames, double seconds);

// run_sparse_job; its error also says what became of the output (left unchanged, not written).
SparseSummary run_sparse_file(const SparseJob& job, const std::atomic<bool>& stop);

// What an interrupted scan left: "OUT.incomplete holds the 64 frames done (readable; attribute
// complete = 0); OUT is left as it was" (or "is not written").
std::string interrupted_note(const SparseSummary& s, const SparseJob& job);

// A scan's summary line, after "OUTPUT: " (or "INPUT -> OUTPUT: "): "80 frames, 1234 pixels kept,
// 0.02 GB decoded, 0.05 s, 1600 frames/s on CPU (16 threads)", then what the reader should know:
// "; 345 pixels not in spots of 3 dropped", "; unmasked (the file has no pixel_mask: none at
// /entry/instrument/detector/pixel_mask)". The bad frames are bad_frames_summary's.
std::string scan_summary(const SparseSummary& s, const SparseJob& job);
// The same as one JSON object (for --json): "kind": "scan", input, output, status ("done" or
// "interrupted"), frames, pixels, pixels_not_in_spots, bad_frames, decoded_bytes, seconds,
// frames_per_s, decoder, mask, unmasked.
JsonLine scan_json(const SparseSummary& s, const SparseJob& job);
// A scan that failed, as a JSON object: "kind": "scan", input, output, "status": "failed", error.
JsonLine failed_scan_json(const SparseJob& job, const std::string& error);

// A scan's bad frames (--on-error skip) for its summary line: "3 bad frames (nnz 0, in
// bad_frames): /entry/data/data frame 0 (bad_lz4_sequence), ... and 1 more"; "" when none.
std::string bad_frames_summary(const SparseSummary& s);
// The first few bad frames' messages to `err`, as "bslz4: FILE:DATASET frame N: why" (the
// message --on-error stop would have ended with), and how many more are in `output`.
void report_bad_frames(const SparseSummary& s, const std::string& output, std::FILE* err);

struct CampaignReport {
    std::size_t done = 0, failed = 0, not_done = 0;  // this shard's inputs
    // With --resume (SparseJob::resume), the inputs whose output was finished already: not run,
    // counted apart from done.
    std::size_t done_before = 0;
    // Of those done, the outputs holding bad frames (--on-error skip): complete, but the exit
    // status says that something was wrong, as for a failed file.
    std::size_t with_bad_frames = 0;
    bool interrupted = false;
    int exit_code() const { return interrupted ? 130 : failed || with_bad_frames ? 1 : 0; }
};

// Runs this shard's inputs in list order with `options` (input and output set per file),
// creating the folder of the outputs if need be. A summary line per file and a total go to
// `out`; a failed file's "bslz4: FILE: problem", and when `stop` comes (checked between
// batches) the files not done, go to `err`. options.quiet: only the lines of files not done
// well (FAILED, INTERRUPTED, or with bad frames) and then the total go to `out`, nothing when
// every file was done. options.json: instead, a JSON object a line: each file's (scan_json,
// failed_scan_json, or "status": "not_done"), then "kind": "total" with the counts.
CampaignReport run_campaign(const SparseJob& options, const CampaignPlan& plan, Shard shard,
                            const std::atomic<bool>& stop, std::FILE* out, std::FILE* err);

}  // namespace bslz4::tool
