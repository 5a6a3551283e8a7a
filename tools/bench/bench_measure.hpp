// What the bench's figures are made of: a rate measured by repeating a step for a time, the
// powders it measures, and the GPU figures the profile table prints.
#pragma once
#include <chrono>
#include <cstddef>
#include <limits>
#include <string>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::tool {

using Clock = std::chrono::steady_clock;

struct Rate {
    double frames_per_s, gb_per_s, pixels_per_frame;
};

// Repeats step() (which decodes `per_step` frames) until `seconds` have passed.
template <class Step>
Rate measure(double seconds, std::size_t per_step, std::size_t frame_bytes, Step&& step) {
    step();  // warm-up: buffers, pages, thread start
    std::size_t frames = 0, pixels = 0;
    const auto t0 = Clock::now();
    double elapsed = 0;
    do {
        pixels += step();
        frames += per_step;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    } while (elapsed < seconds);
    return {frames / elapsed, frames * static_cast<double>(frame_bytes) / elapsed / 1e9,
            static_cast<double>(pixels) / frames};
}

inline std::size_t total_pixels(const SparseBatch& b) {
    std::size_t px = 0;
    for (std::size_t f = 0; f < b.nframes; ++f) px += b.npixels[f];
    return px;
}

inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A powder the bench measures: its matrix, and the CPU's rate with it on all cores.
struct PowderCase {
    std::size_t bins, azim;
    IntegrationMatrix matrix;
    Rate cpu;

    std::string name() const {
        return azim > 1 ? std::to_string(bins) + " x " + std::to_string(azim) + " bins" : std::to_string(bins) + " bins";
    }
};

constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

// frames/s of (a) chunks on the device, (b) from pinned, (c) from pageable host memory.
struct GpuFigures {
    double a = kNotMeasured, b = kNotMeasured, c = kNotMeasured;
};

}  // namespace bslz4::tool
