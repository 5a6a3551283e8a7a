// The matrix regrouped by tiles of the frame for the GPU's powder (runtime/cpu/tile_matrix.hpp):
// every entry once, in its pixel's tile and its bin's slot, with its weight, whatever the frame's
// shape and the threads that build it.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"
#include "fixed_point.hpp"
#include "tile_matrix.hpp"

using namespace bslz4;
using detail::TileMatrix;
using detail::TiledMatrix;

namespace {

// m with each entry's weight its own number in the matrix (exact in float below 2^24): the tiled
// weights then say which entry lies where.
IntegrationMatrix numbered(IntegrationMatrix m) {
    for (std::size_t k = 0; k < m.weight.size(); ++k) m.weight[k] = static_cast<float>(k);
    return m;
}

// Checks m's tiling (of numbered(m)) entry by entry.
void require_tiles_of(const TiledMatrix<float>& tiled, const IntegrationMatrix& m, std::size_t rows, std::size_t cols) {
    constexpr std::size_t kSide = TileMatrix::kTileSide;
    const TileMatrix& t = tiled.tiles;
    REQUIRE(t.tiles_x == (cols + kSide - 1) / kSide);
    REQUIRE(t.tiles == t.tiles_x * ((rows + kSide - 1) / kSide));
    REQUIRE(t.tile_slot_first.size() == t.tiles + 1);
    REQUIRE(t.tile_slot_first.front() == 0);
    REQUIRE(t.tile_slot_first.back() == t.slots);
    REQUIRE(t.slot_entry_first.size() == t.slots + 1);
    REQUIRE(t.slot_entry_first.back() == m.nnz());
    REQUIRE(tiled.weight.size() == m.nnz());
    REQUIRE(t.entry_pixel.size() == m.nnz());
    std::vector<std::uint32_t> bin_of(m.nnz());
    for (std::size_t b = 0; b < m.bins; ++b)
        for (auto k = m.row_start[b]; k < m.row_start[b + 1]; ++k) bin_of[k] = static_cast<std::uint32_t>(b);
    std::vector<int> seen(m.nnz(), 0);
    for (std::size_t tile = 0; tile < t.tiles; ++tile) {
        const std::size_t r0 = tile / t.tiles_x * kSide, c0 = tile % t.tiles_x * kSide;
        REQUIRE(t.tile_slot_first[tile] <= t.tile_slot_first[tile + 1]);
        for (auto s = t.tile_slot_first[tile]; s < t.tile_slot_first[tile + 1]; ++s) {
            INFO("tile " << tile << " slot " << s);
            if (s > t.tile_slot_first[tile]) REQUIRE(t.slot_bin[s - 1] < t.slot_bin[s]);  // a tile's slots by bin, one a bin
            REQUIRE(t.slot_entry_first[s] < t.slot_entry_first[s + 1]);                   // no empty slot
            for (auto e = t.slot_entry_first[s]; e < t.slot_entry_first[s + 1]; ++e) {
                const auto k = static_cast<std::uint32_t>(tiled.weight[e]);
                REQUIRE(k < m.nnz());
                ++seen[k];
                if (e > t.slot_entry_first[s]) REQUIRE(tiled.weight[e - 1] < tiled.weight[e]);  // the matrix's order
                REQUIRE(bin_of[k] == t.slot_bin[s]);
                const std::size_t pixel = m.pixel[k], r = pixel / cols, c = pixel % cols;
                REQUIRE(r >= r0);
                REQUIRE(r < r0 + kSide);
                REQUIRE(c >= c0);
                REQUIRE(c < c0 + kSide);
                REQUIRE(t.entry_pixel[e] == (r - r0) * kSide + (c - c0));
            }
        }
    }
    for (int n : seen) REQUIRE(n == 1);
    REQUIRE(t.bin_slot_first.size() == m.bins + 1);
    REQUIRE(t.bin_slot_first.back() == t.slots);
    for (std::size_t b = 0; b < m.bins; ++b)
        for (auto i = t.bin_slot_first[b]; i < t.bin_slot_first[b + 1]; ++i) {
            REQUIRE(t.slot_bin[t.bin_slot[i]] == b);
            if (i > t.bin_slot_first[b]) REQUIRE(t.bin_slot[i - 1] < t.bin_slot[i]);  // tile order
        }
}

}  // namespace

