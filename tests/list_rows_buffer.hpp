// Caller-owned rows (bslz4::ListRows) for the tests of the calls that list into them: rows
// longer than a frame, every byte first set to a mark, so a test sees both that each list
// landed in its row and that nothing past a frame's npix entries, or past the call's rows, was
// written (a call may use a row's first npix entries as it likes).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"
#include "gpu_comparison.hpp"

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

    // Whether every byte still holds the mark (nothing was written).
    bool untouched() const {
        const auto* v = reinterpret_cast<const std::uint8_t*>(values_.data());
        const auto* x = reinterpret_cast<const std::uint8_t*>(indices_.data());
        for (std::size_t b = 0; b < rows_ * row_length_ * bpp_; ++b)
            if (v[b] != kMark) return false;
        for (std::size_t b = 0; b < rows_ * row_length_ * 4; ++b)
            if (x[b] != kMark) return false;
        return true;
    }

private:
    std::size_t rows_, row_length_, npix_, bpp_;
    std::vector<std::uint64_t> values_;  // 8-byte aligned, for every pixel type
    std::vector<std::uint32_t> indices_;
};

// Chunks, and the same chunks one after another in one buffer (a byte between), for multi and
// from_buffer alike.
struct ChunkBuffer {
    explicit ChunkBuffer(std::vector<std::vector<std::uint8_t>> c) : chunks(std::move(c)) {
        for (const auto& chunk : chunks) {
            base.push_back(0xEE);
            offsets.push_back(base.size());
            lengths.push_back(chunk.size());
            base.insert(base.end(), chunk.begin(), chunk.end());
        }
    }
    std::vector<ByteView> views() const { return {chunks.begin(), chunks.end()}; }

    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> base;
    std::vector<std::uint64_t> offsets, lengths;
};

// `decoder`'s multi into rows longer than a frame (and one row more than the frames), then its
// from_buffer into rows of exactly a frame each: both batches land in their rows, write nothing
// past a frame's pixels, and equal `want` bit for bit.
template <class Decoder>
void require_lists_in_rows(Decoder& decoder, const ChunkBuffer& s, double cut, const SparseBatch& want, std::size_t npix,
                           PixelType type) {
    ListRowsBuffer longer(s.chunks.size() + 1, npix + 3, npix, type);
    const SparseBatch got = decoder.multi(s.views(), cut, longer.rows());
    REQUIRE(longer.misplaced(got).empty());
    require_same(got, want);
    ListRowsBuffer exact(s.chunks.size(), npix, npix, type);
    const SparseBatch from = decoder.from_buffer(s.base, s.offsets, s.lengths, cut, exact.rows());
    REQUIRE(exact.misplaced(from).empty());
    require_same(from, want);
}

}  // namespace bslz4::test
