// OnError::report on the GPU: a bad frame costs only itself, wherever it lies in a batch, and the
// good frames are what they are without it; chunks of other block sizes are refused.
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
using test::ChunkMap;
using test::map_chunk;
using test::reporting;


namespace {

// A batch's frames as owned copies: lists, and powder rows as bytes (none without a matrix).
struct OwnedFrames {
    std::vector<std::vector<std::uint8_t>> values;
    std::vector<std::vector<std::uint32_t>> indices;
    std::vector<std::vector<std::uint8_t>> powders;
};
OwnedFrames own(const SparseBatch& b, const Powder* p = nullptr) {
    OwnedFrames o;
    const std::size_t bpp = pixel_size(b.pixel_type);
    for (std::size_t f = 0; f < b.nframes; ++f) {
        const SparseFrame x = b.frame(f);
        const auto* v = static_cast<const std::uint8_t*>(x.values);
        o.values.emplace_back(v, v + x.npixels * bpp);
        o.indices.emplace_back(x.indices, x.indices + x.npixels);
        if (!p) continue;
        const std::size_t row = p->bins * accumulator_size(p->acc);
        const auto* r = static_cast<const std::uint8_t*>(p->data) + f * row;
        o.powders.emplace_back(r, r + row);
    }
    return o;
}
OwnedFrames own(const IntegratedBatch& b) { return own(b.sparse, &b.powder); }

// A reporting call's batch `got`: frames `bad` have 0 pixels, zero powder rows and the CPU's
// codes and messages (`cpu`, the CPU class reporting on the same chunks); the others are `clean`
// (the same GPU class throwing, on the undamaged chunks) bit for bit.
template <class Batch>
void require_reported(const Batch& got, const OwnedFrames& clean, const SparseBatch& cpu, std::vector<std::size_t> bad) {
    std::sort(bad.begin(), bad.end());
    const SparseBatch& lists = lists_of(got);
    REQUIRE(status_difference(lists, cpu) == "");
    REQUIRE(lists.nbad == bad.size());
    for (std::size_t k = 0; k < bad.size(); ++k) {
        CHECK(lists.bad[k].frame == bad[k]);
        CHECK(lists.bad[k].code != ErrorCode::ok);
        CHECK(lists.bad[k].message.rfind("frame " + std::to_string(bad[k]) + ": ", 0) == 0);
    }
    const OwnedFrames o = own(got);
    REQUIRE(o.values.size() == clean.values.size());
    for (std::size_t f = 0; f < o.values.size(); ++f) {
        INFO("frame " << f);
        if (std::binary_search(bad.begin(), bad.end(), f)) {
            CHECK(lists.npixels[f] == 0);
            if (!o.powders.empty())
                CHECK(std::all_of(o.powders[f].begin(), o.powders[f].end(), [](std::uint8_t x) { return x == 0; }));
            continue;
        }
        CHECK(lists.code(f) == ErrorCode::ok);
        CHECK(o.values[f] == clean.values[f]);
        CHECK(o.indices[f] == clean.indices[f]);
        if (!o.powders.empty()) CHECK(o.powders[f] == clean.powders[f]);
    }
}

}  // namespace

