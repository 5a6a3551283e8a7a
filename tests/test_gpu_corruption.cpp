// Corrupted chunks on the GPU: every kind of damage, first, inside or last in a batch, and random
// damage to one or two frames, judged as the CPU class judges the same chunks; the good frames of
// a batch stay exact.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <optional>
#include <random>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "context.hpp"
#include "driver_allocation_hook.hpp"
#include "driver_api.hpp"
#include "error_codes.hpp"
#include "cli/file_io.hpp"
#include "chunk_map.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "bench/pinned_chunks.hpp"
#include "cli/reference_cases.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::eiger_stack;
using test::difference;
using test::lists_of;
using test::require_same;
using test::status_difference;
using test::Stack;


namespace bslz4::test {
std::size_t corrupted_inputs = 0;
}  // namespace bslz4::test
using test::corrupted_inputs;
using test::ChunkMap;
using test::map_chunk;
using test::load_be32;
using test::reporting;

namespace {

int quick_level() { return std::atoi(test::env_or("BSLZ4_GPU_QUICK", "0").c_str()); }

// The GPU against the CPU on `batch`, whose frames `damaged` were corrupted; `good` is the
// batch without them. Returns what went wrong ("" when nothing); counts the corrupted inputs.
template <class Gpu, class Cpu>
std::string judge(Gpu& gpu, Cpu& cpu, const std::vector<ByteView>& batch, const std::vector<ByteView>& good,
                  std::size_t damaged, double cut, bool& cpu_refused) {
    corrupted_inputs += damaged;
    std::string cpu_error, gpu_error;
    ErrorCode cpu_code = ErrorCode::ok, gpu_code = ErrorCode::ok;
    try {
        const auto want = cpu.multi(batch, cut);
        try {
            const auto got = gpu.multi(batch, cut);
            cpu_refused = false;
            const std::string d = difference(got, want);
            return d.empty() ? "" : "the CPU accepts the batch, the GPU differs: " + d;
        } catch (const Error& e) {
            cpu_refused = false;
            return std::string("the CPU accepts the batch, the GPU throws: ") + e.what();
        }
    } catch (const Error& e) {
        cpu_error = e.what();
        cpu_code = e.code();
    }
    cpu_refused = true;
    try {
        gpu.multi(batch, cut);
        return "the CPU throws \"" + cpu_error + "\", the GPU does not";
    } catch (const Error& e) {
        gpu_error = e.what();
        gpu_code = e.code();
    }
    if (gpu_error != cpu_error) return "the CPU throws \"" + cpu_error + "\", the GPU \"" + gpu_error + "\"";
    if (gpu_code != cpu_code)
        return std::string("the CPU throws code ") + error_code_name(cpu_code) + ", the GPU " + error_code_name(gpu_code) +
               " (\"" + cpu_error + "\")";
    // The next call on the same object: the good frames alone.
    try {
        const auto got = gpu.multi(good, cut);
        const auto want = cpu.multi(good, cut);
        const std::string d = difference(got, want);
        return d.empty() ? "" : "after the error, the good frames differ: " + d;
    } catch (const Error& e) {
        return std::string("after the error, the good frames throw: ") + e.what();
    }
}

// With OnError::report, the GPU's batch against the CPU's: neither throws for a bad chunk.
template <class Gpu, class Cpu>
std::string judge_report(Gpu& gpu, Cpu& cpu, const std::vector<ByteView>& batch, double cut) {
    try {
        const auto want = cpu.multi(batch, cut);
        try {
            const auto got = gpu.multi(batch, cut);
            std::string d = status_difference(lists_of(got), lists_of(want));
            if (d.empty()) d = difference(got, want);
            return d.empty() ? "" : "reporting: " + d;
        } catch (const Error& e) {
            return std::string("reporting, the GPU throws: ") + e.what();
        }
    } catch (const Error& e) {
        return std::string("reporting, the CPU throws: ") + e.what();
    }
}


// One stack of frames with its CPU judges and GPU objects in several batch / group settings.
struct CorruptionBench {
    Stack stack;
    IntegrationMatrix matrix;
    Accumulator acc;
    bslz4::Chunk2Sparse cpu;
    bslz4::Chunk2SparseCSC cpu_csc;
    bslz4::Chunk2Sparse cpu_report;
    bslz4::Chunk2SparseCSC cpu_csc_report;
    std::vector<cuda::Chunk2SparseOptions> settings;
    std::vector<cuda::Chunk2Sparse> gpu, gpu_report;
    std::vector<cuda::Chunk2SparseCSC> gpu_csc, gpu_csc_report;
    std::vector<ChunkMap> maps;

