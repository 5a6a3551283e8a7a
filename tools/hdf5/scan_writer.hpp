// Writes scans and matrices the way beamline software does, for the demo and the tests:
// frames compressed by our encoder and stored with HDF5's direct chunk write under the
// bitshuffle filter's id (32008), a NeXus pixel_mask, and a CSR matrix group as in powder.h5.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"

namespace bslz4::tool {

// /entry/data/data (frames, ni, nj), one bitshuffle-lz4 chunk a frame, made by `frame(f)`;
// /entry/instrument/detector/pixel_mask from nexus_mask (nonzero = do not use) if not empty.
void write_scan(const std::string& path, std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                const std::vector<std::uint8_t>& nexus_mask,
                const std::vector<std::vector<std::uint8_t>>& chunks);

// How the chunks given were compressed, for the filter's values (the level is only recorded).
struct ScanCompression {
    Codec codec = Codec::lz4;
    int zstd_level = 3;
};
void write_scan(const std::string& path, std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                const std::vector<std::uint8_t>& nexus_mask, const std::vector<std::vector<std::uint8_t>>& chunks,
                const ScanCompression& compression);

// GROUP/data, indices, indptr and the attribute shape = (bins, pixels), CSR.
void write_matrix(const std::string& path, const std::string& group, const IntegrationMatrix& m);

}  // namespace bslz4::tool
