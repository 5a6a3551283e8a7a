#include "sparse/sparse_job.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bslz4/error.hpp"
#include "cli/device_list.hpp"
#include "cli/frame_selection.hpp"
#include "cli/progress.hpp"
#include "hdf5/chunk_index.hpp"
#include "hdf5/hdf5_file.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/sparse_output.hpp"
#include "sparse/batch_decoder.hpp"
#include "sparse/batch_reader.hpp"
#include "sparse/connected_pixels.hpp"
#include "sparse/job_decoders.hpp"
#include "sparse/job_files.hpp"
#include "sparse/list_peaks.hpp"
#include "sparse/ordered_decoding.hpp"
#include "sparse/output_file.hpp"
#include "sparse/output_writer.hpp"
#include "sparse/sparse_run.hpp"

namespace bslz4::tool {

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

constexpr std::size_t kWritesQueued = 4;

}  // namespace

SparseSummary SparseRun::run() {
    if (!std::isfinite(job_.cut))
        throw Error(ErrorCode::bad_argument, "the cut is " + std::to_string(job_.cut) + "; a finite number is expected");
    open_inputs();
    read_indexes();
    start_reading();
    read_matrix();
    open_output();
    decode_parts();
    summary_.decoded_bytes = static_cast<double>(summary_.frames) * scan_.ni * scan_.nj * pixel_size(scan_.type);
    times_.steady = times_.loop - times_.first_batch;
    return summary_;
}

// The scan, its mask and the output's description; where the job decodes, whose decoders start
// being made on threads of their own.
void SparseRun::open_inputs() {
    const auto t0 = Clock::now();
    const bool other_mask = job_.no_mask || !job_.mask_spec.empty() || !job_.use_mask_spec.empty();
    scan_ = open_scan(job_.input, job_.dataset, other_mask ? NexusMask::skip : NexusMask::read);
    reads_ = scan_.files_read;
    use_ = choose_mask(job_, scan_, info_.mask_source, reads_);
    summary_.mask_source = info_.mask_source;
    summary_.frame_pixels = use_.size();
    summary_.masked_pixels = static_cast<std::size_t>(std::count(use_.begin(), use_.end(), std::uint8_t{0}));
    if (summary_.masked_pixels * 2 > use_.size() && job_.notices)
        std::fprintf(job_.notices, "bslz4: warning: %s\n", mask_warning(job_, summary_).c_str());
    summary_.unmasked = info_.mask_source.rfind("none", 0) == 0;
    if (summary_.unmasked && !job_.no_mask) summary_.mask_looked_for = scan_.mask_looked_for;
    if (!job_.matrix_spec.empty()) note_file_at(reads_, parse_matrix_spec(job_.matrix_spec).file, "--matrix file");
    const FrameRange selected = resolve_frames(parse_frame_selection(job_.frames_spec), scan_.frames);
    first_frame_ = selected.first;
    end_frame_ = selected.end;
    describe_output();
    if (job_.reader_threads > 16)
        throw Error(ErrorCode::bad_argument, "reader threads: " + std::to_string(job_.reader_threads) + "; from 1 to 16");
    where_ = place(job_, scan_);
    times_.open = seconds_since(t0);
    making_.emplace(job_, scan_, use_, where_);
    if (job_.matrix_spec.empty()) making_->matrix_ready(nullptr);  // nothing for the decoders to wait for
}

void SparseRun::describe_output() {
    info_.command_line = job_.command_line;
    info_.input_file = job_.input;
    info_.cut = job_.cut;
    info_.ni = scan_.ni;
    info_.nj = scan_.nj;
    info_.type = scan_.type;
    // One group for the scan at its own path (an Eiger master's data_NNNNNN together at
    // /entry/data/data), or with --per-file a group for each input dataset at its own path.
    info_.per_file = job_.per_file;
    info_.scan_path = scan_.datasets.size() == 1 && !scan_.eiger_master ? scan_.datasets[0].path : "/entry/data/data";
    info_.scan_frames = end_frame_ - first_frame_;
    info_.compression = job_.compression;
    info_.overwrite = job_.overwrite;
    if (job_.peaks) {
        info_.peaks_algorithm = peaks::algorithm_name(job_.peaks->algorithm);
        info_.peaks_wtmax = job_.peaks->wtmax;
    }
}