    CorruptionBench(Stack s, std::vector<cuda::Chunk2SparseOptions> o)
        : stack(std::move(s)),
          matrix(make_matrix(stack.ni * stack.nj, stack.type)),
          acc(stack.type == PixelType::f32 ? Accumulator::f64 : Accumulator::i64),
          cpu(stack.mask, stack.ni, stack.nj, stack.type),
          cpu_csc(stack.mask, stack.ni, stack.nj, stack.type, matrix, acc),
          cpu_report(stack.mask, stack.ni, stack.nj, stack.type, {Codec::lz4, 0, OnError::report}),
          cpu_csc_report(stack.mask, stack.ni, stack.nj, stack.type, matrix, acc, {Codec::lz4, 0, OnError::report}),
          settings(std::move(o)) {
        for (const auto& opt : settings) {
            gpu.emplace_back(stack.mask, stack.ni, stack.nj, stack.type, opt);
            gpu_csc.emplace_back(stack.mask, stack.ni, stack.nj, stack.type, matrix, acc, opt);
            gpu_report.emplace_back(stack.mask, stack.ni, stack.nj, stack.type, reporting(opt));
            gpu_csc_report.emplace_back(stack.mask, stack.ni, stack.nj, stack.type, matrix, acc, reporting(opt));
        }
        for (const auto& c : stack.chunks) maps.push_back(map_chunk(c, pixel_size(stack.type)));
    }

    static IntegrationMatrix make_matrix(std::size_t n, PixelType t) {
        const IntegrationMatrix m = normalise_matrix(test::random_csr(37, n, 1.5, 21).input());
        return t == PixelType::f32 ? m : fixed_point_matrix(m, t);
    }

    // Judges `bad` (the stack with frames `damaged` replaced) with setting k, lists and powders,
    // throwing and reporting.
    std::vector<std::string> judge_both(std::size_t k, const std::vector<std::vector<std::uint8_t>>& bad,
                                        const std::vector<std::size_t>& damaged, bool& cpu_refused) {
        const std::vector<ByteView> batch(bad.begin(), bad.end());
        std::vector<ByteView> good;
        for (std::size_t f = 0; f < bad.size(); ++f)
            if (std::find(damaged.begin(), damaged.end(), f) == damaged.end()) good.push_back(stack.chunks[f]);
        bool refused_csc = false;
        std::vector<std::string> out;
        const double cut = 2.0;
        std::string d = judge(gpu[k], cpu, batch, good, damaged.size(), cut, cpu_refused);
        if (!d.empty()) out.push_back("lists: " + d);
        d = judge_report(gpu_report[k], cpu_report, batch, cut);
        if (!d.empty()) out.push_back("lists: " + d);
        if (quick_level() >= 2) return out;  // racecheck: the lists' kernels alone
        d = judge(gpu_csc[k], cpu_csc, batch, good, damaged.size(), cut, refused_csc);
        if (!d.empty()) out.push_back("powders: " + d);
        d = judge_report(gpu_csc_report[k], cpu_csc_report, batch, cut);
        if (!d.empty()) out.push_back("powders: " + d);
        return out;
    }
};

const std::vector<cuda::Chunk2SparseOptions> kCorruptionSettings = {
    {2, 5, cuda::Unblock::gpu, -1, Codec::lz4},  // groups [0 1] [2..6] [7..11] [12]
    {1, 1, cuda::Unblock::cpu, -1, Codec::lz4},  // a group a frame, block headers walked on the host
    {4, 8, cuda::Unblock::gpu, -1, Codec::lz4},  // groups [0..3] [4..11] [12]
    {0, 0, cuda::Unblock::gpu, -1, Codec::lz4},  // the defaults: one group
};

std::vector<cuda::Chunk2SparseOptions> corruption_settings() {
    if (quick_level() == 0) return kCorruptionSettings;
    if (quick_level() == 1) return {kCorruptionSettings[0], kCorruptionSettings[1]};
    return {kCorruptionSettings[0]};
}

void report_failures(const char* what, std::size_t inputs, const std::vector<std::string>& failures) {
    std::printf("%s: %zu corrupted inputs, %zu disagreements with the CPU\n", what, inputs, failures.size());
    for (std::size_t k = 0; k < failures.size() && k < 20; ++k) std::printf("  %s\n", failures[k].c_str());
    INFO(failures.size() << " disagreements; the first: " << (failures.empty() ? "" : failures[0]));
    REQUIRE(failures.empty());
}

}  // namespace

