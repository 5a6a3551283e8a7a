// One run of bslz4 sparse's job (run_sparse_job), its state and its steps: the class behind
// sparse_job.cpp, declared apart so that each step reads as a method of at most a screen.
#pragma once
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/progress.hpp"
#include "hdf5/chunk_index.hpp"
#include "hdf5/matrix_file.hpp"
#include "hdf5/scan_input.hpp"
#include "hdf5/sparse_output.hpp"
#include "sparse/batch_decoder.hpp"
#include "sparse/batch_reader.hpp"
#include "sparse/connected_pixels.hpp"
#include "sparse/job_decoders.hpp"
#include "sparse/list_peaks.hpp"
#include "sparse/output_writer.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// Frames [first, end) of input dataset d, and their chunks.
struct Part {
    std::size_t d, first, end;
    ChunkIndex index;
};

// One run of the job, step by step: the scan and its mask opened and the output described, the
// decoders started, every dataset's chunk index read, the first part's reading started, the matrix
// read meanwhile, the output made, then the parts decoded batch by batch through the writer.
class SparseRun {
public:
    SparseRun(const SparseJob& job, const std::atomic<bool>& stop) : job_(job), stop_(stop), times_(summary_.times) {}
    SparseSummary run();

private:
    void open_inputs();
    void describe_output();
    void read_indexes();
    void start_reading();
    void read_matrix();
    void open_output();
    void decode_parts();
    void prepare_loop();
    void take_decoders();
    bool run_part(const Part& p);
    OutputRows decode(const Part& p, const ReadBatch& batch, std::size_t k, const PowderTarget& powders);
    void label(OutputRows& rows, std::size_t first_frame, std::size_t k);
    bool hand_on(const Part& p, OutputRows&& rows);
    void finish(bool& finishing);
    std::string keep_what_was_written(const std::string& why);

    const SparseJob& job_;
    const std::atomic<bool>& stop_;
    SparseSummary summary_;
    JobTimes& times_;
    ScanInput scan_;
    OutputInfo info_;
    std::vector<ScanInput::FileRead> reads_;
    std::vector<std::uint8_t> use_;
    std::size_t first_frame_ = 0, end_frame_ = 0;  // the frames selected, counted over the scan's datasets
    // The matrix as read (by this job, or once for a campaign's) and, for acc i64, its fixed-point
    // copy: matrix_used_ points at the one summed.
    std::shared_ptr<const MatrixFile> matrix_file_;
    IntegrationMatrix fixed_;
    const IntegrationMatrix* matrix_used_ = nullptr;
    Placement where_;
    std::optional<DecodersInTheMaking> making_;
    std::vector<Part> parts_;
    std::size_t slot_bytes_ = 0;
    unsigned readers_ = 0;
    std::optional<BufferRing> ring_;
    std::chrono::steady_clock::time_point reading_start_;
    std::optional<BatchReader> first_reader_;  // reads while the matrix is read
    std::unique_ptr<SparseOutput> out_;
    std::unique_ptr<OutputWriter> writer_;  // after out_: stops before it goes
    // The loop's: decoders (each batch decoder holds on to its decoder), peaks, spots, counts.
    std::vector<std::shared_ptr<ChunkDecoder>> made_;
    std::vector<std::unique_ptr<BatchDecoder>> batches_;
    std::optional<SpotFilter> spots_;
    std::optional<ListPeaks> peaks_;
    std::vector<std::unique_ptr<ListPeaks>> decoder_peaks_;
    std::vector<std::future<std::unique_ptr<ListPeaks>>> decoder_peaks_made_;  // taken with the decoders
    std::optional<Progress> progress_;
    std::vector<std::size_t> frames_by_;
    std::vector<double> decoding_by_, peaks_by_;
};

}  // namespace bslz4::tool
