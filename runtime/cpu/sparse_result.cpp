#include "bslz4/sparse_result.hpp"

#include <string>

#include "buffer_ranges.hpp"

namespace bslz4 {

CooFrame make_coo(const SparseFrame& frame, std::size_t nj) {
    CooFrame out;
    out.npixels = frame.npixels;
    out.pixel_type = frame.pixel_type;
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

namespace detail {

void check_buffer_ranges(ByteView base, const std::vector<std::uint64_t>& offsets,
                         const std::vector<std::uint64_t>& lengths) {
    if (offsets.size() != lengths.size())
        throw Error("from_buffer: " + std::to_string(offsets.size()) + " offsets but " + std::to_string(lengths.size()) +
                    " lengths");
    for (std::size_t f = 0; f < offsets.size(); ++f)
        if (offsets[f] > base.size || lengths[f] > base.size - offsets[f])
            throw Error("frame " + std::to_string(f) + ": bytes " + std::to_string(offsets[f]) + " + " +
                        std::to_string(lengths[f]) + " lie outside the " + std::to_string(base.size) + "-byte buffer");
}

}  // namespace detail
}  // namespace bslz4
