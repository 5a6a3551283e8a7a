// ImageD11's two ways of cutting a frame's listed pixels into peaks (sparseframe.SparseScan's
// lmlabel and cplabel, as ImageD11.sinograms.properties calls them), to the bit:
//   lmlabel: the intensities are smoothed by [[1,2,1],[2,4,2],[1,2,1]] / 16 over the listed
//     pixels (float32, each product rounded before its sum, added in raster order: ImageD11's
//     sparse_smooth, whose rounding decides ties), then each pixel points to the largest
//     smoothed value of its 3x3 window (itself included; a tie goes to the first in raster
//     order), and follows the pointers up to a local maximum. The maxima are the peaks,
//     numbered 1.. in pixel order; every pixel gets one.
//   cplabel: pixels above 0 joined when 8-connected, numbered 1.. by each group's first pixel
//     (scipy.ndimage.label with a 3x3 structure); the others get 0.
// Time linear in the frame's pixels; a labeller keeps its scratch between frames.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sparse_frame.hpp"

namespace bslz4::tool::peaks {

enum class PeakAlgorithm { lmlabel, cplabel };

const char* algorithm_name(PeakAlgorithm a);
// "lmlabel" or "cplabel"; anything else is bad_argument naming both.
PeakAlgorithm parse_algorithm(const std::string& name);

class FrameLabeller {
public:
    // labels[k] for each of the frame's pixels (n of them); returns the number of peaks. The
    // frame must have passed check_frame, and its values be finite.
    std::uint32_t label(PeakAlgorithm algorithm, const SparseFrame& frame, std::int32_t* labels);

private:
    std::uint32_t local_maxima(const SparseFrame& frame, std::int32_t* labels);
    std::uint32_t connected(const SparseFrame& frame, std::int32_t* labels);
    std::uint32_t find(std::uint32_t x);

    std::vector<float> smoothed_;
    std::vector<std::uint32_t> link_;  // lmlabel: the pixel each points to; cplabel: union-find parents
    std::vector<std::uint32_t> chain_;
};

}  // namespace bslz4::tool::peaks