// Every dataset's chunk index first (HDF5 reads its metadata; the chunks are read by position),
// then one ring sized for the largest batch of any of them.
void SparseRun::read_indexes() {
    const auto t0 = Clock::now();
    try {
        for (std::size_t d = 0, offset = 0; d < scan_.datasets.size(); offset += scan_.datasets[d].frames, ++d) {
            const std::size_t first = std::max(first_frame_, offset) - offset;
            const std::size_t end = std::min(end_frame_, offset + scan_.datasets[d].frames);
            if (end <= offset || first >= end - offset) continue;
            Part p{d, first, end - offset,
                   read_chunk_index(scan_.datasets[d].dataset.get(), first, end - offset, scan_.file_name + ":" + scan_.datasets[d].path,
                                    scan_.largest_chunk, job_.per_chunk_index_limit)};
            slot_bytes_ = std::max(slot_bytes_, largest_batch_bytes(p.index, kBatchFrames));
            for (const ChunkLocation& c : p.index.chunks) summary_.frames_through_hdf5 += !p.index.sources[c.source].by_position;
            parts_.push_back(std::move(p));
        }
    } catch (...) {
        making_->index_failed(std::current_exception());  // the decoders' threads stop waiting
        throw;
    }
    making_->index_read(slot_bytes_);
    times_.index = seconds_since(t0);
}

// Each decoder holds a batch and has the next one ready; the readers fill the rest. A decoder
// added for labelling peaks holds one slot only: its thread labels after giving its batch's slot
// back. A slot is 70 MB of pinned memory a dense Eiger 4M batch, 16 ms of a reader's time to make
// and 1.4 ms to give back (H200 host). The first part's readers start now, so that the matrix's
// read and the decoders' making are hidden behind its first batches' reads.
void SparseRun::start_reading() {
    const std::size_t decoders = where_.decoders.size();
    readers_ = job_.reader_threads ? job_.reader_threads
               : where_.gpu        ? static_cast<unsigned>(std::min<std::size_t>(16, 2 + 2 * where_.devices.size()))
                                   : 2;
    summary_.reader_threads = readers_;
    summary_.decoder_threads = static_cast<unsigned>(decoders);
    ring_.emplace(readers_ + 2 * decoders - where_.labelling_decoders, slot_bytes_, slot_memory(job_, where_));
    summary_.ring_slots = static_cast<unsigned>(ring_->slots());
    reading_start_ = Clock::now();
    if (!parts_.empty()) first_reader_.emplace(parts_.front().index, *ring_, kBatchFrames, readers_);
}

// Read once the first batches are being read: an Eiger 4M matrix takes about 0.1 s to read and
// check, which the scan's reads then hide (the decoders wait for it). From here the readers may
// read chunks through HDF5 (see BatchReader): the file's read holds its lock too, the work on
// what was read does not.
void SparseRun::read_matrix() {
    if (job_.matrix_spec.empty()) return;
    const auto t0 = Clock::now();
    try {
        const std::size_t frame_pixels = scan_.ni * scan_.nj;
        if (job_.matrix_read && job_.matrix_read->matrix.pixels == frame_pixels) {
            matrix_file_ = job_.matrix_read;
        } else {  // read here, which names the misfit
            const h5::Lock lock;
            matrix_file_ = std::make_shared<const MatrixFile>(read_matrix_file(job_.matrix_spec, frame_pixels));
        }
        const MatrixFile& file = *matrix_file_;
        if (file.axes.present()) {  // bslz4-matrix's: pyFAI's intensities beside the sums, with this job's mask
            info_.normalisation = bin_normalisation(file.matrix, file.axes.correction, use_);
            info_.axes = file.axes;
            info_.axes.correction = {};
        }
        if (job_.acc == Accumulator::i64) fixed_ = fixed_point_matrix(file.matrix, scan_.type);
        matrix_used_ = job_.acc == Accumulator::i64 ? &fixed_ : &file.matrix;
        info_.bins = matrix_used_->bins;
        info_.acc = job_.acc;
        info_.powder_scale = matrix_used_->fixed_point() ? matrix_used_->powder_scale : 1;
    } catch (...) {
        making_->matrix_failed(std::current_exception());
        throw;
    }
    making_->matrix_ready(matrix_used_);
    times_.matrix = seconds_since(t0);
}

void SparseRun::open_output() {
    refuse_output_over_reads(job_, reads_);
    for (const std::string& line : remove_stale_temporaries(output_target(job_.output, true).target))
        if (job_.notices) std::fprintf(job_.notices, "bslz4: %s\n", line.c_str());
    const h5::Lock lock;
    out_ = std::make_unique<SparseOutput>(job_.output, info_);
}

