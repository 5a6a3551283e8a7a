#include "peak_properties.hpp"

#include <cmath>

#include "bslz4/error.hpp"

namespace bslz4::tool::peaks {

void PropertySums::add_frame(const SparseFrame& f, const std::int32_t* labels, std::uint32_t count,
                             const std::optional<double>& wtmax, std::int64_t frame_id, PeakColumns& out,
                             const std::string& what) {
    if (count == 0) return;
    pixels_.assign(count + 1, 0);
    sum_.assign(count + 1, 0.0);
    sum_row_.assign(count + 1, 0.0);
    sum_col_.assign(count + 1, 0.0);
    for (std::size_t k = 0; k < f.n; ++k) {
        const float v = f.value[k];
        // float32 -> int64 is defined for |v| < 2^63; 2^63 itself is a float, so < is the bound.
        if (!(std::fabs(v) < 9223372036854775808.0f))
            throw Error(ErrorCode::bad_argument, what + ": pixel " + std::to_string(k) + " has intensity " +
                                                     std::to_string(v) + ", which is no integer weight");
        std::int64_t w = static_cast<std::int64_t>(v);
        if (wtmax && static_cast<double>(w) > *wtmax) w = static_cast<std::int64_t>(*wtmax);
        const auto l = static_cast<std::size_t>(labels[k]);
        pixels_[l] += 1;
        sum_[l] += static_cast<double>(w);
        sum_row_[l] += static_cast<double>(std::int64_t{f.row[k]} * w);
        sum_col_[l] += static_cast<double>(std::int64_t{f.col[k]} * w);
    }
    for (std::uint32_t l = 1; l <= count; ++l) {
        if (sum_[l] < 1)
            throw Error(ErrorCode::bad_argument,
                        what + ": peak " + std::to_string(l) + " of " + std::to_string(count) + " (" +
                            std::to_string(pixels_[l]) + " pixels) has weights summing to " + std::to_string(sum_[l]) +
                            ", below 1; ImageD11's properties step refuses such a frame (\"bad data\") too");
        out[kPixels].push_back(pixels_[l]);
        out[kSum].push_back(static_cast<std::int64_t>(sum_[l]));
        out[kSumRow].push_back(static_cast<std::int64_t>(sum_row_[l]));
        out[kSumCol].push_back(static_cast<std::int64_t>(sum_col_[l]));
        out[kFrame].push_back(frame_id);
    }
}

}  // namespace bslz4::tool::peaks
