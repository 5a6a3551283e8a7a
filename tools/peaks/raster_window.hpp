// The 3x3 window of each listed pixel of a frame: the listed pixels among its 8 neighbours and
// itself, in raster order (the row above left to right, then its own row, then the row below),
// which is the order in which ImageD11's sparse_image.c meets them walking the list. Found in
// time linear in the frame: the frame is walked once, with a cursor in the row above and one in
// the row below that only move forward, so a frame with every pixel listed costs no more per
// pixel than a sparse one (ImageD11's smoothing walks whole rows for each pixel).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sparse_frame.hpp"

namespace bslz4::tool::peaks {

class RasterWindows {
public:
    explicit RasterWindows(const SparseFrame& frame) : f_(frame) {}

    // The window of pixel k into out (indices into the frame), returning how many; k must run
    // 0, 1, ... n - 1 (each call may move the cursors on). self: where k itself is in out.
    unsigned window(std::size_t k, std::uint32_t out[9], unsigned& self);

private:
    // [first, end) of the row starting at pixel `first`.
    std::size_t row_end(std::size_t first) const;
    // Appends the pixels of [cursor, end) with col in [c - 1, c + 1], moving cursor past those
    // left of c - 1.
    void take(std::size_t& cursor, std::size_t end, long c, std::uint32_t* out, unsigned& n) const;

    const SparseFrame& f_;
    long row_ = -1;                    // the row of the pixels now walked
    std::size_t here_first_ = 0, here_end_ = 0;
    std::size_t above_ = 0, above_end_ = 0;  // cursor and end in the row above (empty: equal)
    std::size_t below_ = 0, below_end_ = 0;  // and in the row below
};

}  // namespace bslz4::tool::peaks
