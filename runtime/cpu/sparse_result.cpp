#include "bslz4/sparse_result.hpp"

#include <string>


namespace bslz4 {

CooFrame make_coo(const SparseFrame& frame, std::size_t nj) {
    CooFrame out;
    out.npixels = frame.npixels;
    out.pixel_type = frame.pixel_type;
    out.last_cut = frame.last_cut;
    out.last_nabove = frame.last_nabove;
    out.row.resize(frame.npixels);
    out.col.resize(frame.npixels);
    for (std::size_t k = 0; k < frame.npixels; ++k) {
        out.row[k] = static_cast<std::uint32_t>(frame.indices[k] / nj);
        out.col[k] = static_cast<std::uint32_t>(frame.indices[k] % nj);
    }
    const auto* v = static_cast<const std::uint8_t*>(frame.values);
    out.value_bytes.assign(v, v + frame.npixels * pixel_size(frame.pixel_type));
    return out;
}

}  // namespace bslz4