TEST_CASE("with OnError::report, bad frames at the start, middle and end cost only themselves: the good frames as without "
          "the option, the bad ones 0 pixels, a zero powder and the CPU's code and message; multi and from_buffer, both "
          "classes, every setting", "[gpu][corrupt][report]") {
    const Stack s = eiger_stack(63, 203, PixelType::u16, 13);  // 4 blocks and a raw tail
    const std::size_t frame_bytes = 63 * 203 * 2;
    const IntegrationMatrix m =
        fixed_point_matrix(normalise_matrix(test::random_csr(37, 63 * 203, 1.5, 21).input()), PixelType::u16);
    const Accumulator acc = Accumulator::i64;
    using Chunk = std::vector<std::uint8_t>;
    // Found by the GPU's unblock (or the host's walk), by the LZ4 parse, and on the host before
    // upload (a chunk longer than any chunk of the frame is never uploaded).
    const std::vector<std::function<void(Chunk&)>> damages = {
        [](Chunk& c) { c.resize(c.size() / 2); },
        [&](Chunk& c) { test::put_be64(c, 0, frame_bytes + 2); },
        [](Chunk& c) { c.resize(c.size() + (1 << 20), 0x33); },
        [](Chunk& c) {
            const ChunkMap map = map_chunk(c, 2);
            const auto block = std::find_if(map.matches.begin(), map.matches.end(), [](const auto& b) { return !b.empty(); });
            REQUIRE(block != map.matches.end());
            const ChunkMap::Match x = block->front();
            c[x.at] = static_cast<std::uint8_t>(x.op + 1);  // before the block's start
            c[x.at + 1] = static_cast<std::uint8_t>((x.op + 1) >> 8);
        },
    };
    const std::vector<std::vector<std::size_t>> bad_sets = {{0, 6, 12}, {0}, {6}, {12}, {}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}};
    const cuda::Chunk2SparseOptions settings[] = {
        {2, 5, cuda::Unblock::gpu, -1, Codec::lz4},
        {1, 1, cuda::Unblock::cpu, -1, Codec::lz4},
        {4, 8, cuda::Unblock::cpu, -1, Codec::lz4},
        {0, 0, cuda::Unblock::gpu, -1, Codec::lz4},
    };
    const bslz4::Chunk2SparseOptions cpu_reporting{Codec::lz4, 0, OnError::report};
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type, cpu_reporting);
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, m, acc, cpu_reporting);
    for (std::size_t k = 0; k < std::size(settings); ++k) {
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, settings[k]);
        cuda::Chunk2SparseCSC gpu_csc(s.mask, s.ni, s.nj, s.type, m, acc, settings[k]);
        cuda::Chunk2Sparse gpu_r(s.mask, s.ni, s.nj, s.type, reporting(settings[k]));
        cuda::Chunk2SparseCSC gpu_csc_r(s.mask, s.ni, s.nj, s.type, m, acc, reporting(settings[k]));
        const OwnedFrames clean = own(gpu.multi(s.views(), 2.0));
        const OwnedFrames clean_csc = own(gpu_csc.multi(s.views(), 2.0));
        for (std::size_t v = 0; v < bad_sets.size(); ++v) {
            INFO("setting " << k << ", bad frames " << Catch::Detail::stringify(bad_sets[v]));
            auto chunks = s.chunks;
            for (std::size_t i = 0; i < bad_sets[v].size(); ++i) damages[(i + v) % damages.size()](chunks[bad_sets[v][i]]);
            const std::vector<ByteView> batch(chunks.begin(), chunks.end());
            require_reported(gpu_r.multi(batch, 2.0), clean, cpu.multi(batch, 2.0), bad_sets[v]);
            require_reported(gpu_csc_r.multi(batch, 2.0), clean_csc, cpu_csc.multi(batch, 2.0).sparse, bad_sets[v]);
            // from_buffer, from pageable and pinned memory; then with frame 5 outside the buffer.
            std::vector<std::uint64_t> offsets, lengths;
            std::size_t total = 0;
            for (const Chunk& c : chunks) {
                offsets.push_back(total);
                lengths.push_back(c.size());
                total += c.size() + 5;
            }
            std::vector<std::uint8_t> pageable(total);
            cuda::PinnedHostMemory pinned(total);
            for (std::size_t f = 0; f < chunks.size(); ++f) {
                std::memcpy(pageable.data() + offsets[f], chunks[f].data(), lengths[f]);
                std::memcpy(pinned.data() + offsets[f], chunks[f].data(), lengths[f]);
            }
            const ByteView pinned_view(pinned.data(), total);
            for (const ByteView base : {ByteView(pageable), pinned_view}) {
                require_reported(gpu_r.from_buffer(base, offsets, lengths, 2.0), clean,
                                 cpu.from_buffer(base, offsets, lengths, 2.0), bad_sets[v]);
                require_reported(gpu_csc_r.from_buffer(base, offsets, lengths, 2.0), clean_csc,
                                 cpu_csc.from_buffer(base, offsets, lengths, 2.0).sparse, bad_sets[v]);
            }
            offsets[5] = total + 1;
            std::vector<std::size_t> with_outside = bad_sets[v];
            if (std::find(with_outside.begin(), with_outside.end(), 5) == with_outside.end()) with_outside.push_back(5);
            const SparseBatch outside = gpu_r.from_buffer(pinned_view, offsets, lengths, 2.0);
            require_reported(outside, clean, cpu.from_buffer(pinned_view, offsets, lengths, 2.0), with_outside);
            CHECK(outside.code(5) == ErrorCode::bad_argument);
            require_reported(gpu_csc_r.from_buffer(pinned_view, offsets, lengths, 2.0), clean_csc,
                             cpu_csc.from_buffer(pinned_view, offsets, lengths, 2.0).sparse, with_outside);
            // Throwing, the same chunks: the first bad frame's code and message, as the CPU's.
            if (!bad_sets[v].empty()) {
                const FrameError first = cpu.multi(batch, 2.0).bad[0];
                try {
                    gpu.multi(batch, 2.0);
                    FAIL("no error");
                } catch (const Error& e) {
                    CHECK(e.code() == first.code);
                    CHECK(std::string(e.what()) == first.message);
                }
            }
        }
        // And the reporting objects go on with clean batches.
        const SparseBatch again = gpu_r.multi(s.views(), 2.0);
        CHECK(again.nbad == 0);
        require_same(again, bslz4::Chunk2Sparse(s.mask, s.ni, s.nj, s.type).multi(s.views(), 2.0));
    }
}

