// The frames of a scan in an HDF5 file (Eiger, LImA, Jungfraujoch, an ESRF Bliss master's
// virtual dataset over LImA files): the dataset(s) holding them, checked to be one bitshuffle
// chunk (filter 32008) per frame (for a virtual dataset, each of its sources), their pixel type
// and codec, and the detector's NeXus pixel_mask when the file has one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/pixel_type.hpp"
#include "hdf5_file.hpp"
#include "virtual_frames.hpp"

namespace bslz4::tool {

struct ScanDataset {
    std::string path;  // as named in the file given (links followed)
    h5::Handle dataset;
    std::size_t frames = 0;
    // A virtual dataset: where each frame lies (its sources open); null for an ordinary dataset.
    std::shared_ptr<const VirtualFrames> virtual_frames;
};

struct ScanInput {
    std::string file_name;
    h5::Handle file;
    std::vector<ScanDataset> datasets;
    std::size_t ni = 0, nj = 0, frames = 0;
    PixelType type = PixelType::u16;
    Codec codec = Codec::lz4;
    std::vector<std::uint8_t> nexus_mask;  // nonzero = do not use; empty when the file has none
    std::string nexus_mask_path;
    // What masks the scan when the caller gives no mask of its own: "FILE:PATH" of the pixel_mask
    // read, or "none (the file has no pixel_mask)" (the scan runs unmasked: the summary and the
    // output say so); "" when the mask was not looked for (NexusMask::skip).
    std::string mask_source;
    std::vector<std::string> mask_looked_for;  // the paths looked at for it, in order
    std::uint64_t largest_chunk = 0;  // bytes: no valid chunk of one frame is larger
    // Every file the frames are read from: the file given, an Eiger master's data files, a
    // virtual dataset's source files; with what each is to the scan ("input file", ...).
    struct FileRead {
        h5::FileIdentity file;
        std::string role;
    };
    std::vector<FileRead> files_read;
    // The frames are an Eiger master's data_000001, data_000002 ... links (one or more).
    bool eiger_master = false;
};

constexpr const char* kNexusPixelMask = "/entry/instrument/detector/pixel_mask";
constexpr std::uint32_t kBitshuffleFilter = 32008;

// The codec of a dataset stored with bitshuffle (filter 32008) alone, after checking the values
// recorded with the filter: bitshuffle's layout, version 0.x, the element size of the dataset's
// pixels (elem_size), a block size of whole 8-element groups, lz4 or zstd. `what` names it.
// minor_version, when given, gets the bitshuffle version's minor number the values record.
Codec bitshuffle_codec(hid_t dataset, std::size_t elem_size, const std::string& what, unsigned* minor_version = nullptr);

// The largest chunk bitshuffle can make of a frame of `pixels` elements of elem_size bytes: every
// block as small as allowed (8 elements), each the codec's worst case, behind its 4-byte length.
std::uint64_t largest_chunk_bytes(std::uint64_t pixels, std::size_t elem_size, Codec codec);

// dataset: a path, or "" for the usual places: /entry/data/data, else /entry/data/data_NNNNNN
// (an Eiger master file's links) in order, else a LImA file's /entry_NNNN/INSTRUMENT/DETECTOR/data
// (hard links only, when there is one such 3-d dataset). A virtual dataset is followed to its
// sources (virtual_frames.hpp), which must each be one bitshuffle chunk a frame, of the VDS's
// pixel type, all of one codec.
// The NeXus pixel_mask (/entry/instrument/detector/pixel_mask, else a pixel_mask beside the first
// dataset, as an NXdetector holds it) is read unless the caller masks otherwise; a link to it that
// does not resolve is an error.
enum class NexusMask { read, skip };
ScanInput open_scan(const std::string& file_name, const std::string& dataset, NexusMask nexus = NexusMask::read);

// "FILE:DATASET frame F" for frame f of dataset d, with "(SOURCE_FILE:SOURCE_DATASET frame J)"
// after it for a virtual dataset: where the frame is, for messages.
std::string frame_place(const ScanInput& scan, std::size_t d, std::size_t f);

// The stored chunk of frame f of dataset d (of its source, for a virtual dataset).
std::vector<std::uint8_t> read_frame_chunk(const ScanInput& scan, std::size_t d, std::size_t f);

}  // namespace bslz4::tool
