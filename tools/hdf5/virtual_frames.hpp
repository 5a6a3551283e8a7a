// Where each frame of an HDF5 virtual dataset (VDS) lies: the source dataset and the frame in it
// (an ESRF Bliss master file reaches the LImA files that hold the frames through a VDS). The
// frames are read raw from their sources' chunks, so only mappings of whole frames, each frame
// of the VDS from exactly one frame of a source, are taken: anything else (part of a frame,
// unmapped frames that HDF5 would fill, a source that is missing or shorter than its mapping,
// printf-style or unlimited mappings, a VDS of VDSs) is refused, naming the mapping.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hdf5_file.hpp"
#include "vds_source_file.hpp"  // resolve_source_file

namespace bslz4::tool {

struct VirtualSource {
    std::string file_name;     // as HDF5 found it (see resolve_source_file), or the VDS's own
    std::string dataset_path;  // in that file
    std::string what;          // FILE:DATASET, for messages
    h5::Handle file;           // not open when the source is in the VDS's own file
    h5::Handle dataset;
};

// VDS frames [first, first + count) are the source's frames source_first, source_first + 1, ...
struct VirtualRun {
    std::uint64_t first = 0, count = 0;
    std::size_t source = 0;
    std::uint64_t source_first = 0;
    std::size_t mapping = 0;  // the VDS's mapping it comes from, for messages
};

struct VirtualFrames {
    std::vector<VirtualSource> sources;
    std::vector<VirtualRun> runs;  // in frame order, covering every frame of the VDS once
    // The run holding VDS frame f (f below the VDS's frames).
    const VirtualRun& run_of(std::uint64_t f) const;
};

bool is_virtual(hid_t dataset);

// The mappings of a 3-d (frames, rows, columns) VDS, checked as above, its sources opened and
// checked to be 3-d with the VDS's rows and columns and at least the frames mapped; `what` is
// FILE:DATASET of the VDS. A source file or dataset that cannot be found or opened is
// ErrorCode::io, a mapping not taken bad_argument. The sources' chunks, pixel type and filter are
// the caller's to check. The caller holds h5::Lock when other threads may call HDF5.
VirtualFrames follow_virtual(hid_t vds, const std::string& what);

}  // namespace bslz4::tool