// A run that fails part way keeps what it wrote apart from the output (keep_incomplete), and its
// error says where.
std::string SparseRun::keep_what_was_written(const std::string& why) {
    first_reader_.reset();  // its threads may call HDF5, which the output's close below does too
    try {
        if (writer_) writer_->finish();  // the batches handed over before the fault are kept too
    } catch (...) {
        // the writer's own failure: the output marked itself damaged, and is not kept
    }
    writer_.reset();  // its thread stops before the file is closed
    const std::string kept = out_->keep_incomplete();
    return kept.empty() ? why : why + "; the frames written before it are kept in " + kept + " (readable; complete = 0)";
}

void SparseRun::decode_parts() {
    bool finishing = false;
    try {
        writer_ = std::make_unique<OutputWriter>(*out_, kWritesQueued);
        prepare_loop();
        for (const Part& p : parts_)
            if (!run_part(p)) break;
        take_decoders();  // a job of no frames still says what it would have run on
        finish(finishing);
    } catch (const Error& e) {
        if (finishing) throw;  // the output's own failure: nothing could be kept
        throw Error(e.code(), keep_what_was_written(e.what()));
    } catch (...) {
        if (!finishing) keep_what_was_written("");
        throw;
    }
}

void SparseRun::prepare_loop() {
    const std::size_t decoders = where_.decoders.size();
    frames_by_.assign(decoders, 0);
    decoding_by_.assign(decoders, 0);
    peaks_by_.assign(decoders, 0);
    // On the collector's thread, which otherwise waits for the decoders: the filter costs the
    // job nothing while it is faster than they are.
    spots_.emplace(job_.pixels_in_spot, scan_.type, scan_.nj);
    // On GPUs each frame's peaks are labelled on its decoder's thread (a labeller each, on the
    // decoder's GPU), beside the decoding, unless the spot filter must cut the lists first, and
    // so are the overlaps of a batch's frames with each other; those of a batch's first frame
    // with the batch before, on the collector (in the batches' order). On the CPU all of it is
    // on the collector: the CPU decoder's one thread drives all the cores, and labelling
    // there held it up (H200 host, dense: 0.50 x the job without peaks, 0.66 on the collector).
    const bool decoders_label = decoders_label_peaks(job_, where_.gpu);
    // The collector's labeller is on the GPU only where it labels: one needs a module of its own.
    if (job_.peaks)
        peaks_.emplace(*job_.peaks, scan_.type, scan_.ni, scan_.nj, job_.peak_threads,
                       where_.gpu && !decoders_label ? where_.devices[0] : -1);
    // Made side by side while the first batches are read (each loads the kernels: some 10 ms).
    if (decoders_label)
        for (const int device : where_.decoders)
            decoder_peaks_made_.push_back(std::async(std::launch::async, [this, device] {
                return std::make_unique<ListPeaks>(*job_.peaks, scan_.type, scan_.ni, scan_.nj, job_.peak_threads, device);
            }));
    progress_.emplace(end_frame_ - first_frame_, job_.quiet);
}

// Taken once the first part's readers have started, so its first batches are read while the
// decoders are finished.
void SparseRun::take_decoders() {
    if (!batches_.empty()) return;
    const auto w0 = Clock::now();
    made_ = making_->get();
    for (auto& made : decoder_peaks_made_) decoder_peaks_.push_back(made.get());
    times_.decoders_wait = seconds_since(w0);
    times_.decoders = making_->seconds();
    summary_.decoder = where_.gpu ? describe_devices(where_.devices) : made_[0]->name();
    for (const auto& d : made_) batches_.push_back(std::make_unique<BatchDecoder>(job_, scan_, use_, matrix_used_, *d));
}

// One part through the conveyor; false when the run was stopped.
bool SparseRun::run_part(const Part& p) {
    const bool front = &p == &parts_.front();
    writer_->begin_group(scan_.datasets[p.d].path, p.end - p.first);
    if (peaks_ && (job_.per_file || front)) peaks_->begin_group();
    PowderTarget powders;
    if (info_.bins) {
        // The decoders write the part's powders where its group keeps them: once the writer has
        // made the group (a few batches' lists queued before it; a scan's group is made once).
        writer_->finish();
        powders = {out_->powders(), out_->frames_in_group(), p.first};
    }
    const auto part_start = front ? reading_start_ : Clock::now();
    std::optional<BatchReader> next_reader;
    BatchReader& reader = front ? *first_reader_ : next_reader.emplace(p.index, *ring_, kBatchFrames, readers_);
    take_decoders();
    bool first = true;
    const DecodeBatch decode_one = [&](const ReadBatch& batch, std::size_t k) { return decode(p, batch, k, powders); };
    const SinkRows sink = [&](OutputRows&& rows) {
        if (first) {
            times_.first_batch += seconds_since(part_start);
            times_.first_frames += rows.frames();
            first = false;
        }
        return hand_on(p, std::move(rows));
    };
    const FinishRows label_one = [&](OutputRows& rows, std::size_t first_frame, std::size_t k) { label(rows, first_frame, k); };
    summary_.interrupted = !decode_in_order(reader, where_.decoders.size(), ring_->slots(), decode_one, sink,
                                            decoder_peaks_.empty() ? FinishRows{} : label_one);
    times_.reading += reader.reading_seconds();
    if (front) first_reader_.reset();  // its threads end before the next part's read the ring
    times_.loop += seconds_since(part_start);
    writer_->close_group(!summary_.interrupted);
    return !summary_.interrupted;
}

