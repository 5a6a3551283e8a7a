// ImageD11's segmenter's pixels_in_spot (lima_segmenter.clean with sparseframe's
// sparse_connected_pixels, threshold 0): the pixels of a frame's list that lie in 8-connected
// groups of fewer than K listed pixels are dropped. Runs on the host on lists already made
// (after top pixels, as in the segmenter), in time linear in the pixels: one sweep down the
// list keeps the labels of the row above and of this row in two arrays a row wide, so each
// pixel finds its four earlier neighbours (left, above-left, above, above-right) by column and
// joins their group (union-find); a second pass counts each group. Two pixels touch when their
// rows and their columns each differ by at most 1 (a row's last column does not touch the next
// row's first).
//
// As in ImageD11, only pixels whose value, as float32, is above 0 are joined into groups; the
// others (possible only with a cut below 0, or float64 values under float32's smallest) all
// count as one group together, kept when there are at least K of them.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/pixel_type.hpp"

namespace bslz4::tool {

class SpotFilter {
public:
    // Frames of `columns` columns; min_pixels <= 1 keeps every pixel (as the segmenter does).
    SpotFilter(std::size_t min_pixels, PixelType type, std::size_t columns);

    bool active() const { return min_pixels_ > 1; }

    // One frame of n listed pixels (row-major, ascending, each once: else an Error naming the
    // pixel): row[k], col[k] and the value at values + k * pixel size. The pixels kept are
    // written in order to out_row, out_col and out_values, which may be the input arrays
    // themselves or start before them (each pixel is read before anything is written over
    // it). Returns how many were kept.
    std::size_t keep(const std::uint16_t* row, const std::uint16_t* col, const std::uint8_t* values, std::size_t n,
                     std::uint16_t* out_row, std::uint16_t* out_col, std::uint8_t* out_values);

private:
    // Sets joinable_ and parent_ for every pixel; returns how many do not join.
    template <class T>
    std::size_t join(const std::uint16_t* row, const std::uint16_t* col, const std::uint8_t* values, std::size_t n);
    std::uint32_t find(std::uint32_t x);
    void unite(std::uint32_t a, std::uint32_t b);

    std::size_t min_pixels_;
    PixelType type_;
    std::size_t columns_;
    // Per pixel of the frame, reused frame to frame: its parent in the union-find (the root of
    // a group is its first pixel in the list), the size of the group it roots, whether it joins.
    std::vector<std::uint32_t> parent_, count_;
    std::vector<std::uint8_t> joinable_;
    // The row above and this row by column + 1 (a blank column each side): 1 + the pixel there,
    // 0 where none (or one that does not join).
    std::vector<std::uint32_t> above_, here_;
};

}  // namespace bslz4::tool
