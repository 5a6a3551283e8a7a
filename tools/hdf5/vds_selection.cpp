#include "vds_selection.hpp"

#include <algorithm>

namespace bslz4::tool::vds {

namespace {

std::string dims_text(const hsize_t* v, std::size_t n) {
    std::string s = "(";
    for (std::size_t k = 0; k < n; ++k) s += (k ? "," : "") + (v[k] == H5S_UNLIMITED ? std::string("unlimited") : std::to_string(v[k]));
    return s + ")";
}

// A selection in the words h5dump uses, for messages.
std::string describe_selection(hid_t space) {
    const int rank = H5Sget_simple_extent_ndims(space);
    switch (H5Sget_select_type(space)) {
        case H5S_SEL_NONE: return "nothing";
        case H5S_SEL_ALL: return "all";
        case H5S_SEL_POINTS: return std::to_string(H5Sget_select_elem_npoints(space)) + " points";
        case H5S_SEL_HYPERSLABS: {
            if (rank > 0 && rank <= 8 && H5Sis_regular_hyperslab(space) > 0) {
                hsize_t start[8], stride[8], count[8], block[8];
                if (H5Sget_regular_hyperslab(space, start, stride, count, block) >= 0) {
                    const auto n = static_cast<std::size_t>(rank);
                    return "start " + dims_text(start, n) + " stride " + dims_text(stride, n) + " count " + dims_text(count, n) +
                           " block " + dims_text(block, n);
                }
            }
            return std::to_string(H5Sget_select_hyper_nblocks(space)) + " hyperslab blocks";
        }
        default: return "an unknown selection";
    }
}

}  // namespace

std::string frames_text(const std::vector<FrameRange>& ranges) {
    if (ranges.empty()) return "no frames";
    std::string s = "frames ";
    for (std::size_t k = 0; k < ranges.size() && k < 4; ++k) {
        if (k) s += ", ";
        s += ranges[k].count == 1 ? std::to_string(ranges[k].first)
                                  : std::to_string(ranges[k].first) + " to " + std::to_string(ranges[k].first + ranges[k].count - 1);
    }
    if (ranges.size() > 4) s += ", ... (" + std::to_string(ranges.size()) + " runs)";
    return s;
}

std::vector<FrameRange> selected_frames(hid_t space, const hsize_t* dims, const std::string& what) {
    const int rank = H5Sget_simple_extent_ndims(space);
    if (H5Sget_select_type(space) != H5S_SEL_ALL && rank != static_cast<int>(kRank))
        throw Error(ErrorCode::bad_argument, what + " is " + std::to_string(rank) + "-d; (frames, rows, columns) expected");
    const auto not_whole = [&](const std::string& why) {
        return Error(ErrorCode::bad_argument, what + " (" + describe_selection(space) + ") " + why +
                                                  "; only whole frames can be read from their chunks");
    };
    std::vector<FrameRange> ranges;
    switch (H5Sget_select_type(space)) {
        case H5S_SEL_NONE: return ranges;
        case H5S_SEL_ALL:
            if (dims[0]) ranges.push_back({0, dims[0]});
            return ranges;
        case H5S_SEL_POINTS: throw not_whole("selects points, not whole frames");
        case H5S_SEL_HYPERSLABS: break;
        default: throw not_whole("is no selection HDF5 names");
    }
    if (H5Sis_regular_hyperslab(space) > 0) {
        hsize_t start[kRank], stride[kRank], count[kRank], block[kRank];
        if (H5Sget_regular_hyperslab(space, start, stride, count, block) < 0) throw h5::failure(what + ": cannot read its selection");
        for (std::size_t k = 0; k < kRank; ++k)
            if (count[k] == H5S_UNLIMITED || block[k] == H5S_UNLIMITED)
                throw Error(ErrorCode::bad_argument, what + " (" + describe_selection(space) +
                                                         ") is unlimited (a mapping that grows with its sources); only "
                                                         "fixed mappings are read");
    }
    const std::uint64_t frame = dims[1] * dims[2];
    const hssize_t points = H5Sget_select_npoints(space), nblocks = H5Sget_select_hyper_nblocks(space);
    if (points < 0 || nblocks < 0) throw h5::failure(what + ": cannot read its selection");
    if (frame == 0 || static_cast<std::uint64_t>(points) % frame != 0 ||
        static_cast<std::uint64_t>(nblocks) > static_cast<std::uint64_t>(points) / frame)
        throw not_whole("takes " + std::to_string(points) + " pixels in " + std::to_string(nblocks) + " blocks, not whole " +
                        std::to_string(dims[1]) + " x " + std::to_string(dims[2]) + " frames");
    // in pieces, so that no buffer is sized by the selection
    constexpr hsize_t kPiece = 1024;
    std::vector<hsize_t> corners(kPiece * 2 * kRank);
    for (hsize_t at = 0; at < static_cast<hsize_t>(nblocks); at += kPiece) {
        const hsize_t n = std::min<hsize_t>(kPiece, static_cast<hsize_t>(nblocks) - at);
        if (H5Sget_select_hyper_blocklist(space, at, n, corners.data()) < 0) throw h5::failure(what + ": cannot read its selection");
        for (hsize_t b = 0; b < n; ++b) {
            const hsize_t* lo = &corners[b * 2 * kRank];
            const hsize_t* hi = lo + kRank;
            if (lo[1] != 0 || lo[2] != 0 || hi[1] + 1 != dims[1] || hi[2] + 1 != dims[2])
                throw not_whole("takes rows " + std::to_string(lo[1]) + " to " + std::to_string(hi[1]) + " and columns " +
                                std::to_string(lo[2]) + " to " + std::to_string(hi[2]) + " of frames " + std::to_string(lo[0]) +
                                " to " + std::to_string(hi[0]) + ", not whole " + std::to_string(dims[1]) + " x " +
                                std::to_string(dims[2]) + " frames");
            ranges.push_back({lo[0], hi[0] - lo[0] + 1});
        }
    }
    std::sort(ranges.begin(), ranges.end(), [](const FrameRange& x, const FrameRange& y) { return x.first < y.first; });
    std::vector<FrameRange> merged;
    for (const FrameRange& r : ranges) {
        if (!merged.empty() && merged.back().first + merged.back().count == r.first)
            merged.back().count += r.count;
        else
            merged.push_back(r);
    }
    return merged;
}

std::uint64_t frames_in(const std::vector<FrameRange>& ranges) {
    std::uint64_t n = 0;
    for (const FrameRange& r : ranges) n += r.count;
    return n;
}

}  // namespace bslz4::tool::vds