// On decoder k's thread.
OutputRows SparseRun::decode(const Part& p, const ReadBatch& batch, std::size_t k, const PowderTarget& powders) {
    const auto d0 = Clock::now();
    OutputRows rows = batches_[k]->decode(batch, p.d, powders);
    frames_by_[k] += rows.frames();  // only decoder k's thread writes here
    decoding_by_[k] += seconds_since(d0);
    return rows;
}

// On decoder k's thread after decode(), the batch's slot given back: its peaks, when the
// decoders label them.
void SparseRun::label(OutputRows& rows, std::size_t first_frame, std::size_t k) {
    const auto l0 = Clock::now();
    decoder_peaks_[k]->label_frames(rows, first_frame);
    decoder_peaks_[k]->pair_within(rows);
    peaks_by_[k] += seconds_since(l0);
}

// On the collector's thread, in frame order: spots, peaks, counts, then the writer.
bool SparseRun::hand_on(const Part& p, OutputRows&& rows) {
    const auto h0 = Clock::now();
    if (spots_->active()) summary_.pixels_not_in_spots += keep_pixels_in_spots(*spots_, rows);
    if (peaks_) {
        const auto l0 = Clock::now();
        if (decoder_peaks_.empty())
            peaks_->label(rows, summary_.frames);
        else
            peaks_->pair_across(rows);
        summary_.peaks += rows.peak_props.size() / 5;
        summary_.peak_pairs += rows.peak_pairs.size() / 5;
        times_.peaks += seconds_since(l0);
    }
    summary_.pixels += rows.pixels();
    summary_.frames += rows.frames();
    summary_.bad_frames += rows.bad.size();
    for (const FrameError& e : rows.bad)
        if (summary_.first_bad.size() < SparseSummary::kFirstBadKept) summary_.first_bad.push_back({scan_.datasets[p.d].path, e});
    writer_->append(std::move(rows));
    progress_->update(summary_.frames);
    if (job_.on_batch) job_.on_batch(summary_.frames, end_frame_ - first_frame_);
    times_.handing += seconds_since(h0);
    return !stop_;
}

// The loop's counts, then the writer's last writes and the file closed and renamed into place
// (kept apart as OUTPUT.incomplete when the run was stopped). `finishing` is set once a failure
// could only be the output's own.
void SparseRun::finish(bool& finishing) {
    times_.slot_memory = ring_->making_seconds();
    if (where_.gpu) {
        summary_.frames_per_gpu.assign(where_.devices.size(), 0);
        for (std::size_t k = 0; k < frames_by_.size(); ++k) summary_.frames_per_gpu[k % where_.devices.size()] += frames_by_[k];
    }
    for (double s : decoding_by_) times_.decoding += s;
    for (double s : peaks_by_) times_.peaks += s;
    times_.writing = writer_->writing_seconds();  // before the last writes: the loop's share
    const auto t0 = Clock::now();
    writer_->finish();
    writer_.reset();
    finishing = true;
    if (summary_.interrupted)
        summary_.incomplete_output = out_->keep_incomplete();
    else
        out_->finish();  // closes the file and renames it into place
    times_.finish = seconds_since(t0);
    progress_->finish();
    summary_.seconds = seconds_since(reading_start_);
}

double SparseSummary::steady_frames_per_s() const {
    return times.steady > 0 && frames > times.first_frames ? (frames - times.first_frames) / times.steady : 0;
}

// The run's decoders, labellers and ring are given back when it goes, timed: GPU buffers freed
// and pinned memory unpinned, 0.02-0.08 s of the whole call (H200 host, dense 2,000-frame scan;
// freed side by side, a thread each, they took as long: the driver frees one at a time).
SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop) {
    auto run = std::make_unique<SparseRun>(job, stop);
    SparseSummary summary = run->run();
    const auto t0 = Clock::now();
    run.reset();
    summary.times.release = seconds_since(t0);
    return summary;
}

}  // namespace bslz4::tool
