// What the GPU tests compare the GPU classes with: the CPU class's results, bit for bit, and
// the stacks of chunks they feed both.
#pragma once
#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

#include "bslz4/bslz4.hpp"

namespace bslz4::test {

// Lists, values, and each frame's last_cut (bit for bit) and last_nabove.
inline void require_same(const SparseBatch& gpu, const SparseBatch& cpu) {
    REQUIRE(gpu.nframes == cpu.nframes);
    const std::size_t bpp = pixel_size(cpu.pixel_type);
    for (std::size_t f = 0; f < cpu.nframes; ++f) {
        INFO("frame " << f);
        const SparseFrame g = gpu.frame(f), c = cpu.frame(f);
        REQUIRE(g.npixels == c.npixels);
        REQUIRE(std::memcmp(g.indices, c.indices, c.npixels * 4) == 0);
        REQUIRE(std::memcmp(g.values, c.values, c.npixels * bpp) == 0);
        REQUIRE(g.last_nabove == c.last_nabove);
        REQUIRE(std::memcmp(&g.last_cut, &c.last_cut, sizeof(double)) == 0);
    }
}

struct Stack {
    std::size_t ni, nj;
    PixelType type;
    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> mask;
    std::vector<ByteView> views() const { return {chunks.begin(), chunks.end()}; }
};

// `frames` synthetic Eiger frames (Bragg spots on a background) of 7 kinds, and the Eiger mask.
inline Stack eiger_stack(std::size_t ni, std::size_t nj, PixelType t, std::size_t frames) {
    Stack s{ni, nj, t, {}, synthetic_eiger_mask(ni, nj)};
    for (std::size_t f = 0; f < frames; ++f)
        s.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, t, f % 7), pixel_size(t)));
    return s;
}

}  // namespace bslz4::test