TEST_CASE("a chunk of other than 8 kB blocks is refused by the GPU with bad_argument: thrown, or a bad frame the CPU lists "
          "when reporting", "[gpu][report]") {
    const std::size_t ni = 40, nj = 50;
    const auto mask = std::vector<std::uint8_t>(ni * nj, 1);
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < 5; ++f)
        chunks.push_back(encode_chunk(test::random_pixels<std::uint16_t>(ni * nj, f), 2, {Codec::lz4, f == 2 ? std::size_t{1024} : std::size_t{0}, 3}));
    const std::vector<ByteView> batch(chunks.begin(), chunks.end());
    for (cuda::Unblock u : {cuda::Unblock::gpu, cuda::Unblock::cpu}) {
        cuda::Chunk2Sparse gpu(mask, ni, nj, PixelType::u16, {0, 0, u, -1, Codec::lz4});
        try {
            gpu.multi(batch, 65000.0);
            FAIL("no error");
        } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::bad_argument);
            CHECK_THAT(e.what(), Catch::StartsWith("frame 2: block size 1024 bytes"));
        }
        cuda::Chunk2Sparse gpu_r(mask, ni, nj, PixelType::u16, {0, 0, u, -1, Codec::lz4, OnError::report});
        const SparseBatch got = gpu_r.multi(batch, 65000.0);
        REQUIRE(got.nbad == 1);
        CHECK(got.bad[0].frame == 2);
        CHECK(got.bad[0].code == ErrorCode::bad_argument);
        CHECK(got.npixels[2] == 0);
        bslz4::Chunk2Sparse cpu(mask, ni, nj, PixelType::u16);
        const SparseBatch want = cpu.multi(batch, 65000.0);
        for (std::size_t f : {0u, 1u, 3u, 4u}) {
            const SparseFrame g = got.frame(f), c = want.frame(f);
            REQUIRE(g.npixels == c.npixels);
            CHECK(std::memcmp(g.indices, c.indices, c.npixels * 4) == 0);
            CHECK(std::memcmp(g.values, c.values, c.npixels * 2) == 0);
        }
    }
}

// ---- Device memory and pinned host memory running short.
