// What the GPU tests compare the GPU classes with: the CPU class's results, bit for bit, and
// the stacks of chunks they feed both.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "synthetic/synthetic_eiger.hpp"

namespace bslz4::test {

// The pixel types the GPU classes decode.
inline constexpr PixelType kGpuTypes[] = {PixelType::u8,  PixelType::u16, PixelType::u32, PixelType::i8,
                                          PixelType::i16, PixelType::i32, PixelType::f32};

// Corrupted chunks handed to the GPU by the corruption tests (test_gpu_corruption.cpp), which
// the suite's main prints at exit.
extern std::size_t corrupted_inputs;

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

// What differs between two batches' lists ("" when nothing), for sweeps that count failures
// rather than stop at the first.
inline std::string list_difference(const SparseBatch& gpu, const SparseBatch& cpu) {
    if (gpu.nframes != cpu.nframes) return "frame counts differ";
    const std::size_t bpp = pixel_size(cpu.pixel_type);
    for (std::size_t f = 0; f < cpu.nframes; ++f) {
        const SparseFrame g = gpu.frame(f), c = cpu.frame(f);
        if (g.npixels != c.npixels || std::memcmp(g.indices, c.indices, c.npixels * 4) != 0 ||
            std::memcmp(g.values, c.values, c.npixels * bpp) != 0)
            return "frame " + std::to_string(f) + ": lists differ (" + std::to_string(g.npixels) + " pixels on the GPU, " +
                   std::to_string(c.npixels) + " on the CPU)";
    }
    return "";
}

// Powders bit for bit when exact (i64), else within 1e-12 of the CPU's (f64; damaged f32 pixels
// make NaN and infinities on both).
inline std::string powder_difference(const Powder& g, const Powder& c) {
    if (g.nframes != c.nframes || g.bins != c.bins || g.acc != c.acc) return "powder shapes differ";
    if (c.acc == Accumulator::i64)
        return std::memcmp(g.data, c.data, c.nframes * c.bins * 8) == 0 ? "" : "i64 powders differ";
    for (std::size_t f = 0; f < c.nframes; ++f)
        for (std::size_t b = 0; b < c.bins; ++b) {
            const double x = g.value(f, b), y = c.value(f, b);
            if (x != y && !(std::isnan(x) && std::isnan(y)) && !(std::fabs(x - y) <= 1e-12 * std::max(1.0, std::fabs(y))))
                return "frame " + std::to_string(f) + " bin " + std::to_string(b) + ": powders differ (" + std::to_string(x) +
                       " on the GPU, " + std::to_string(y) + " on the CPU)";
        }
    return "";
}

inline std::string difference(const SparseBatch& gpu, const SparseBatch& cpu) { return list_difference(gpu, cpu); }
inline std::string difference(const IntegratedBatch& gpu, const IntegratedBatch& cpu) {
    const std::string d = list_difference(gpu.sparse, cpu.sparse);
    return d.empty() ? powder_difference(gpu.powder, cpu.powder) : d;
}
inline const SparseBatch& lists_of(const SparseBatch& b) { return b; }
inline const SparseBatch& lists_of(const IntegratedBatch& b) { return b.sparse; }

// What differs between two batches' bad frames ("" when nothing): which, codes, messages.
inline std::string status_difference(const SparseBatch& gpu, const SparseBatch& cpu) {
    const auto describe = [](const FrameError& e) {
        return "frame " + std::to_string(e.frame) + " " + error_code_name(e.code) + " \"" + e.message + "\"";
    };
    if (gpu.nbad != cpu.nbad)
        return std::to_string(gpu.nbad) + " bad frames on the GPU, " + std::to_string(cpu.nbad) + " on the CPU" +
               (cpu.nbad ? " (the CPU's first: " + describe(cpu.bad[0]) + ")" : "") +
               (gpu.nbad ? " (the GPU's first: " + describe(gpu.bad[0]) + ")" : "");
    for (std::size_t k = 0; k < cpu.nbad; ++k)
        if (gpu.bad[k].frame != cpu.bad[k].frame || gpu.bad[k].code != cpu.bad[k].code || gpu.bad[k].message != cpu.bad[k].message)
            return "bad frame " + std::to_string(k) + ": " + describe(gpu.bad[k]) + " on the GPU, " + describe(cpu.bad[k]) +
                   " on the CPU";
    for (std::size_t f = 0; f < cpu.nframes; ++f)
        if (gpu.code(f) != cpu.code(f)) return "frame " + std::to_string(f) + ": codes differ";
    return "";
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