TEST_CASE("every kind of corrupted chunk, first, inside or last in a batch, fails as on the CPU; the good frames stay exact",
          "[gpu][corrupt]") {
    CorruptionBench bench(eiger_stack(63, 203, PixelType::u16, 13), corruption_settings());  // 4 blocks and a raw tail
    const std::size_t bpp = 2, frame_bytes = 63 * 203 * bpp;
    using Chunk = std::vector<std::uint8_t>;
    struct Damage {
        const char* what;
        bool cpu_refuses;  // false: the CPU's verdict decides
        std::function<void(Chunk&, const ChunkMap&)> apply;
    };
    auto first_match = [](const ChunkMap& m, std::size_t b) {
        REQUIRE(!m.matches[b].empty());
        return m.matches[b].front();
    };
    auto set_offset = [](Chunk& c, const ChunkMap::Match& m, std::size_t offset) {
        c[m.at] = static_cast<std::uint8_t>(offset);
        c[m.at + 1] = static_cast<std::uint8_t>(offset >> 8);
    };
    const std::vector<Damage> damages = {
        // lying decoded sizes
        {"decoded size one pixel more", true, [&](Chunk& c, const ChunkMap&) { test::put_be64(c, 0, frame_bytes + bpp); }},
        {"decoded size one block less", true, [&](Chunk& c, const ChunkMap&) { test::put_be64(c, 0, frame_bytes - 8192); }},
        {"decoded size 0", true, [&](Chunk& c, const ChunkMap&) { test::put_be64(c, 0, 0); }},
        {"decoded size 2^62", true, [&](Chunk& c, const ChunkMap&) { test::put_be64(c, 0, std::uint64_t{1} << 62); }},
        {"decoded size not a whole pixel", true, [&](Chunk& c, const ChunkMap&) { test::put_be64(c, 0, frame_bytes + 1); }},
        // block size field
        {"block size 4096", true, [](Chunk& c, const ChunkMap&) { test::put_be32(c, 8, 4096); }},
        {"block size not a whole group of pixels", true, [](Chunk& c, const ChunkMap&) { test::put_be32(c, 8, 8193); }},
        // truncations
        {"empty chunk", true, [](Chunk& c, const ChunkMap&) { c.clear(); }},
        {"cut inside the header", true, [](Chunk& c, const ChunkMap&) { c.resize(7); }},
        {"header only", true, [](Chunk& c, const ChunkMap&) { c.resize(12); }},
        {"cut inside block 1's length", true, [](Chunk& c, const ChunkMap& m) { c.resize(m.starts[1] + 2); }},
        {"cut inside block 1", true,
         [](Chunk& c, const ChunkMap& m) { c.resize(m.starts[1] + 4 + load_be32(c, m.starts[1]) / 2); }},
        {"cut after block 2", true, [](Chunk& c, const ChunkMap& m) { c.resize(m.block_end(2)); }},
        {"cut inside the raw tail", true, [](Chunk& c, const ChunkMap&) { c.pop_back(); }},
        {"a byte cut out of block 0", true, [](Chunk& c, const ChunkMap& m) { c.erase(c.begin() + m.starts[0] + 40); }},
        // lying block lengths
        {"block 0 one byte longer", true,
         [](Chunk& c, const ChunkMap& m) { test::put_be32(c, m.starts[0], load_be32(c, m.starts[0]) + 1); }},
        {"block 1 one byte shorter", true,
         [](Chunk& c, const ChunkMap& m) { test::put_be32(c, m.starts[1], load_be32(c, m.starts[1]) - 1); }},
        {"last block of length 0", true, [](Chunk& c, const ChunkMap& m) { test::put_be32(c, m.starts.back(), 0); }},
        {"block 0 of length 2^32 - 1", true, [](Chunk& c, const ChunkMap& m) { test::put_be32(c, m.starts[0], 0xFFFFFFFFu); }},
        {"block 1 swallows the rest of the chunk", true, [](Chunk& c, const ChunkMap& m) {
             test::put_be32(c, m.starts[1], static_cast<std::uint32_t>(c.size() - m.starts[1] - 4));
         }},
        {"last block one byte past the end", true, [](Chunk& c, const ChunkMap& m) {
             test::put_be32(c, m.starts.back(), static_cast<std::uint32_t>(c.size() - m.starts.back() - 4 + 1));
         }},
        {"block 2 longer than any LZ4 block of 8 kB", true, [](Chunk& c, const ChunkMap& m) {
             const std::size_t len = load_be32(c, m.starts[2]);
             c.insert(c.begin() + m.starts[2] + 4 + len, 8300 - len, std::uint8_t{0});
             test::put_be32(c, m.starts[2], 8300);
         }},
        // LZ4 offsets before the block's start
        {"block 0's first match reaches one byte before the block", true, [&](Chunk& c, const ChunkMap& m) {
             const auto x = first_match(m, 0);
             set_offset(c, x, x.op + 1);
         }},
        {"block 1's middle match has offset 65535", true, [&](Chunk& c, const ChunkMap& m) {
             REQUIRE(!m.matches[1].empty());
             set_offset(c, m.matches[1][m.matches[1].size() / 2], 0xFFFF);
         }},
        {"the last block's last match reaches one byte before the block", true, [&](Chunk& c, const ChunkMap& m) {
             REQUIRE(!m.matches.back().empty());
             const auto x = m.matches.back().back();
             set_offset(c, x, x.op + 1);
         }},
        {"block 1's first match has offset 0", false, [&](Chunk& c, const ChunkMap& m) { set_offset(c, first_match(m, 1), 0); }},
        {"block 2's last match moved to another valid offset", false, [&](Chunk& c, const ChunkMap& m) {
             REQUIRE(!m.matches[2].empty());
             const auto x = m.matches[2].back();
             set_offset(c, x, 1 + (x.op + 7) % x.op);
         }},
        // block counts that disagree with the header
        {"the last block dropped", true,
         [](Chunk& c, const ChunkMap& m) { c.erase(c.begin() + m.starts.back(), c.begin() + m.tail); }},
        {"block 0 dropped", true, [](Chunk& c, const ChunkMap& m) { c.erase(c.begin() + m.starts[0], c.begin() + m.starts[1]); }},
        {"block 1 twice", true, [](Chunk& c, const ChunkMap& m) {
             const Chunk copy(c.begin() + m.starts[1], c.begin() + m.starts[2]);
             c.insert(c.begin() + m.starts[2], copy.begin(), copy.end());
         }},
        {"an empty block added before the tail", true,
         [](Chunk& c, const ChunkMap& m) { c.insert(c.begin() + m.tail, 4, std::uint8_t{0}); }},
        // bytes left over
        {"one byte left over", true, [](Chunk& c, const ChunkMap&) { c.push_back(0x5A); }},
        {"1 MB left over", true, [](Chunk& c, const ChunkMap&) { c.resize(c.size() + (1 << 20), 0x33); }},
        // bit flips
        {"block 0's first token flipped", false, [](Chunk& c, const ChunkMap& m) { c[m.starts[0] + 4] ^= 0x10; }},
        {"a bit of block 1's length flipped", true, [](Chunk& c, const ChunkMap& m) { c[m.starts[1] + 2] ^= 0x04; }},
        {"a bit of a raw tail pixel flipped (still a valid chunk)", false, [](Chunk& c, const ChunkMap&) { c.back() ^= 0x80; }},
    };
    std::vector<std::string> failures;
    const std::size_t before = corrupted_inputs;
    std::size_t refused = 0;
    for (std::size_t k = 0; k < bench.settings.size(); ++k)
        for (std::size_t at : quick_level() < 2 ? std::vector<std::size_t>{0, 8, 12} : std::vector<std::size_t>{8})
            for (const Damage& d : damages) {
                auto bad = bench.stack.chunks;
                d.apply(bad[at], bench.maps[at]);
                bool cpu_refused = false;
                for (const std::string& f : bench.judge_both(k, bad, {at}, cpu_refused))
                    failures.push_back("setting " + std::to_string(k) + ", frame " + std::to_string(at) + ", " + d.what + ": " + f);
                if (d.cpu_refuses && !cpu_refused)
                    failures.push_back(std::string("the CPU accepts '") + d.what + "': the damage is not one");
                refused += cpu_refused;
            }
    std::printf("  (%zu of the batches refused by the CPU)\n", refused);
    report_failures("every kind of damage", corrupted_inputs - before, failures);
}

