// The frames of a scan in an HDF5 file (Eiger, LImA, Jungfraujoch): the dataset(s) holding
// them, checked to be one bitshuffle chunk (filter 32008) per frame, their pixel type and
// codec, and the detector's NeXus pixel_mask when the file has one.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/pixel_type.hpp"
#include "hdf5_file.hpp"

namespace bslz4::tool {

struct ScanDataset {
    std::string path;  // as named in the file given (links followed)
    h5::Handle dataset;
    std::size_t frames = 0;
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
};

constexpr const char* kNexusPixelMask = "/entry/instrument/detector/pixel_mask";
constexpr std::uint32_t kBitshuffleFilter = 32008;

// dataset: a path, or "" for the usual places: /entry/data/data, else /entry/data/data_NNNNNN
// (an Eiger master file's links) in order.
ScanInput open_scan(const std::string& file_name, const std::string& dataset);

// The stored chunk of frame f of dataset d.
std::vector<std::uint8_t> read_frame_chunk(const ScanInput& scan, std::size_t d, std::size_t f);

}  // namespace bslz4::tool
