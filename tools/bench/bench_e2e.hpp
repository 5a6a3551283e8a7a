// `bslz4 bench --e2e`: what a user gets, not what the kernels can do. A scan written to a
// temporary directory is read as a file and run through the job of `bslz4 sparse` on the GPU and
// the CPU; one frame's latency is timed from host memory to lists on the host.
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "bench/eiger_stack.hpp"

namespace bslz4::tool {

struct EndToEndOptions {
    // Frames in the scan file (the stack's chunks cycled); 0: as many as make scan_bytes (at least
    // 1,000), so that every profile's file takes as long to read as a 2,000-frame dense Eiger 4M
    // scan (2.2 GB): on a sparse profile's 1,000 frames (13-40 ms to read) the whole call
    // measures the job's fixed costs (opening the file, making the GPU objects: about 30 ms on
    // the H200 host) more than its rate.
    std::size_t scan_frames = 0;
    double scan_bytes = 2.2e9;
    double cut = 10;
    double seconds = 2;              // the most time the latency calls take past their first 20
    bool gpu = true;                 // false: the CPU only (--cpu)
    std::vector<int> devices = {0};  // latency and the job on the first; with several, the job on all too
    // The GPU job's --matrix runs: (radial bins, azimuthal bins), as bench's --matrix-bins.
    std::vector<std::pair<std::size_t, std::size_t>> powders = {{2000, 1}, {1500, 72}};
    // Runs of each job in the comparison with peaks and without (--peak-rounds), medians compared.
    unsigned peak_rounds = 5;
};

// NaN where a figure was not measured (no GPU, no HDF5).
// A job's whole call is what a user waits for (open, index, decoder objects, buffers, the loop,
// the last writes and the close); its steady rate is the loop's after the first batch.
struct EndToEndFigures {
    double read_frames_per_s;
    double gpu_job_frames_per_s, gpu_job_steady_frames_per_s;    // one GPU: whole call, steady
    double gpus_job_frames_per_s, gpus_job_steady_frames_per_s;  // every GPU given (NaN with one)
    double cpu_job_frames_per_s, cpu_job_steady_frames_per_s;
    double gpu_latency_median_us, gpu_latency_p99_us, cpu_latency_median_us, cpu_latency_p99_us;
};

// Prints the section and returns its figures. The temporary files are removed afterwards.
EndToEndFigures bench_end_to_end(const EigerStack& stack, const EndToEndOptions& options);

}  // namespace bslz4::tool
