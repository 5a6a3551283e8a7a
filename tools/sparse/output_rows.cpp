#include "sparse/output_rows.hpp"

namespace bslz4::tool {

void OutputRows::add(const SparseFrame& frame, std::size_t nj) {
    const std::size_t at = row.size(), bpp = pixel_size(frame.pixel_type);
    nnz.push_back(static_cast<std::uint32_t>(frame.npixels));
    row.resize(at + frame.npixels);
    col.resize(at + frame.npixels);
    for (std::size_t k = 0; k < frame.npixels; ++k) {
        row[at + k] = static_cast<std::uint16_t>(frame.indices[k] / nj);
        col[at + k] = static_cast<std::uint16_t>(frame.indices[k] % nj);
    }
    const auto* values = static_cast<const std::uint8_t*>(frame.values);
    intensity.insert(intensity.end(), values, values + frame.npixels * bpp);
}

void OutputRows::add_bad(std::size_t frame, ErrorCode code, const std::string& message) {
    nnz.push_back(0);
    bad.push_back(FrameError{frame, code, message});
}

}  // namespace bslz4::tool
