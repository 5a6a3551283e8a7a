// ImageD11's pixels_in_spot rule stated plainly, for the tests of tools/connected_pixels and
// `bslz4 sparse --pixels-in-spot`: the listed pixels are laid out on the whole frame; those whose
// value as float32 is above 0 are grouped by a flood fill over their 8 neighbours, the listed
// others form one group together; a pixel is kept when its group has at least k pixels (k <= 1:
// every pixel).
#pragma once
#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

namespace bslz4::test {

// One frame's list: row-major, ascending; values of type T as bytes.
struct PixelList {
    std::vector<std::uint16_t> row, col;
    std::vector<std::uint8_t> values;
    std::size_t size() const { return row.size(); }
};

template <class T>
T value_at(const std::vector<std::uint8_t>& bytes, std::size_t i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
    return v;
}

template <class T>
PixelList reference_spots(const PixelList& all, std::size_t ni, std::size_t nj, std::size_t k) {
    if (k <= 1) return all;
    std::vector<int> state(ni * nj, 0);  // 0 not listed, 1 listed, 2 listed and joinable
    std::size_t loose = 0;
    for (std::size_t p = 0; p < all.size(); ++p) {
        const bool joinable = static_cast<float>(value_at<T>(all.values, p)) > 0.0f;
        state[all.row[p] * nj + all.col[p]] = joinable ? 2 : 1;
        loose += !joinable;
    }
    std::vector<std::size_t> group(ni * nj, 0), size(1, 0);
    for (std::size_t start = 0; start < ni * nj; ++start) {
        if (state[start] != 2 || group[start]) continue;
        size.push_back(0);
        std::deque<std::size_t> todo{start};
        group[start] = size.size() - 1;
        while (!todo.empty()) {
            const std::size_t p = todo.front();
            todo.pop_front();
            ++size.back();
            const long r = static_cast<long>(p / nj), c = static_cast<long>(p % nj);
            for (long dr = -1; dr <= 1; ++dr)
                for (long dc = -1; dc <= 1; ++dc) {
                    const long rr = r + dr, cc = c + dc;
                    if (rr < 0 || cc < 0 || rr >= static_cast<long>(ni) || cc >= static_cast<long>(nj)) continue;
                    const std::size_t q = static_cast<std::size_t>(rr) * nj + static_cast<std::size_t>(cc);
                    if (state[q] == 2 && !group[q]) {
                        group[q] = group[start];
                        todo.push_back(q);
                    }
                }
        }
    }
    PixelList kept;
    for (std::size_t p = 0; p < all.size(); ++p) {
        const std::size_t i = all.row[p] * nj + all.col[p];
        if ((state[i] == 2 ? size[group[i]] : loose) < k) continue;
        kept.row.push_back(all.row[p]);
        kept.col.push_back(all.col[p]);
        kept.values.insert(kept.values.end(), all.values.begin() + p * sizeof(T), all.values.begin() + (p + 1) * sizeof(T));
    }
    return kept;
}

}  // namespace bslz4::test
