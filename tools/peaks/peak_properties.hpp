// The five properties ImageD11's properties step (ImageD11.sinograms.properties.props) keeps
// for each peak of a frame, as int64 columns: its pixels, the sum of its weights, and the sums of
// row x weight and col x weight, and the frame's id. A pixel's weight is its float32 intensity
// truncated to an integer (numpy's astype(int64)), clipped at wtmax when one is given; the sums
// are made in float64, pixel by pixel in list order, and truncated to int64 (numpy's bincount
// with weights), so that every value is ImageD11's own.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sparse_frame.hpp"

namespace bslz4::tool::peaks {

enum PeakColumn { kPixels = 0, kSum = 1, kSumRow = 2, kSumCol = 3, kFrame = 4 };
using PeakColumns = std::array<std::vector<std::int64_t>, 5>;

class PropertySums {
public:
    // Appends the `count` peaks of one frame (labels 1..count; 0 counts in none) to out, with
    // frame_id in the frame column. A peak whose weights sum below 1 is bad_argument naming
    // `what` and the peak, as ImageD11 refuses it ("bad data"); so is an intensity that no int64
    // holds (infinite, NaN or past 2^63).
    void add_frame(const SparseFrame& frame, const std::int32_t* labels, std::uint32_t count,
                   const std::optional<double>& wtmax, std::int64_t frame_id, PeakColumns& out, const std::string& what);

private:
    std::vector<std::int64_t> pixels_;
    std::vector<double> sum_, sum_row_, sum_col_;
};

}  // namespace bslz4::tool::peaks
