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
};

struct SparseSummary {
    std::size_t frames = 0, pixels = 0;
    double decoded_bytes = 0, seconds = 0;
    bool interrupted = false;
    std::string decoder;  // "GPU 0 (NVIDIA H200)" or "CPU (16 threads)"
};

// Stops after the batch in hand when `stop` becomes true (the file then holds what was done).
SparseSummary run_sparse_job(const SparseJob& job, const std::atomic<bool>& stop);

}  // namespace bslz4::tool
