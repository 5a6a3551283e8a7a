#include "label_overlaps.hpp"

#include <algorithm>

namespace bslz4::tool::peaks {

void OverlapFinder::find(const SparseFrame& a, const std::int32_t* la, const SparseFrame& b, const std::int32_t* lb,
                         std::vector<Overlap>& out) {
    out.clear();
    pairs_.clear();
    // The merge steps past the smaller key (both when equal) by arithmetic, not by a branch:
    // whether a pixel is in both frames is as good as random, and the branches' mispredictions
    // cost a GPU job 1.9 ms of a dense batch's 7.4 ms of peak work on its decoder thread (H200
    // host); on the 2-core test host a batch of 64 frames of 7,700 pixels paired in 5.2 ms, not 8.4.
    std::size_t p = 0, q = 0;
    while (p < a.n && q < b.n) {
        const std::uint32_t ka = (std::uint32_t{a.row[p]} << 16) | a.col[p], kb = (std::uint32_t{b.row[q]} << 16) | b.col[q];
        if (ka == kb && la[p] > 0 && lb[q] > 0) pairs_.push_back((std::uint64_t(std::uint32_t(la[p])) << 32) | std::uint32_t(lb[q]));
        p += ka <= kb;
        q += kb <= ka;
    }
    std::sort(pairs_.begin(), pairs_.end());
    for (std::size_t i = 0; i < pairs_.size();) {
        std::size_t j = i;
        while (j < pairs_.size() && pairs_[j] == pairs_[i]) ++j;
        out.push_back({std::int32_t(pairs_[i] >> 32), std::int32_t(pairs_[i] & 0xFFFFFFFFu), std::int32_t(j - i)});
        i = j;
    }
}

}  // namespace bslz4::tool::peaks
