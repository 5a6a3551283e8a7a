// A VDS mapping's selections as runs of whole frames: what follow_virtual pairs, frame by frame,
// between a virtual dataset and its sources, and how it names them in messages.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"

namespace bslz4::tool::vds {

constexpr std::size_t kRank = 3;  // (frames, rows, columns)

// Frames [first, first + count) of a dataspace.
struct FrameRange {
    std::uint64_t first = 0, count = 0;
};

// The whole frames a selection of a (frames, rows, columns) dataset of `dims` takes, in the order
// HDF5 pairs a mapping's elements (row-major: frame by frame), merged into runs. `what` names
// the selection; anything but whole frames is refused. The dataset's own extent counts, not the
// selection's dataspace: HDF5 records no extent with a selection of all of a source (it takes the
// source's as it is when read), and a hyperslab's only as far as the hyperslab reaches.
std::vector<FrameRange> selected_frames(hid_t space, const hsize_t* dims, const std::string& what);
std::uint64_t frames_in(const std::vector<FrameRange>& ranges);
// "frames 0 to 9, 20", for messages.
std::string frames_text(const std::vector<FrameRange>& ranges);

}  // namespace bslz4::tool::vds
