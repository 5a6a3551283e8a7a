#include "label_overlaps.hpp"

#include <algorithm>

namespace bslz4::tool::peaks {

void OverlapFinder::find(const SparseFrame& a, const std::int32_t* la, const SparseFrame& b, const std::int32_t* lb,
                         std::vector<Overlap>& out) {
    out.clear();
    pairs_.clear();
    std::size_t p = 0, q = 0;
    while (p < a.n && q < b.n) {
        const std::uint32_t ka = (std::uint32_t{a.row[p]} << 16) | a.col[p], kb = (std::uint32_t{b.row[q]} << 16) | b.col[q];
        if (ka < kb) {
            ++p;
        } else if (kb < ka) {
            ++q;
        } else {
            if (la[p] > 0 && lb[q] > 0) pairs_.push_back((std::uint64_t(std::uint32_t(la[p])) << 32) | std::uint32_t(lb[q]));
            ++p;
            ++q;
        }
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
