// Which peaks of two frames share pixels (ImageD11's sparseframe.overlaps_linear, from
// sparse_image.c's sparse_overlaps and compress_duplicates): each pixel listed in both frames
// makes a pair (its label in the first, its label in the second); the distinct pairs, sorted by
// the first label then the second, with how many pixels each shares. Unlabelled pixels (0, which
// cplabel leaves below its threshold) join no pair: ImageD11 counts them as label 0 and then
// indexes the peak before the frame's first with it.
#pragma once
#include <cstdint>
#include <vector>

#include "sparse_frame.hpp"

namespace bslz4::tool::peaks {

struct Overlap {
    std::int32_t first, second, pixels;
};

class OverlapFinder {
public:
    // The overlaps of frames a and b (values unused), replacing out's contents.
    void find(const SparseFrame& a, const std::int32_t* labels_a, const SparseFrame& b, const std::int32_t* labels_b,
              std::vector<Overlap>& out);

private:
    std::vector<std::uint64_t> pairs_;
};

}  // namespace bslz4::tool::peaks
