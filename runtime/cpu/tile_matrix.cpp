#include "tile_matrix.hpp"

#include <cstdint>
#include <string>

#include "bslz4/error.hpp"
#include "fixed_point.hpp"
#include "matrix_passes.hpp"

namespace bslz4::detail {

namespace {

// The tiling, with weight_of(k) (entry k's weight in the CSR matrix, a W) placed with entry k.
template <class W, class WeightOf>
TiledMatrix<W> tiled(const IntegrationMatrix& m, std::size_t rows, std::size_t cols, WeightOf weight_of) {
    constexpr std::size_t kSide = TileMatrix::kTileSide;
    if (rows * cols != m.pixels || rows == 0 || cols == 0)
        throw Error(ErrorCode::bad_argument, "tile_matrix: a matrix of " + std::to_string(m.pixels) + " pixels for frames of " +
                                                 std::to_string(rows) + " x " + std::to_string(cols));
    TiledMatrix<W> out;
    TileMatrix& t = out.tiles;
    t.tiles_x = (cols + kSide - 1) / kSide;
    t.tiles = t.tiles_x * ((rows + kSide - 1) / kSide);
    const std::size_t nnz = m.nnz();
    // p / cols by a multiply: with M = ceil(2^64 / cols) the product's high word is the quotient
    // for every 32-bit p (its error, under p / 2^64 < 1 / cols, never crosses an integer).
    // A division an entry, twice over 9 M entries, was most of the time this takes.
    // (cols 1, whose M does not fit 64 bits, is p itself.)
    __extension__ using Wide = unsigned __int128;
    const std::uint64_t inverse = cols == 1 ? 0 : static_cast<std::uint64_t>(((Wide{1} << 64) + cols - 1) / cols);
    const auto row_of = [&](std::uint32_t p) {
        return cols == 1 ? p : static_cast<std::uint32_t>((p * static_cast<Wide>(inverse)) >> 64);
    };
    // A pixel's tile, and its place in the tile (row * kSide + col).
    struct TilePlace {
        std::size_t tile;
        std::uint16_t at;
    };
    const auto place_of = [&](std::uint32_t p) {
        const std::uint32_t r = row_of(p), c = static_cast<std::uint32_t>(p - r * cols);
        return TilePlace{(r / kSide) * t.tiles_x + c / kSide, static_cast<std::uint16_t>((r % kSide) * kSide + c % kSide)};
    };

    // A counting sort of the entries by tile, a range of bins a thread: each part counts its
    // entries and slots (runs of one bin) a tile, then writes them from its own cursors in each
    // tile, after the earlier parts'. A tile's entries so stay in the matrix's order: by bin,
    // then as the bin lists them; a bin is one part's, so no slot spans two parts.
    struct TileCursor {
        std::uint32_t entry = 0, slot = 0;
        std::uint32_t last_bin = UINT32_MAX;  // the bin of the part's last entry in the tile
    };
    const std::vector<BinRange> ranges = entry_balanced_ranges(m.row_start);
    const std::size_t parts = ranges.size();
    std::vector<std::vector<TileCursor>> cursor(parts, std::vector<TileCursor>(t.tiles));
    run_parts(parts, [&](std::size_t p) {
        std::vector<TileCursor>& count = cursor[p];
        for (std::size_t b = ranges[p].first; b < ranges[p].end; ++b)
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
                TileCursor& c = count[place_of(m.pixel[k]).tile];
                ++c.entry;
                c.slot += c.last_bin != b;
                c.last_bin = static_cast<std::uint32_t>(b);
            }
    });
    t.tile_slot_first.assign(t.tiles + 1, 0);
    std::uint32_t entries = 0, slots = 0;
    for (std::size_t tile = 0; tile < t.tiles; ++tile) {
        t.tile_slot_first[tile] = slots;
        for (std::size_t p = 0; p < parts; ++p) {
            TileCursor& c = cursor[p][tile];
            const TileCursor n = c;
            c = {entries, slots, UINT32_MAX};
            entries += n.entry;
            slots += n.slot;
        }
    }
    t.slots = slots;
    t.tile_slot_first[t.tiles] = slots;
    size_for_overwrite(t.entry_pixel, nnz);
    size_for_overwrite(out.weight, nnz);
    t.slot_entry_first.assign(t.slots + 1, 0);
    t.slot_bin.assign(t.slots, 0);
    run_parts(parts, [&](std::size_t p) {
        std::vector<TileCursor>& next = cursor[p];
        for (std::size_t b = ranges[p].first; b < ranges[p].end; ++b)
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
                const TilePlace place = place_of(m.pixel[k]);
                TileCursor& at = next[place.tile];
                if (at.last_bin != b) {  // the tile's first entry of bin b: a slot starts
                    t.slot_entry_first[at.slot] = at.entry;
                    t.slot_bin[at.slot++] = static_cast<std::uint32_t>(b);
                    at.last_bin = static_cast<std::uint32_t>(b);
                }
                t.entry_pixel[at.entry] = place.at;
                out.weight[at.entry++] = weight_of(k);
            }
    });
    t.slot_entry_first[t.slots] = static_cast<std::uint32_t>(nnz);

    // Each bin's slots, in slot (so tile) order: a counting sort of the slots by bin.
    t.bin_slot_first.assign(m.bins + 1, 0);
    for (std::uint32_t b : t.slot_bin) ++t.bin_slot_first[b + 1];
    for (std::size_t b = 0; b < m.bins; ++b) t.bin_slot_first[b + 1] += t.bin_slot_first[b];
    t.bin_slot.assign(t.slots, 0);
    std::vector<std::uint32_t> next(t.bin_slot_first.begin(), t.bin_slot_first.end() - 1);
    for (std::uint32_t s = 0; s < t.slots; ++s) t.bin_slot[next[t.slot_bin[s]]++] = s;
    return out;
}

}  // namespace

TiledMatrix<float> tile_matrix(const IntegrationMatrix& m, std::size_t rows, std::size_t cols) {
    return tiled<float>(m, rows, cols, [&](std::uint32_t k) { return m.weight[k]; });
}

TiledMatrix<std::int64_t> tile_fixed_matrix(const IntegrationMatrix& m, std::size_t rows, std::size_t cols) {
    if (m.fixed_weight.size() != m.nnz())
        throw Error(ErrorCode::bad_argument, "tile_fixed_matrix: the matrix has " + std::to_string(m.fixed_weight.size()) +
                                                 " fixed-point weights for " + std::to_string(m.nnz()) + " entries");
    return tiled<std::int64_t>(m, rows, cols, [&](std::uint32_t k) { return m.fixed_weight[k]; });
}

TiledMatrix<std::int64_t> tile_matrix_at_scale(const IntegrationMatrix& m, std::size_t rows, std::size_t cols,
                                               int scale_log2) {
    const double power = power_of_two(scale_log2);
    return tiled<std::int64_t>(m, rows, cols, [&](std::uint32_t k) { return fixed_weight(m.weight[k], power); });
}

}  // namespace bslz4::detail
