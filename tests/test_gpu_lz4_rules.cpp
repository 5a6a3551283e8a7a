// The GPU's LZ4 parse keeps the format's rules exactly as the CPU decoder does (the list at the
// top of runtime/cpu/lz4_block.cpp): blocks that break them, alone in a batch of good frames,
// fail on the GPU with the CPU's message, and random corruptions aimed at LZ4 sequences get
// the CPU's verdict, in a batch and alone in a call (whose parse takes a warp a block:
// kernels/lz4_parse_warp.cu). Part of test_gpu (its main skips without a GPU).
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>
#include <random>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "lz4_block_writer.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;
using bslz4::test::block_around;
using bslz4::test::finish_block;
using bslz4::test::Lz4BlockWriter;
using bslz4::test::noise_bytes;

namespace {

using Chunk = std::vector<std::uint8_t>;

// u16 frames of 63 x 203: blocks 0-2 of 8192 bytes, block 3 of 992, and 5 raw pixels.
constexpr std::size_t kNi = 63, kNj = 203, kFrames = 8;
constexpr double kCut = 2.0;

struct GoodFrames {
    std::vector<Chunk> chunks;
    std::vector<std::uint8_t> mask = synthetic_eiger_mask(kNi, kNj);
    GoodFrames() {
        for (std::size_t f = 0; f < kFrames; ++f) chunks.push_back(encode_chunk(synthetic_eiger_frame(kNi, kNj, PixelType::u16, f), 2));
    }
};

std::uint32_t be32_at(const Chunk& c, std::size_t at) {
    return (std::uint32_t{c[at]} << 24) | (std::uint32_t{c[at + 1]} << 16) | (std::uint32_t{c[at + 2]} << 8) | c[at + 3];
}

// The chunk with block b's LZ4 bytes replaced by `block` (its length field too).
Chunk with_block(const Chunk& chunk, std::size_t b, const std::vector<std::uint8_t>& block) {
    const BlockLayout layout = block_starts(chunk, 2);
    const std::size_t at = layout.starts[b], end = at + 4 + be32_at(chunk, at);
    Chunk out(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(at));
    out.resize(at + 4);
    test::put_be32(out, at, static_cast<std::uint32_t>(block.size()));
    out.insert(out.end(), block.begin(), block.end());
    out.insert(out.end(), chunk.begin() + static_cast<std::ptrdiff_t>(end), chunk.end());
    return out;
}

// What a class says of a batch: its message, or "" and the lists in *out.
template <class Decoder>
std::string outcome(Decoder& d, const std::vector<Chunk>& chunks, SparseBatch* out) {
    const std::vector<ByteView> batch(chunks.begin(), chunks.end());
    try {
        *out = d.multi(batch, kCut);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

bool same_lists(const SparseBatch& a, const SparseBatch& b) {
    if (a.nframes != b.nframes) return false;
    for (std::size_t f = 0; f < a.nframes; ++f) {
        const SparseFrame x = a.frame(f), y = b.frame(f);
        if (x.npixels != y.npixels || std::memcmp(x.indices, y.indices, 4 * x.npixels) != 0 ||
            std::memcmp(x.values, y.values, 2 * x.npixels) != 0)
            return false;
    }
    return true;
}

// The CPU against the GPU on the good frames with frame `at` replaced by `bad`: "" when they
// agree (same message, or same lists), else what differs. *cpu_message: the CPU's verdict.
std::string disagreement(bslz4::Chunk2Sparse& cpu, cuda::Chunk2Sparse& gpu, const GoodFrames& good, std::size_t at,
                         const Chunk& bad, std::string* cpu_message) {
    std::vector<Chunk> chunks = good.chunks;
    chunks[at] = bad;
    SparseBatch want, got;
    const std::string c = outcome(cpu, chunks, &want), g = outcome(gpu, chunks, &got);
    *cpu_message = c;
    if (c != g) return "the CPU says \"" + c + "\", the GPU \"" + g + "\"";
    if (c.empty() && !same_lists(want, got)) return "both accept, the lists differ";
    return "";
}

// As disagreement, for `bad` alone in a call.
std::string disagreement_alone(bslz4::Chunk2Sparse& cpu, cuda::Chunk2Sparse& gpu, const Chunk& bad) {
    SparseBatch want, got;
    const std::string c = outcome(cpu, {bad}, &want), g = outcome(gpu, {bad}, &got);
    if (c != g) return "the CPU says \"" + c + "\", the GPU \"" + g + "\"";
    if (c.empty() && !same_lists(want, got)) return "both accept, the lists differ";
    return "";
}

// A crafted block for block b of a frame (8192 bytes for b < 3, 992 for b = 3).
struct Crafted {
    std::string what;
    std::size_t b;
    std::vector<std::uint8_t> block;
    const char* cpu_says;  // a part of the CPU's message, or "" when the block is good
};

std::vector<Crafted> crafted_blocks() {
    std::vector<Crafted> out;
    for (std::size_t b : {0, 3}) {
        const std::size_t n = b < 3 ? 8192 : 992;
        const std::string in = " (" + std::to_string(n) + "-byte block)";
        auto w0 = block_around(0, 0, 0, 20);
        out.push_back({"offset 0 at the start" + in, b, finish_block(w0, n), "LZ4 match offset 0 at input byte"});
        auto w1 = block_around(n / 2, 3, 0, 10);
        out.push_back({"offset 0 in the middle" + in, b, finish_block(w1, n), "LZ4 match offset 0 at input byte"});
        auto w2 = block_around(n - 40, 3, 0, 19);
        out.push_back({"offset 0 near the end" + in, b, finish_block(w2, n), "LZ4 match offset 0 at input byte"});
        auto w3 = block_around(0, b < 3 ? 1024 : 900, 0, 24);
        out.push_back({"offset 0 after a long literal run" + in, b, finish_block(w3, n), "LZ4 match offset 0 at input byte"});
        for (std::size_t last = 0; last <= 5; ++last) {
            Lz4BlockWriter w;
            w.sequence(noise_bytes(16, 1), 8, n - 16 - last);
            out.push_back({"a match ending " + std::to_string(last) + " bytes before the end" + in, b,
                           w.last(noise_bytes(last, 2)), last < 5 ? "bytes to be literals)" : ""});
        }
        for (std::size_t before : {11, 12}) {
            Lz4BlockWriter w;
            w.sequence(noise_bytes(n - before, 3), 8, before - 5);
            out.push_back({"a match starting " + std::to_string(before) + " bytes before the end" + in, b,
                           w.last(noise_bytes(5, 4)), before < 12 ? "(the format wants at least 12)" : ""});
        }
        Lz4BlockWriter w;
        w.sequence(noise_bytes(16, 5), 8, n - 16);
        out.push_back({"a block ending with a match" + in, b, w.bytes(), "bytes to be literals)"});
    }
    return out;
}

// A block of 8192 bytes of long matches for each of the decode's copy paths (lz4_block.cuh):
// offsets 1, 2, 4, 8 and 16 (filled 16 bytes a lane), multiples of 16 from 512 (copied 16 bytes
// a lane), others from 136 (4 bytes a lane) and below (a byte a lane), at lengths around the
// paths' steps; `shift` literals before each match move where it starts, so across shifts 0..15
// every path starts at every alignment.
std::vector<std::uint8_t> long_match_block(unsigned shift) {
    constexpr std::size_t n = 8192;
    const unsigned offsets[] = {1, 2, 3, 4, 7, 8, 16, 17, 32, 33, 135, 136, 137, 511, 512, 513, 528, 1024, 1040, 1100};
    const std::size_t lengths[] = {33, 34, 47, 48, 49, 63, 96, 129, 301, 530};
    Lz4BlockWriter w;
    w.sequence(noise_bytes(1100, 40 + shift), 3, 40);
    for (std::size_t i = 0;; ++i) {
        const std::size_t literals = (shift + 5 * i) % 16, match = lengths[(i / 20 + i) % 10];
        if (w.decoded() + literals + match + 12 > n) break;
        w.sequence(noise_bytes(literals, static_cast<std::uint32_t>(i)), offsets[i % 20], match);
    }
    return w.last(noise_bytes(n - w.decoded(), 99));
}

const cuda::Chunk2SparseOptions kSettings[] = {
    {0, 0, cuda::Unblock::gpu, -1, Codec::lz4},  // the defaults: one batch
    {2, 3, cuda::Unblock::cpu, -1, Codec::lz4},  // batches of 2, block headers walked on the host
};

// Where the sequences of a good block are, for corruptions aimed at them.
struct SequenceMap {
    std::size_t start = 0, end = 0;      // the block's LZ4 bytes in the chunk
    std::vector<std::size_t> tokens;     // each token's place in the chunk
    std::vector<std::size_t> offsets;    // each match offset's (one fewer than tokens)
    std::vector<std::size_t> extensions; // each length-extension byte's
};

SequenceMap map_block(const Chunk& c, std::size_t at) {
    SequenceMap m;
    m.start = at + 4;
    m.end = m.start + be32_at(c, at);
    std::size_t ip = m.start;
    auto extend = [&](std::size_t n) {
        if (n != 15) return;
        for (std::uint8_t s = 255; s == 255;) m.extensions.push_back(ip), s = c[ip++];
    };
    while (ip < m.end) {
        m.tokens.push_back(ip);
        const std::uint8_t token = c[ip++];
        std::size_t lit = token >> 4;
        const std::size_t lit_at = ip;
        extend(lit);
        for (std::size_t k = lit_at; k < ip; ++k) lit += c[k];
        ip += lit;
        if (ip >= m.end) break;
        m.offsets.push_back(ip);
        ip += 2;
        extend(token & 15);
    }
    return m;
}

}  // namespace

TEST_CASE("blocks breaking the LZ4 rules (offset 0, matches in the last 12 or 5 bytes) fail on the GPU with the CPU's message",
          "[gpu][lz4]") {
    const GoodFrames good;
    bslz4::Chunk2Sparse cpu(good.mask, kNi, kNj, PixelType::u16);
    std::vector<std::string> failures;
    std::size_t refused = 0, tried = 0;
    for (const auto& setting : kSettings) {
        cuda::Chunk2Sparse gpu(good.mask, kNi, kNj, PixelType::u16, setting);
        for (const Crafted& k : crafted_blocks())
            for (std::size_t at : {std::size_t{0}, std::size_t{3}, kFrames - 1}) {
                std::string cpu_message;
                const std::string d = disagreement(cpu, gpu, good, at, with_block(good.chunks[at], k.b, k.block), &cpu_message);
                ++tried;
                if (!d.empty()) failures.push_back(k.what + ", frame " + std::to_string(at) + ": " + d);
                if (*k.cpu_says ? cpu_message.find(k.cpu_says) == std::string::npos : !cpu_message.empty())
                    failures.push_back(k.what + ": the CPU says \"" + cpu_message + "\"");
                refused += !cpu_message.empty();
                // The object keeps working: the good frames alone.
                SparseBatch want, got;
                REQUIRE(outcome(cpu, good.chunks, &want).empty());
                REQUIRE(outcome(gpu, good.chunks, &got).empty());
                REQUIRE(same_lists(want, got));
            }
    }
    std::printf("crafted LZ4 blocks: %zu batches, %zu refused, %zu disagreements\n", tried, refused, failures.size());
    for (std::size_t k = 0; k < failures.size() && k < 20; ++k) std::printf("  %s\n", failures[k].c_str());
    REQUIRE(failures.empty());
}

TEST_CASE("random corruptions of LZ4 sequences (offsets, lengths, last bytes) get the CPU's verdict on the GPU, in a batch "
          "and alone in a call",
          "[gpu][lz4]") {
    const GoodFrames good;
    bslz4::Chunk2Sparse cpu(good.mask, kNi, kNj, PixelType::u16);
    cuda::Chunk2Sparse gpu(good.mask, kNi, kNj, PixelType::u16);
    std::vector<std::vector<SequenceMap>> maps;  // [frame][block]
    for (const Chunk& c : good.chunks) {
        std::vector<SequenceMap> blocks;
        for (std::uint64_t at : block_starts(c, 2).starts) blocks.push_back(map_block(c, static_cast<std::size_t>(at)));
        maps.push_back(blocks);
    }
    const std::size_t trials = test::env_or("BSLZ4_GPU_QUICK", "") == "1" ? 300 : 4000;
    std::mt19937_64 rng(16);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    std::vector<std::string> failures;
    std::size_t judged = 0, refused = 0, offset0 = 0, end_rules = 0;
    for (std::size_t trial = 0; trial < trials; ++trial) {
        const std::size_t f = pick(kFrames), b = pick(maps[f].size());
        const SequenceMap& m = maps[f][b];
        Chunk bad = good.chunks[f];
        const unsigned kind = static_cast<unsigned>(pick(9));
        std::string what;
        if (kind <= 2 && !m.offsets.empty()) {  // a match offset: 0, near the bytes decoded so far, or anything
            const std::size_t at = m.offsets[pick(m.offsets.size())];
            const std::size_t v = kind == 0 ? 0 : kind == 1 ? pick(64) : pick(65536);
            bad[at] = static_cast<std::uint8_t>(v);
            bad[at + 1] = static_cast<std::uint8_t>(v >> 8);
            what = "offset := " + std::to_string(v);
        } else if (kind <= 4) {  // a token's literal or match length
            const std::size_t at = m.tokens[pick(m.tokens.size())];
            bad[at] = kind == 3 ? static_cast<std::uint8_t>((bad[at] & 0x0F) | pick(16) << 4)
                                : static_cast<std::uint8_t>((bad[at] & 0xF0) | pick(16));
            what = "token := " + std::to_string(bad[at]);
        } else if (kind == 5 && !m.extensions.empty()) {  // a length-extension byte
            const std::size_t at = m.extensions[pick(m.extensions.size())];
            const int d[] = {-1, 1, -5, 5};
            bad[at] = pick(3) == 0 ? std::uint8_t{255} : static_cast<std::uint8_t>(bad[at] + d[pick(4)]);
            what = "extension byte := " + std::to_string(bad[at]);
        } else if (kind == 6) {  // one of the block's last 16 bytes
            bad[m.end - 1 - pick(std::min<std::size_t>(16, m.end - m.start))] = static_cast<std::uint8_t>(rng());
            what = "a last byte";
        } else if (kind == 7 && !m.offsets.empty()) {
            // The last match d bytes longer and the last literals d fewer: the same size, the
            // last match ending closer to the end (the 5-literal rule when fewer than 5 are left).
            const std::size_t token = m.tokens[m.tokens.size() - 2], last = m.tokens.back();
            const std::size_t literals = bad[last] >> 4, d = 1 + pick(8);
            if ((bad[token] & 15) + d >= 15 || literals >= 15 || literals < d) continue;
            bad[token] = static_cast<std::uint8_t>(bad[token] + d);
            bad[last] = static_cast<std::uint8_t>((literals - d) << 4 | (bad[last] & 15));
            bad.erase(bad.begin() + static_cast<std::ptrdiff_t>(m.end - d), bad.begin() + static_cast<std::ptrdiff_t>(m.end));
            test::put_be32(bad, m.start - 4, static_cast<std::uint32_t>(m.end - m.start - d));
            what = "last match " + std::to_string(d) + " longer, " + std::to_string(literals - d) + " last literals";
        } else {  // the block cut short or grown by a few bytes at its end
            const std::size_t d = 1 + pick(6);
            if (pick(2)) {
                bad.erase(bad.begin() + static_cast<std::ptrdiff_t>(m.end - d), bad.begin() + static_cast<std::ptrdiff_t>(m.end));
                test::put_be32(bad, m.start - 4, static_cast<std::uint32_t>(m.end - m.start - d));
            } else {
                bad.insert(bad.begin() + static_cast<std::ptrdiff_t>(m.end), d, static_cast<std::uint8_t>(rng()));
                test::put_be32(bad, m.start - 4, static_cast<std::uint32_t>(m.end - m.start + d));
            }
            what = "block length changed by " + std::to_string(d);
        }
        std::string cpu_message;
        const std::string d = disagreement(cpu, gpu, good, f, bad, &cpu_message);
        ++judged;
        if (!d.empty()) failures.push_back("trial " + std::to_string(trial) + ", frame " + std::to_string(f) + " block " +
                                           std::to_string(b) + ", " + what + ": " + d);
        const std::string alone = disagreement_alone(cpu, gpu, bad);
        if (!alone.empty()) failures.push_back("trial " + std::to_string(trial) + ", alone, block " + std::to_string(b) + ", " + what + ": " + alone);
        refused += !cpu_message.empty();
        offset0 += cpu_message.find("LZ4 match offset 0") != std::string::npos;
        end_rules += cpu_message.find("bytes before the end of the") != std::string::npos;
    }
    std::printf("LZ4 sequence corruptions: %zu corrupted frames, each in a batch and alone, %zu refused (%zu offset 0, %zu "
                "end-of-block rules), %zu disagreements\n",
                judged, refused, offset0, end_rules, failures.size());
    for (std::size_t k = 0; k < failures.size() && k < 20; ++k) std::printf("  %s\n", failures[k].c_str());
    CHECK(offset0 > 0);
    CHECK(end_rules > 0);
    REQUIRE(failures.empty());
}

TEST_CASE("long matches of every copy path (periods 1 to 16, offsets from 512 in 16-byte steps, others) decode on the GPU "
          "as on the CPU, at every alignment",
          "[gpu][lz4]") {
    const GoodFrames good;
    bslz4::Chunk2Sparse cpu(good.mask, kNi, kNj, PixelType::u16);
    for (const auto& setting : kSettings) {
        cuda::Chunk2Sparse gpu(good.mask, kNi, kNj, PixelType::u16, setting);
        std::vector<Chunk> chunks;
        for (unsigned shift = 0; shift < 16; ++shift)
            chunks.push_back(with_block(good.chunks[shift % kFrames], shift % 3, long_match_block(shift)));
        const std::vector<ByteView> batch(chunks.begin(), chunks.end());
        // A cut below every u16 value: each pixel the mask allows is listed, so the lists are the frames.
        const SparseBatch want = cpu.multi(batch, -1.0), got = gpu.multi(batch, -1.0);
        REQUIRE(want.frame(0).npixels > 12000);
        REQUIRE(same_lists(want, got));
        REQUIRE(disagreement_alone(cpu, gpu, chunks[5]).empty());
    }
}
