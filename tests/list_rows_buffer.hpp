// Caller-owned rows (bslz4::ListRows) for the tests of the calls that list into them: rows
// longer than a frame, every byte first set to a mark, so a test sees both that each list
// landed in its row and that nothing past a frame's npix entries, or past the call's rows, was
// written (a call may use a row's first npix entries as it likes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::test {

class ListRowsBuffer {
public:
    static constexpr std::uint8_t kMark = 0xC7;

    ListRowsBuffer(std::size_t rows, std::size_t row_length, std::size_t npix, PixelType type)
        : rows_(rows), row_length_(row_length), npix_(npix), bpp_(pixel_size(type)),
          values_(rows * row_length * bpp_ / 8 + 1), indices_(rows * row_length) {
        std::memset(values_.data(), kMark, values_.size() * 8);
        std::memset(indices_.data(), kMark, indices_.size() * 4);
    }

    ListRows rows() { return {values_.data(), indices_.data(), row_length_, rows_}; }

    // Whether `batch` points into these rows and every byte past each row's npix entries, and
    // in the rows past the batch's, still holds the mark: "" when so, else what is wrong.
    std::string misplaced(const SparseBatch& batch) const {
        if (batch.values != values_.data() || batch.indices != indices_.data()) return "the batch points elsewhere";
        if (batch.row_length != row_length_) return "row_length " + std::to_string(batch.row_length);
        const auto* v = reinterpret_cast<const std::uint8_t*>(values_.data());
        const auto* x = reinterpret_cast<const std::uint8_t*>(indices_.data());
        for (std::size_t f = 0; f < rows_; ++f) {
            const std::size_t used = f < batch.nframes ? npix_ : 0;
            for (std::size_t b = (f * row_length_ + used) * bpp_; b < (f + 1) * row_length_ * bpp_; ++b)
                if (v[b] != kMark) return "row " + std::to_string(f) + ": a value written past the frame";
            for (std::size_t b = (f * row_length_ + used) * 4; b < (f + 1) * row_length_ * 4; ++b)
                if (x[b] != kMark) return "row " + std::to_string(f) + ": an index written past the frame";
        }
        return "";
    }

private:
    std::size_t rows_, row_length_, npix_, bpp_;
    std::vector<std::uint64_t> values_;  // 8-byte aligned, for every pixel type
    std::vector<std::uint32_t> indices_;
};

}  // namespace bslz4::test
