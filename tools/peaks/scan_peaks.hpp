// One rotation row of a scan (an ImageD11 sparse file's scan group), its frames labelled, their
// peaks' properties, and the overlaps that join the peaks of neighbouring frames: those of the
// same row, taken in order of omega (ImageD11's pairrow), and each frame of a row with the
// frame of the row before whose omega, mod 360, is nearest within a tolerance (pairscans).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "frame_labels.hpp"
#include "peak_properties.hpp"
#include "sparse_frame.hpp"

namespace bslz4::tool::peaks {

struct PeakOptions {
    PeakAlgorithm algorithm = PeakAlgorithm::lmlabel;
    std::optional<double> wtmax;   // weights clipped here (ImageD11's wtmax)
    double omega_tolerance = 0.051;  // pairscans' omegatol
};

// A row's pixels as read: frame f is [first[f], first[f + 1]) of row, col and intensity.
struct ScanPixels {
    std::string name;           // for messages: "FILE:GROUP"
    std::size_t rows = 0, cols = 0;
    std::vector<std::uint64_t> first{0};
    std::vector<std::uint16_t> row, col;
    std::vector<float> intensity;
    std::vector<double> omega;  // one a frame
    // Labels already made with the options' algorithm (bslz4 sparse --peaks wrote them): a pixel's
    // peak in its frame and each frame's count; empty when the row is to be labelled here.
    std::vector<std::int32_t> labels;
    std::vector<std::uint32_t> nlabels;
    std::size_t frames() const { return first.size() - 1; }
};

struct LabelledScan {
    ScanPixels pixels;                       // its intensity dropped once the properties are made
    std::vector<std::int32_t> labels;        // a pixel's peak within its frame, 1.. (0: none)
    std::vector<std::uint32_t> nlabels;      // peaks a frame
    std::vector<std::uint64_t> peak_first;   // the row's peaks before frame f
    PeakColumns properties;                  // frame column: f + row_index x frames
    SparseFrame frame(std::size_t f) const;  // without values
    const std::int32_t* frame_labels(std::size_t f) const { return labels.data() + pixels.first[f]; }
    // Frees the pixels and labels, keeping the properties and counts.
    void release_pixels() {
        pixels = ScanPixels{};
        labels = std::vector<std::int32_t>();
    }
};

// Checks, labels (or takes and checks the labels given) and measures every frame of a row;
// errors name the row's group and frame.
LabelledScan label_scan(ScanPixels pixels, std::size_t row_index, const PeakOptions& options);

// Two peaks that share pixels, each counted within its row (peak_first[frame] + label - 1).
struct PeakEdge {
    std::uint32_t row_a, row_b;
    std::uint64_t peak_a, peak_b;
};

// The overlaps within a row, appended to edges; returns their number (ImageD11's N_pairs_ii).
std::uint64_t pairs_in_row(const LabelledScan& scan, std::uint32_t row_index, std::vector<PeakEdge>& edges);
// The overlaps of row `row_index` with the row before it; returns their number (N_pairs_ij).
std::uint64_t pairs_with_row_before(const LabelledScan& scan, const LabelledScan& before, std::uint32_t row_index,
                                    double omega_tolerance, std::vector<PeakEdge>& edges);

}  // namespace bslz4::tool::peaks
