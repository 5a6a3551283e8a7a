// Seed inputs for the fuzz targets. A target run with BSLZ4_FUZZ_WRITE_SEEDS=DIR writes its
// seeds into DIR and exits (tests/fuzz/run.sh does this before fuzzing): the reference chunks of
// the data folders listed in BSLZ4_FUZZ_SEED_DATA (colon-separated; each holds cases.tsv and
// chunks/, the layout of ../shared/testdata and tests/data), wrapped in the target's own input
// format, plus chunks made here with the library's encoder (zstd, odd element sizes, small
// blocks), which the reference data lacks.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "bslz4/bslz4.hpp"

namespace bslz4::fuzz {

struct SeedChunk {
    std::string name;
    std::size_t elem_size = 0;
    std::optional<PixelType> type;  // none for element sizes that are no pixel type
    std::size_t ni = 0, nj = 0;
    Codec codec = Codec::lz4;
    std::vector<std::uint8_t> bytes;
};

// Reference chunks larger than this are left out: the seeds stay small and quick to run.
constexpr std::size_t kMaxSeedChunkBytes = 40000;

inline std::vector<std::uint8_t> read_file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void read_seed_folder(const std::string& dir, std::vector<SeedChunk>& out) {
    std::ifstream tsv(dir + "/cases.tsv");
    std::string line;
    std::getline(tsv, line);  // column names
    while (std::getline(tsv, line)) {
        std::istringstream row(line);
        SeedChunk s;
        std::string dtype, codec;
        if (!(row >> s.name >> dtype >> s.elem_size >> s.ni >> s.nj >> codec)) continue;
        s.bytes = read_file_bytes(dir + "/chunks/" + s.name + ".bslz4");
        if (s.bytes.empty() || s.bytes.size() > kMaxSeedChunkBytes) continue;
        try {
            s.type = parse_pixel_type(dtype);
            s.codec = parse_codec(codec);
        } catch (const Error&) {
            continue;
        }
        out.push_back(std::move(s));
    }
}

// Deterministic pixels: mostly a low background, some bright and extreme values.
inline std::vector<std::uint8_t> synthetic_pixels(std::size_t n, std::size_t es, std::uint32_t seed) {
    std::vector<std::uint8_t> raw(n * es, 0);
    std::uint32_t x = seed * 2654435761u + 1;
    for (std::size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        const unsigned kind = x % 16;
        for (std::size_t b = 0; b < es; ++b) {
            std::uint8_t v = 0;
            if (kind == 0) v = 0xFF;                                // the type's extreme
            else if (kind < 3) v = static_cast<std::uint8_t>(x >> (8 * (b % 4)));  // noise
            else if (b == 0) v = static_cast<std::uint8_t>(x % 4);  // background
            raw[i * es + b] = v;
        }
    }
    return raw;
}

inline std::vector<SeedChunk> generated_chunks() {
    struct Shape {
        std::size_t es;
        std::optional<PixelType> type;
        std::size_t ni, nj;
        Codec codec;
        std::size_t block_bytes;
    };
    const Shape shapes[] = {
        {2, PixelType::u16, 7, 9, Codec::lz4, 0},     {2, PixelType::u16, 7, 9, Codec::zstd, 0},
        {4, PixelType::u32, 16, 16, Codec::zstd, 128}, {1, PixelType::i8, 3, 5, Codec::zstd, 0},
        {4, PixelType::f32, 8, 8, Codec::zstd, 64},    {8, PixelType::f64, 5, 7, Codec::lz4, 64},
        {8, PixelType::u64, 4, 4, Codec::zstd, 0},     {2, PixelType::i16, 64, 64, Codec::lz4, 256},
        {8, PixelType::i64, 2, 9, Codec::zstd, 0},     {1, PixelType::u8, 1, 1, Codec::lz4, 0},
        {4, PixelType::i32, 10, 3, Codec::lz4, 96},    {1, PixelType::u8, 64, 64, Codec::zstd, 1024},
        {3, std::nullopt, 1, 77, Codec::lz4, 48},      {3, std::nullopt, 1, 77, Codec::zstd, 0},
        {16, std::nullopt, 1, 41, Codec::lz4, 128},    {5, std::nullopt, 1, 300, Codec::zstd, 80},
    };
    std::vector<SeedChunk> out;
    std::uint32_t seed = 1;
    for (const Shape& s : shapes) {
        const auto raw = synthetic_pixels(s.ni * s.nj, s.es, seed++);
        SeedChunk c;
        c.name = "generated_" + std::to_string(seed) + "_es" + std::to_string(s.es) + "_" + codec_name(s.codec);
        c.elem_size = s.es;
        c.type = s.type;
        c.ni = s.ni;
        c.nj = s.nj;
        c.codec = s.codec;
        c.bytes = encode_chunk(raw, s.es, {s.codec, s.block_bytes, 3});
        out.push_back(std::move(c));
    }
    return out;
}

inline std::vector<SeedChunk> seed_chunks() {
    std::vector<SeedChunk> out;
    if (const char* dirs = std::getenv("BSLZ4_FUZZ_SEED_DATA")) {
        std::istringstream list(dirs);
        std::string dir;
        while (std::getline(list, dir, ':'))
            if (!dir.empty()) read_seed_folder(dir, out);
    }
    auto made = generated_chunks();
    out.insert(out.end(), made.begin(), made.end());
    return out;
}

// Call from LLVMFuzzerInitialize: when asked, writes make_seeds()'s inputs and exits.
inline void write_seeds_if_asked(const std::function<std::vector<std::vector<std::uint8_t>>()>& make_seeds) {
    const char* dir = std::getenv("BSLZ4_FUZZ_WRITE_SEEDS");
    if (!dir || !*dir) return;
    const auto seeds = make_seeds();
    for (std::size_t k = 0; k < seeds.size(); ++k) {
        const std::string path = std::string(dir) + "/seed-" + std::to_string(k);
        std::ofstream f(path, std::ios::binary);
        f.write(reinterpret_cast<const char*>(seeds[k].data()), static_cast<std::streamsize>(seeds[k].size()));
        if (!f) {
            std::fprintf(stderr, "cannot write %s\n", path.c_str());
            std::exit(1);
        }
    }
    std::printf("%zu seeds written to %s\n", seeds.size(), dir);
    std::exit(0);
}

}  // namespace bslz4::fuzz
