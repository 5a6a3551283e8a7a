// A synthetic Eiger-like frame generator with a fixed seed: Poisson background of 0.1 to 1
// counts, Bragg spots, module gaps at the type's maximum. Every run and every machine sees the
// same bytes (own PRNG, no std:: distributions), so benchmarks and tests are repeatable.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/pixel_type.hpp"

namespace bslz4 {

constexpr std::size_t kEiger4mRows = 2162;
constexpr std::size_t kEiger4mCols = 2068;

// Little-endian pixels of frame `index`, ni x nj, of the given type.
std::vector<std::uint8_t> synthetic_eiger_frame(std::size_t ni, std::size_t nj, PixelType type,
                                                std::uint64_t index, std::uint64_t seed = 2026);

// 1 where a pixel is on a module, 0 in the gaps between modules.
std::vector<std::uint8_t> synthetic_eiger_mask(std::size_t ni, std::size_t nj);

}  // namespace bslz4
