// One batch of the ring decoded into the output's rows, in frame order: bitshuffle chunks by the
// job's decoder from the ring's buffer, raw chunks (filter skipped) listed on the host. With
// job.on_error = report, a frame that cannot be decoded is a bad frame of the rows (nnz 0, listed
// in bad_frames), numbered in the input dataset; else its error stops the scan. With a matrix,
// the batch's powders are written into the output file here, on the decoder's thread, where the
// group keeps them (a bad frame's row zero), not handed on with the rows.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hdf5/group_powders.hpp"
#include "hdf5/scan_input.hpp"
#include "sparse/batch_reader.hpp"
#include "sparse/connected_pixels.hpp"
#include "sparse/job_decoders.hpp"
#include "sparse/output_rows.hpp"
#include "sparse/sparse_job.hpp"

namespace bslz4::tool {

// Where a part's powders go: frame `dataset_frame` of its input dataset is row `row` of its
// group's powders (null without a matrix).
struct PowderTarget {
    const GroupPowders* powders = nullptr;
    std::size_t row = 0, dataset_frame = 0;
};

class BatchDecoder {
public:
    BatchDecoder(const SparseJob& job, const ScanInput& scan, const std::vector<std::uint8_t>& use, const IntegrationMatrix* matrix,
                 ChunkDecoder& decoder)
        : job_(job), scan_(scan), use_(use), matrix_(matrix), decoder_(decoder) {}
    // Batch `batch` of input dataset d, its powders written to `to`.
    OutputRows decode(const ReadBatch& batch, std::size_t d, const PowderTarget& to);

private:
    const SparseJob& job_;
    const ScanInput& scan_;
    const std::vector<std::uint8_t>& use_;
    const IntegrationMatrix* matrix_;
    ChunkDecoder& decoder_;
    std::unique_ptr<DenseLister> dense_;  // made at the first raw chunk
};

// Each frame's list cut down to its pixels in spots, moved up over what was dropped before it;
// returns how many pixels were dropped.
std::size_t keep_pixels_in_spots(SpotFilter& spots, OutputRows& rows);

}  // namespace bslz4::tool
