// One frame's listed pixels as ImageD11 holds them (sparseframe.SparseScan): row and col
// (uint16), the intensity as float32, in row-major order, each pixel at most once. A pixel not
// listed is absent, not a zero: the labelling and overlap rules below look only at listed ones.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace bslz4::tool::peaks {

struct SparseFrame {
    const std::uint16_t* row = nullptr;
    const std::uint16_t* col = nullptr;
    const float* value = nullptr;
    std::size_t n = 0;
};

// Refuses (bad_argument, naming `what` and the first pixel out of place) a frame whose pixels are
// not strictly increasing in (row, col), or lie outside rows x cols: every rule below walks the
// list in that order, and ImageD11's own code assumes it without checking.
// With values, refuses one that is not finite too: no rule below can order or weigh it.
void check_frame(const SparseFrame& frame, std::size_t rows, std::size_t cols, const std::string& what);

}  // namespace bslz4::tool::peaks
