// Test and bench data, not part of the library: the bench, the demo, the tests and the Python
// package link it beside the core. A synthetic Eiger-like frame generator with a fixed seed: a
// Poisson background falling away from the beam centre, Bragg spots, module gaps at the type's
// maximum. Every run and every machine sees the same bytes (own PRNG, no std:: distributions),
// so benchmarks and tests are repeatable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/pixel_type.hpp"

namespace bslz4 {

constexpr std::size_t kEiger4mRows = 2162;
constexpr std::size_t kEiger4mCols = 2068;

// How much light reaches the detector. Photon-counting scans range from a background on most
// pixels to almost empty frames; real Eiger 4M scans compress 8 to 95 times. Background mean
// (centre to corner), spots a frame, and the bitshuffle-lz4 ratio (u16 / u32) of each:
//   dense:       1 to 0.1 counts a pixel,       300 spots, ratio  8 / 15 (the original data)
//   sparse:      0.04 to 0.01 counts a pixel,    50 spots, ratio 27 / 45
//   very_sparse: 0.0015 to 0.0003 counts a pixel, 10 spots, ratio 90 / 117
enum class SyntheticProfile { dense, sparse, very_sparse };

// "dense", "sparse", "very-sparse" (as the tools' --profile spells them).
const char* synthetic_profile_name(SyntheticProfile profile);

// Little-endian pixels of frame `index`, ni x nj, of the given type.
std::vector<std::uint8_t> synthetic_eiger_frame(std::size_t ni, std::size_t nj, PixelType type,
                                                std::uint64_t index,
                                                SyntheticProfile profile = SyntheticProfile::dense,
                                                std::uint64_t seed = 2026);

// 1 where a pixel is on a module, 0 in the gaps between modules.
std::vector<std::uint8_t> synthetic_eiger_mask(std::size_t ni, std::size_t nj);

}  // namespace bslz4
