// The work of `bslz4 sparse` (and of the demo), apart from its command line: open the scan,
// choose the mask, the matrix and the decoder, then read, decode and write batch by batch.
#pragma once
#include <atomic>
#include <cstddef>
#include <string>

#include "bslz4/powder.hpp"

namespace bslz4::tool {

struct SparseJob {
    enum class Where { any, cpu, gpu };
    std::string input, dataset, output;
    double cut = 0;
    std::string mask_spec;    // FILE:PATH, NeXus convention
    bool no_mask = false;
    std::string matrix_spec;  // FILE:GROUP
    Accumulator acc = Accumulator::f64;
    std::string frames_spec;  // A:B
    Where where = Where::any;
    int device = 0;
    bool quiet = false;
    std::string command_line;
    unsigned reader_threads = 2;  // positional reads of chunks at once (1 to 16)
    // Datasets longer than this are read through HDF5 where it cannot list chunks in one pass
    // (see hdf5/chunk_index.hpp): indexing them chunk by chunk would cost n^2 / 2 steps.
    std::size_t per_chunk_index_limit = 8192;
};

struct SparseSummary {
    std::size_t frames = 0, pixels = 0;
    double decoded_bytes = 0, seconds = 0;
    bool interrupted = false;
    std::string decoder;  // "GPU 0 (NVIDIA H200)" or "CPU (16 threads)"
};

// Chunks are read by job.reader_threads threads into a bounded ring of buffers (pinned on the
// GPU), decoded batch by batch in frame order, and written by a thread of their own. Stops after
// the batch in hand when `stop` becomes true (the file then holds what was done).
SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop);

}  // namespace bslz4::tool
