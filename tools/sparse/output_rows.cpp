#include "sparse/output_rows.hpp"

namespace bslz4::tool {

void OutputRows::add(const SparseFrame& frame, std::size_t nj, const void* powder_row, std::size_t powder_bytes) {
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
    const auto* p = static_cast<const std::uint8_t*>(powder_row);
    if (powder_bytes) powder.insert(powder.end(), p, p + powder_bytes);
}

void OutputRows::add_bad(std::size_t frame, ErrorCode code, const std::string& message, std::size_t powder_bytes) {
    nnz.push_back(0);
    powder.resize(powder.size() + powder_bytes, 0);  // all bytes 0 is 0 in every accumulator type
    bad.push_back(FrameError{frame, code, message});
}

}  // namespace bslz4::tool