TEST_CASE("random corruption of one or two frames of a batch gives the CPU's verdict, for every type and setting",
          "[gpu][corrupt]") {
    std::vector<CorruptionBench> benches;
    benches.emplace_back(eiger_stack(63, 203, PixelType::u16, 13), corruption_settings());
    benches.emplace_back(eiger_stack(41, 129, PixelType::i32, 13), corruption_settings());  // 3 blocks, 1 raw pixel
    benches.emplace_back(eiger_stack(70, 150, PixelType::u8, 13), corruption_settings());   // 2 blocks, 4 raw pixels
    benches.emplace_back(eiger_stack(33, 250, PixelType::f32, 13), corruption_settings());  // 5 blocks, 2 raw pixels
    const std::size_t trials = quick_level() == 0 ? 2500 : quick_level() == 1 ? 150 : 20;
    std::mt19937_64 rng(10);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    using Chunk = std::vector<std::uint8_t>;
    auto mutate = [&](Chunk& c, const ChunkMap& m, std::size_t bpp, std::size_t frame_bytes) {
        const std::size_t b = pick(m.starts.size());
        switch (pick(10)) {
            case 0:  // bit flips anywhere
                for (std::size_t k = 0, n = 1 + pick(4); k < n; ++k) c[pick(c.size())] ^= static_cast<std::uint8_t>(1u << pick(8));
                break;
            case 1:  // bytes of block data replaced
                for (std::size_t k = 0, n = 1 + pick(3); k < n; ++k) c[12 + pick(c.size() - 12)] = static_cast<std::uint8_t>(rng());
                break;
            case 2:  // truncated
                c.resize(pick(c.size()));
                break;
            case 3: {  // a block's length lies
                const std::uint32_t len = load_be32(c, m.starts[b]);
                const std::uint32_t lie = pick(3) == 0 ? static_cast<std::uint32_t>(rng())
                                                       : len + static_cast<std::uint32_t>(pick(33)) - 16u;
                test::put_be32(c, m.starts[b], lie);
                break;
            }
            case 4: {  // a match offset: 0, before the block, or another offset inside it
                if (m.matches[b].empty()) break;
                const ChunkMap::Match x = m.matches[b][pick(m.matches[b].size())];
                const std::size_t choice = pick(3);
                const std::size_t offset = choice == 0 ? 0 : choice == 1 ? x.op + 1 + pick(0x10000 - x.op - 1) : 1 + pick(x.op);
                c[x.at] = static_cast<std::uint8_t>(offset);
                c[x.at + 1] = static_cast<std::uint8_t>(offset >> 8);
                break;
            }
            case 5: {  // bytes inserted or cut out
                const std::size_t at = pick(c.size() + 1), n = 1 + pick(8);
                if (pick(2))
                    for (std::size_t k = 0; k < n; ++k) c.insert(c.begin() + at, static_cast<std::uint8_t>(rng()));
                else
                    c.erase(c.begin() + at, c.begin() + std::min(c.size(), at + n));
                break;
            }
            case 6:  // the decoded size lies
                test::put_be64(c, 0, pick(4) == 0 ? rng() : frame_bytes + bpp * (pick(2) ? 1 + pick(3000) : 0 - (1 + pick(3000))));
                break;
            case 7: {  // a block dropped or repeated: the block count disagrees with the header
                const Chunk block(c.begin() + m.starts[b], c.begin() + m.block_end(b));
                if (pick(2))
                    c.erase(c.begin() + m.starts[b], c.begin() + m.block_end(b));
                else
                    c.insert(c.begin() + m.block_end(b), block.begin(), block.end());
                break;
            }
            case 8:  // bytes left over
                for (std::size_t k = 0, n = 1 + pick(100); k < n; ++k) c.push_back(static_cast<std::uint8_t>(rng()));
                break;
            default: {  // the block size field
                const std::uint32_t sizes[] = {0, 4096, 16384, 8192 + 16, static_cast<std::uint32_t>(rng())};
                test::put_be32(c, 8, sizes[pick(5)]);
            }
        }
    };
    std::vector<std::string> failures;
    const std::size_t before = corrupted_inputs;
    std::size_t refused = 0;
    for (std::size_t trial = 0; trial < trials; ++trial) {
        CorruptionBench& bench = benches[trial % benches.size()];
        const std::size_t bpp = pixel_size(bench.stack.type), frame_bytes = bench.stack.ni * bench.stack.nj * bpp;
        const std::size_t k = pick(bench.settings.size());
        std::vector<std::size_t> damaged = {pick(13)};
        if (pick(8) == 0) damaged.push_back(pick(13));
        if (damaged.size() == 2 && damaged[0] == damaged[1]) damaged.pop_back();
        auto bad = bench.stack.chunks;
        for (std::size_t f : damaged) mutate(bad[f], bench.maps[f], bpp, frame_bytes);
        bool cpu_refused = false;
        for (const std::string& f : bench.judge_both(k, bad, damaged, cpu_refused))
            failures.push_back("trial " + std::to_string(trial) + " (" + pixel_type_name(bench.stack.type) + ", setting " +
                               std::to_string(k) + ", frame " + std::to_string(damaged[0]) + "): " + f);
        refused += cpu_refused;
    }
    std::printf("  (%zu of %zu batches refused by the CPU)\n", refused, trials);
    report_failures("random corruption", corrupted_inputs - before, failures);
}
