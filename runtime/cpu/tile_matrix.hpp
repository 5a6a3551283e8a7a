// A matrix regrouped by square tiles of the frame, for the GPU's powder (kernels/
// integrate_tiles.cu): each tile's entries grouped by bin ("slots": a tile's entries of one
// bin), so that a thread block sums a tile's pixels into its slots while the tile is in its
// shared memory, and a second pass adds each bin's slots in tile order. Why tiles: pixels near
// one another fall in few bins (a 32 x 32 tile of an Eiger 4M frame in a few dozen radial
// bins), so a tile's partial sums are few, and the frames are read once, where summing bin by
// bin reads each pixel of 16 frames from wherever the matrix points.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/integration_matrix.hpp"

namespace bslz4::detail {

struct TileMatrix {
    static constexpr std::size_t kTileSide = 32;  // kernel_abi.h's kTileSide
    std::size_t tiles_x = 0, tiles = 0, slots = 0;
    std::vector<std::uint32_t> tile_slot_first;   // tiles + 1: tile t's slots
    std::vector<std::uint32_t> slot_entry_first;  // slots + 1: slot s's entries
    std::vector<std::uint32_t> slot_bin;          // slots
    std::vector<std::uint16_t> entry_pixel;       // nnz: the entry's pixel in its tile, row * kTileSide + col
    std::vector<std::uint32_t> bin_slot_first;    // bins + 1: bin b's slots, in tile order
    std::vector<std::uint32_t> bin_slot;          // slots
};

// A tiled matrix and its weights, entry by entry in the tiles' order: W float (the matrix's
// weights) or int64 (fixed point). The weights are placed as the entries are, in one pass.
template <class W>
struct TiledMatrix {
    TileMatrix tiles;
    std::vector<W> weight;
};

// `m` (checked: check_matrix_form, m.pixels == rows * cols) regrouped: tiles in row-major order
// of the tile grid, a tile's slots by bin, a slot's entries in the matrix's order; with
// - its float weights,
TiledMatrix<float> tile_matrix(const IntegrationMatrix& m, std::size_t rows, std::size_t cols);
// - its own fixed-point weights (m.fixed_point()),
TiledMatrix<std::int64_t> tile_fixed_matrix(const IntegrationMatrix& m, std::size_t rows, std::size_t cols);
// - or its float weights at the fixed-point scale 2^scale_log2 (fixed_point.hpp's fixed_weight).
TiledMatrix<std::int64_t> tile_matrix_at_scale(const IntegrationMatrix& m, std::size_t rows, std::size_t cols,
                                               int scale_log2);

}  // namespace bslz4::detail