TEST_CASE("a matrix by tiles holds each entry once, in its pixel's tile and its bin's slot, for frames of any shape",
          "[matrix][tiles]") {
    const std::size_t shapes[][2] = {{37, 70}, {64, 32}, {1, 5}, {100, 33}, {33, 1}, {32, 32}};
    std::uint32_t seed = 1;
    for (const auto& shape : shapes)
        for (const std::size_t bins : {std::size_t{1}, std::size_t{7}, std::size_t{300}}) {
            const std::size_t rows = shape[0], cols = shape[1];
            INFO(rows << " x " << cols << ", " << bins << " bins");
            const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, rows * cols, 2.0, seed++).input());
            require_tiles_of(detail::tile_matrix(numbered(m), rows, cols), m, rows, cols);
            // masked pixels leave bins and tiles empty
            const IntegrationMatrix folded = fold_mask(m, test::random_mask(rows * cols, seed++));
            require_tiles_of(detail::tile_matrix(numbered(folded), rows, cols), folded, rows, cols);
        }
}

TEST_CASE("a large matrix is tiled on several threads as on one: every entry once, each bin's slots in tile order",
          "[matrix][tiles]") {
    // 2 M entries and more: split over threads where there are CPUs for them.
    const IntegrationMatrix m = normalise_matrix(test::random_csr(2000, 1500, 2000.0, 5).input());
    REQUIRE(m.nnz() > 2'000'000);
    require_tiles_of(detail::tile_matrix(numbered(m), 30, 50), m, 30, 50);
}

TEST_CASE("fixed-point weights are tiled as the float weights are, each made from its own entry's", "[matrix][tiles]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(300, 37 * 70, 3.0, 9).input());
    const TiledMatrix<float> floats = detail::tile_matrix(m, 37, 70);
    for (const int scale_log2 : {0, 20, -3}) {
        INFO("scale 2^" << scale_log2);
        const TiledMatrix<std::int64_t> at_scale = detail::tile_matrix_at_scale(m, 37, 70, scale_log2);
        REQUIRE(at_scale.tiles.tile_slot_first == floats.tiles.tile_slot_first);
        REQUIRE(at_scale.tiles.slot_entry_first == floats.tiles.slot_entry_first);
        REQUIRE(at_scale.tiles.slot_bin == floats.tiles.slot_bin);
        REQUIRE(at_scale.tiles.entry_pixel == floats.tiles.entry_pixel);
        REQUIRE(at_scale.tiles.bin_slot_first == floats.tiles.bin_slot_first);
        REQUIRE(at_scale.tiles.bin_slot == floats.tiles.bin_slot);
        REQUIRE(at_scale.weight.size() == floats.weight.size());
        for (std::size_t e = 0; e < floats.weight.size(); ++e)
            REQUIRE(at_scale.weight[e] == std::llround(std::ldexp(static_cast<double>(floats.weight[e]), scale_log2)));
    }
    const IntegrationMatrix fixed = detail::at_scale(m, 24);  // the caller's fixed-point matrix (acc i64)
    const TiledMatrix<std::int64_t> own = detail::tile_fixed_matrix(fixed, 37, 70);
    REQUIRE(own.weight == detail::tile_matrix_at_scale(m, 37, 70, 24).weight);
    CHECK_THROWS_WITH(detail::tile_fixed_matrix(m, 37, 70), Catch::Contains("fixed-point weights"));
}

TEST_CASE("a matrix tiled for frames of another size is refused, naming both", "[matrix][tiles]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(10, 100, 1.0, 3).input());
    CHECK_THROWS_WITH(detail::tile_matrix(m, 10, 11), Catch::Contains("100 pixels") && Catch::Contains("10 x 11"));
}

TEST_CASE("a weight is made fixed point as llround makes it: halves away from zero, near-halves to the nearer", "[matrix][i64]") {
    const double power = detail::power_of_two(0);
    const float near_half = std::nextafter(0.5f, 0.0f);
    for (const float w : {0.0f, -0.0f, 0.5f, -0.5f, 1.5f, -1.5f, 2.5f, -2.5f, near_half, -near_half, std::nextafter(1.5f, 2.0f),
                          1e-30f, 123456.5f, -98765.25f, 8388607.5f, 16777216.0f, 3e18f, -3e18f,
                          // the top of int64: -2^63 itself, and the largest floats below 2^63 either way
                          -0x1p63f, std::nextafter(0x1p63f, 0.0f), -std::nextafter(0x1p63f, 0.0f)})
        REQUIRE(detail::fixed_weight(w, power) == std::llround(static_cast<double>(w)));
    std::uint32_t seed = 3;
    for (int scale_log2 : {-20, 0, 7, 40}) {
        const double p = detail::power_of_two(scale_log2);
        for (int i = 0; i < 100000; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const float w = static_cast<float>(static_cast<std::int32_t>(seed)) / 4096.0f;
            INFO("w " << w << " scale 2^" << scale_log2);
            REQUIRE(detail::fixed_weight(w, p) == std::llround(static_cast<double>(w) * p));
        }
    }
}
