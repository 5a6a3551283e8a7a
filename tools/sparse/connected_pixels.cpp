#include "sparse/connected_pixels.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "bslz4/error.hpp"

namespace bslz4::tool {

SpotFilter::SpotFilter(std::size_t min_pixels, PixelType type, std::size_t columns)
    : min_pixels_(min_pixels), type_(type), columns_(columns), above_(columns + 2, 0), here_(columns + 2, 0) {}

inline std::uint32_t SpotFilter::find(std::uint32_t x) {
    while (parent_[x] != x) {
        parent_[x] = parent_[parent_[x]];  // path halving
        x = parent_[x];
    }
    return x;
}

inline void SpotFilter::unite(std::uint32_t a, std::uint32_t b) {
    a = find(a);
    b = find(b);
    if (a < b)
        parent_[b] = a;
    else if (b < a)
        parent_[a] = b;
}

template <class T>
std::size_t SpotFilter::join(const std::uint16_t* row, const std::uint16_t* col, const std::uint8_t* values, std::size_t n) {
    std::size_t loose = 0;
    // Pixels [above_first, above_end) are the row above's, [here_first, k) this row's so far:
    // what the two arrays hold, cleared through these ranges when they go out of use.
    std::size_t above_first = 0, above_end = 0, here_first = 0;
    long current = -1, last_col = -1;
    auto clear = [&](std::vector<std::uint32_t>& labels, std::size_t first, std::size_t end) {
        for (std::size_t p = first; p < end; ++p) labels[col[p] + 1u] = 0;
    };
    // The arrays left clean for the next frame, the list refused.
    auto refuse = [&](const std::string& why) {
        std::fill(above_.begin(), above_.end(), 0);
        std::fill(here_.begin(), here_.end(), 0);
        throw Error(ErrorCode::bad_argument, "pixels in spot: " + why);
    };
    for (std::size_t k = 0; k < n; ++k) {
        const long r = row[k], c = col[k];
        if (r != current) {
            if (r < current)
                refuse("pixel " + std::to_string(k) + " (row " + std::to_string(r) + ") comes after row " + std::to_string(current) +
                       ": not in row-major order");
            clear(above_, above_first, above_end);
            if (r == current + 1) {
                std::swap(above_, here_);
                above_first = here_first;
                above_end = k;
            } else {
                clear(here_, here_first, k);
                above_first = above_end = k;
            }
            here_first = k;
            current = r;
            last_col = -1;
        }
        if (c <= last_col || static_cast<std::size_t>(c) >= columns_)
            refuse("pixel " + std::to_string(k) + " (row " + std::to_string(r) + ", column " + std::to_string(c) + ") " +
                   (c <= last_col ? "is not after the one before it in its row"
                                  : "lies outside the frame's " + std::to_string(columns_) + " columns"));
        last_col = c;
        T v;
        std::memcpy(&v, values + k * sizeof(T), sizeof(T));  // the output rows hold values as bytes
        joinable_[k] = static_cast<float>(v) > 0.0f;
        if (!joinable_[k]) {
            ++loose;
            continue;
        }
        const auto self = static_cast<std::uint32_t>(k);
        // Neighbours that touch each other are in one group already: above touches the other
        // three, left touches above-left; only above-right may need joining to left or
        // above-left.
        const std::uint32_t above_left = above_[c], above = above_[c + 1], above_right = above_[c + 2], left = here_[c];
        if (above) {
            parent_[k] = above - 1;
        } else if (left || above_left) {
            const std::uint32_t joined = left ? left : above_left;
            parent_[k] = joined - 1;
            if (above_right) unite(joined - 1, above_right - 1);
        } else {
            parent_[k] = above_right ? above_right - 1 : self;
        }
        here_[c + 1] = self + 1;
    }
    clear(above_, above_first, above_end);
    clear(here_, here_first, n);
    return loose;
}

std::size_t SpotFilter::keep(const std::uint16_t* row, const std::uint16_t* col, const std::uint8_t* values, std::size_t n,
                             std::uint16_t* out_row, std::uint16_t* out_col, std::uint8_t* out_values) {
    if (n >= std::numeric_limits<std::uint32_t>::max())
        throw Error(ErrorCode::bad_argument, "pixels in spot: a frame of " + std::to_string(n) + " listed pixels is too long");
    if (parent_.size() < n) {
        parent_.resize(n);
        count_.resize(n);
        joinable_.resize(n);
    }
    return visit_pixel_type(type_, [&](auto zero) {
        using T = decltype(zero);
        const std::size_t loose = join<T>(row, col, values, n);  // one group, as ImageD11 counts them
        // Every parent comes before its child (or is itself), so in list order a pixel's
        // parent has its root as parent already.
        std::fill_n(count_.begin(), n, 0u);  // (memset of an empty vector's null data is undefined)
        for (std::size_t k = 0; k < n; ++k)
            if (joinable_[k]) {
                const std::uint32_t root = parent_[parent_[k]];
                parent_[k] = root;
                ++count_[root];
            }
        // Written whether kept or not (at or before k: nothing still to be read), counted if kept.
        std::size_t kept = 0;
        for (std::size_t k = 0; k < n; ++k) {
            T v;
            std::memcpy(&v, values + k * sizeof(T), sizeof(T));
            out_row[kept] = row[k];
            out_col[kept] = col[k];
            std::memcpy(out_values + kept * sizeof(T), &v, sizeof(T));
            kept += !active() || (joinable_[k] ? count_[parent_[k]] : loose) >= min_pixels_;
        }
        return kept;
    });
}

}  // namespace bslz4::tool
