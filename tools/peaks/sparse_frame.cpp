#include "sparse_frame.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "bslz4/error.hpp"

namespace bslz4::tool::peaks {

namespace {

// Whether the whole list is as check_frame wants it, in one pass without a branch a pixel (a
// frame's 8,000 pixels in a few microseconds; the loop that names a fault runs only on a list
// that has one).
bool frame_is_sound(const SparseFrame& f, std::size_t rows, std::size_t cols) {
    if (rows == 0 || cols == 0) return f.n == 0;
    const std::uint32_t last_row = static_cast<std::uint32_t>(std::min<std::size_t>(rows, 65536) - 1);
    const std::uint32_t last_col = static_cast<std::uint32_t>(std::min<std::size_t>(cols, 65536) - 1);
    bool sound = true;
    for (std::size_t k = 0; k < f.n; ++k) sound &= (f.row[k] <= last_row) & (f.col[k] <= last_col);
    for (std::size_t k = 1; k < f.n; ++k)
        sound &= ((std::uint32_t{f.row[k - 1]} << 16) | f.col[k - 1]) < ((std::uint32_t{f.row[k]} << 16) | f.col[k]);
    if (f.value)
        for (std::size_t k = 0; k < f.n; ++k) {
            std::uint32_t bits;
            std::memcpy(&bits, f.value + k, sizeof bits);
            sound &= (bits & 0x7F800000u) != 0x7F800000u;  // not infinite, not NaN
        }
    return sound;
}

}  // namespace

void check_frame(const SparseFrame& f, std::size_t rows, std::size_t cols, const std::string& what) {
    if (frame_is_sound(f, rows, cols)) return;
    for (std::size_t k = 0; k < f.n; ++k) {
        if (f.value && !std::isfinite(f.value[k]))
            throw Error(ErrorCode::bad_argument, what + ": pixel " + std::to_string(k) + " has intensity " +
                                                     std::to_string(f.value[k]) + ", not a number to label");
        if (f.row[k] >= rows || f.col[k] >= cols)
            throw Error(ErrorCode::bad_argument, what + ": pixel " + std::to_string(k) + " at row " +
                                                     std::to_string(f.row[k]) + ", col " + std::to_string(f.col[k]) +
                                                     " lies outside the frame's " + std::to_string(rows) + " x " +
                                                     std::to_string(cols));
        if (k > 0 && (f.row[k] < f.row[k - 1] || (f.row[k] == f.row[k - 1] && f.col[k] <= f.col[k - 1])))
            throw Error(ErrorCode::bad_argument,
                        what + ": pixel " + std::to_string(k) + " (row " + std::to_string(f.row[k]) + ", col " +
                            std::to_string(f.col[k]) + ") does not come after pixel " + std::to_string(k - 1) + " (row " +
                            std::to_string(f.row[k - 1]) + ", col " + std::to_string(f.col[k - 1]) +
                            "): the pixels are not in row-major order, each once");
    }
}

}  // namespace bslz4::tool::peaks
