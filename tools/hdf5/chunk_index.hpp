// Where each frame's chunk of a dataset lies, read once from HDF5's chunk index, so that the
// chunks can then be read with positional reads by several threads, without HDF5 and its lock.
//
// HDF5 before 1.10.10 has no call that lists a dataset's chunks in one pass: H5Dget_chunk_info (by
// index) and H5Dget_chunk_info_by_coord each walk the chunk index from its start, so asking them for
// every chunk costs n^2 / 2 steps (1.10.8, 20,000 chunks: 7.8 s; 2,000: 0.06 s). Where the
// library loaded has H5Dchunk_iter (1.10.10, 1.12.3, 1.14), whatever the headers built against,
// the index is one walk. Elsewhere a dataset from which
// at most `per_chunk_limit` frames are wanted is indexed with H5Dget_chunk_info_by_coord; for more
// it keeps only its chunks' sizes (H5Dget_chunk_storage_size, a B-tree lookup) and its chunks are
// read through HDF5 (H5Dread_chunk under the library lock) instead of by position.
//
// A virtual dataset (virtual_frames.hpp) is indexed through its sources: each frame's chunk is
// found in the index of the source dataset holding it, and read from that source's file.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hdf5_file.hpp"
#include "virtual_frames.hpp"

namespace bslz4::tool {

struct ChunkLocation {
    std::uint64_t address = 0;      // byte of the file where the chunk starts (user block included)
    std::uint64_t bytes = 0;
    std::uint32_t filter_mask = 0;  // bit 0 set: bitshuffle was skipped, the chunk holds the raw frame
    std::uint32_t source = 0;       // into ChunkIndex::sources
    std::uint64_t source_frame = 0; // the frame's number in its source dataset
};

// A file holding chunks, as HDF5 opened it (an external link's or a VDS mapping's target).
struct ChunkFile {
    std::string path;
    std::uint64_t bytes = 0;
};

// A dataset holding chunks: the dataset indexed, or one of a virtual dataset's sources.
struct ChunkSource {
    std::string what;         // FILE:DATASET, for messages
    hid_t dataset = -1;       // for reads through HDF5 (not owned)
    std::size_t file = 0;     // into ChunkIndex::files
    bool by_position = true;  // false: addresses and filter masks unknown; read through HDF5
};

struct ChunkIndex {
    std::string what;  // FILE:DATASET as indexed, for messages
    std::size_t first_frame = 0;
    std::vector<ChunkLocation> chunks;  // frames first_frame, first_frame + 1, ...
    std::vector<ChunkSource> sources;
    std::vector<ChunkFile> files;
    // A virtual dataset's sources, open while the index is (reads through HDF5 use them); null
    // for an ordinary dataset. The index is destroyed where no other thread calls HDF5.
    std::shared_ptr<const VirtualFrames> virtual_frames;
};

// "FILE:DATASET frame F" for chunk k of the index, with the source's "(FILE:DATASET frame J)"
// for a virtual dataset.
std::string chunk_what(const ChunkIndex& index, std::size_t k);

// Whether the HDF5 loaded lists chunks in one pass (H5Dchunk_iter): then every chunk is read by
// position, however many are wanted, unless per_chunk_limit is 0 (every chunk through HDF5).
bool chunk_index_in_one_pass();

// Frames [a, b) of a dataset of one chunk per frame, or of a virtual dataset whose sources are.
// Every chunk's extent is checked with h5::check_chunk_extent against its file and largest_valid;
// a frame never written is an error. The caller holds h5::Lock when other threads may call HDF5.
ChunkIndex read_chunk_index(hid_t dataset, std::size_t a, std::size_t b, const std::string& what, std::uint64_t largest_valid,
                            std::size_t per_chunk_limit);

}  // namespace bslz4::tool
