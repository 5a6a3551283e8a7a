#include "sparse_frame.hpp"

#include <cmath>

#include "bslz4/error.hpp"

namespace bslz4::tool::peaks {

void check_frame(const SparseFrame& f, std::size_t rows, std::size_t cols, const std::string& what) {
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
