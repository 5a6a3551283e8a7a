// A stack of compressed synthetic Eiger frames for the benchmark and the demo, generated and
// encoded on all cores (a fixed seed: the same bytes on every run).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::tool {

struct EigerStack {
    std::size_t ni = 0, nj = 0;
    PixelType type = PixelType::u16;
    SyntheticProfile profile = SyntheticProfile::dense;
    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> mask;
    std::size_t frame_bytes() const { return ni * nj * pixel_size(type); }
    std::size_t compressed_bytes() const;
    double compression_ratio() const;
    // "synthetic Eiger 4M u16, sparse profile" and the like.
    std::string describe() const;
    // chunks cycled to `count` views (the benchmark repeats a few distinct frames).
    std::vector<ByteView> views(std::size_t count) const;
};

// A pyFAI-like azimuthal integration for that geometry: `bins` rings around the frame's
// centre, each pixel's unit weight split between its two nearest rings (about 2 weights a pixel).
// With azim > 1, pyFAI's integrate2d layout: the rings cut into `azim` sectors around the centre,
// bin = sector x bins + ring.
IntegrationMatrix radial_matrix(std::size_t ni, std::size_t nj, std::size_t bins, std::size_t azim = 1);

EigerStack make_eiger_stack(std::size_t ni, std::size_t nj, PixelType type, std::size_t frames,
                            SyntheticProfile profile = SyntheticProfile::dense);

// The tools' --profile: dense, sparse, very-sparse, or (where allowed) all of them; anything
// else is a UsageError naming the accepted values.
std::vector<SyntheticProfile> parse_profiles(const std::string& text, bool all_allowed);
// The tools' --type for synthetic data: u16 or u32, the Eiger's own pixel types.
PixelType parse_synthetic_type(const std::string& text);

}  // namespace bslz4::tool
