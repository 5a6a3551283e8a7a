// The GPU classes on bitshuffle-zstd chunks: each block is decompressed on the host into an lz4
// chunk of literals (runtime/cuda/zstd_restaging.hpp), which the GPU then decodes as any chunk.
// The CPU class is the judge: the same lists, powders and dense frames bit for bit, and for a
// bad chunk the same code and message, thrown or reported. Part of test_gpu (its main skips
// without a GPU).
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>

#include "big_endian.hpp"
#include "block_codec.hpp"
#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/host_memory.hpp"
#include "driver_allocation_hook.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"
#include "thread_pool.hpp"
#include "zstd_restaging.hpp"

using namespace bslz4;
using test::difference;
using test::lists_of;
using test::powder_difference;
using test::require_same;
using test::status_difference;
using test::Stack;

namespace {

using Chunk = std::vector<std::uint8_t>;

using test::kGpuTypes;

Chunk zstd_chunk(ByteView raw, std::size_t bpp, std::size_t block_bytes = 0) {
    return encode_chunk(raw, bpp, {Codec::zstd, block_bytes, 3});
}

// test::eiger_stack's frames, encoded with zstd.
Stack eiger_zstd(std::size_t ni, std::size_t nj, PixelType t, std::size_t frames) {
    Stack s = test::eiger_stack(ni, nj, t, frames);
    for (Chunk& c : s.chunks) c = zstd_chunk(decode_chunk(c, pixel_size(t)), pixel_size(t));
    return s;
}

// Frames of random pixels of any type (floats with NaN and infinities), every pixel used.
Stack random_zstd(std::size_t ni, std::size_t nj, PixelType t, std::size_t frames) {
    Stack s{ni, nj, t, {}, std::vector<std::uint8_t>(ni * nj, 1)};
    for (std::size_t f = 0; f < frames; ++f)
        visit_pixel_type(t, [&](auto zero) {
            using T = decltype(zero);
            s.chunks.push_back(zstd_chunk(test::random_pixels<T>(ni * nj, static_cast<std::uint32_t>(f + 100)), sizeof(T)));
        });
    return s;
}

cuda::Chunk2SparseOptions on_gpu(unsigned batch = 0, unsigned group = 0, cuda::Unblock u = cuda::Unblock::gpu,
                                 OnError e = OnError::throw_first) {
    return {batch, group, u, -1, Codec::zstd, e};
}
Chunk2SparseOptions on_cpu(OnError e = OnError::throw_first) { return {Codec::zstd, 0, e}; }

// The GPU against the CPU on `batch` ("" when they agree). Throwing: the same message and code,
// then the good frames alone, on the same object, the same lists. Reporting: the same bad frames
// and the same results. *cpu_refused: whether the CPU threw.
template <class Gpu, class Cpu>
std::string judge(Gpu& gpu, Cpu& cpu, const std::vector<ByteView>& batch, const std::vector<ByteView>& good, bool* cpu_refused) {
    constexpr double kCut = 2.0;
    std::string cpu_error;
    ErrorCode cpu_code = ErrorCode::ok;
    try {
        const auto want = cpu.multi(batch, kCut);
        *cpu_refused = false;
        try {
            const auto got = gpu.multi(batch, kCut);
            std::string d = status_difference(lists_of(got), lists_of(want));
            if (d.empty()) d = difference(got, want);
            return d.empty() ? "" : "the GPU differs: " + d;
        } catch (const Error& e) {
            return std::string("the CPU returns the batch, the GPU throws: ") + e.what();
        }
    } catch (const Error& e) {
        cpu_error = e.what();
        cpu_code = e.code();
    }
    *cpu_refused = true;
    try {
        gpu.multi(batch, kCut);
        return "the CPU throws \"" + cpu_error + "\", the GPU does not";
    } catch (const Error& e) {
        if (e.what() != cpu_error || e.code() != cpu_code)
            return "the CPU throws " + std::string(error_code_name(cpu_code)) + " \"" + cpu_error + "\", the GPU " +
                   error_code_name(e.code()) + " \"" + e.what() + "\"";
    }
    try {
        const std::string d = difference(gpu.multi(good, kCut), cpu.multi(good, kCut));
        return d.empty() ? "" : "after the error, the good frames differ: " + d;
    } catch (const Error& e) {
        return std::string("after the error, the good frames throw: ") + e.what();
    }
}

std::uint32_t be32_at(const Chunk& c, std::size_t at) {
    return (std::uint32_t{c[at]} << 24) | (std::uint32_t{c[at + 1]} << 16) | (std::uint32_t{c[at + 2]} << 8) | c[at + 3];
}

// The chunk with block b's compressed bytes (its zstd frame) replaced by `block`, its length too.
Chunk with_block(const Chunk& chunk, std::size_t bpp, std::size_t b, const Chunk& block) {
    const BlockLayout layout = block_starts(chunk, bpp);
    const std::size_t at = layout.starts[b], end = at + 4 + be32_at(chunk, at);
    Chunk out(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(at + 4));
    test::put_be32(out, at, static_cast<std::uint32_t>(block.size()));
    out.insert(out.end(), block.begin(), block.end());
    out.insert(out.end(), chunk.begin() + static_cast<std::ptrdiff_t>(end), chunk.end());
    return out;
}

Chunk block_bytes_of(const Chunk& chunk, std::size_t bpp, std::size_t b) {
    const BlockLayout layout = block_starts(chunk, bpp);
    const auto from = chunk.begin() + static_cast<std::ptrdiff_t>(layout.starts[b] + 4);
    return Chunk(from, from + be32_at(chunk, layout.starts[b]));
}

}  // namespace

TEST_CASE("a restaged zstd chunk is an lz4 chunk of literal blocks, its length set by the frame, that the CPU's lz4 "
          "decoder reads as the zstd chunk's pixels; a zstd chunk that does not decode is staged empty with the CPU's verdict",
          "[gpu][zstd]") {
    struct Shape {
        std::size_t ni, nj;
    };
    for (const Shape& shape : {Shape{1, 5}, Shape{3, 5}, Shape{7, 13}, Shape{61, 137}, Shape{300, 517}})
        for (PixelType t : kGpuTypes) {
            INFO(pixel_type_name(t) << " " << shape.ni << " x " << shape.nj);
            Stack s = random_zstd(shape.ni, shape.nj, t, 4);
            s.chunks.push_back(s.chunks[0]);
            s.chunks.back().pop_back();  // frame 4: its raw tail cut, or its last block
            const cuda::detail::FrameFormat format(s.ni, s.nj, t);
            const cuda::detail::FrameFaults faults(format, Codec::zstd);
            detail::ThreadPool threads(3);
            cuda::detail::ZstdRestaging restaging(format, faults, threads);
            REQUIRE(restaging.chunk_bytes() <= format.max_chunk_bytes);
            const std::size_t room = (restaging.chunk_bytes() + 15) / 16 * 16, n = s.chunks.size();
            std::vector<std::uint8_t> staged(n * room, 0xEE);
            std::vector<std::uint64_t> offs(n), lens(n);
            for (std::size_t k = 0; k < n; ++k) offs[k] = k * room;
            const auto lookup = [&](std::size_t f) { return ByteView(s.chunks[f - 10]); };
            restaging.restage(10, n, cuda::detail::ChunkSource(lookup), staged.data(), offs.data(), lens.data());
            for (std::size_t k = 0; k + 1 < n; ++k) {
                REQUIRE(lens[k] == restaging.chunk_bytes());
                const ByteView restaged(staged.data() + offs[k], lens[k]);
                REQUIRE(decode_chunk(restaged, pixel_size(s.type), Codec::lz4) == decode_chunk(s.chunks[k], pixel_size(s.type), Codec::zstd));
                const BlockLayout layout = block_starts(restaged, pixel_size(s.type));
                REQUIRE(std::memcmp(restaged.data, s.chunks[k].data(), 12) == 0);  // the chunk's own header
                for (std::size_t b = 0; b < layout.n_blocks(); ++b) {  // one token, its length bytes, the literals
                    const std::size_t bytes = layout.block_elems(b) * pixel_size(s.type);
                    CHECK(detail::load_be32(restaged.data + layout.starts[b]) == 1 + (bytes < 15 ? 0 : (bytes - 15) / 255 + 1) + bytes);
                }
            }
            REQUIRE(lens[n - 1] == 0);
            REQUIRE(restaging.refused().size() == 1);
            CHECK(restaging.refused()[0].frame == 10 + n - 1);
            std::string cpu_message;
            ErrorCode cpu_code = ErrorCode::ok;
            try {
                decode_chunk(s.chunks.back(), pixel_size(s.type), Codec::zstd);
            } catch (const Error& e) {
                cpu_message = e.what();
                cpu_code = e.code();
            }
            CHECK(restaging.refused()[0].verdict.message == cpu_message);
            CHECK(restaging.refused()[0].verdict.code == cpu_code);
        }
}

TEST_CASE("zstd chunks of every GPU pixel type: the GPU's lists equal the CPU's at every cut, frames above cap listed on "
          "the host",
          "[gpu][zstd]") {
    for (PixelType t : kGpuTypes) {
        const Stack s = eiger_zstd(300, 517, t, 12);  // a short last block and a raw tail of 4 pixels
        bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, t, on_cpu());
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, t, on_gpu());
        for (double cut : {-0.5, 0.0, 2.0, 10.5, 1000.0, std::numeric_limits<double>::quiet_NaN()}) {
            INFO(pixel_type_name(t) << " cut " << cut);
            const SparseBatch want = cpu.multi(s.views(), cut);
            require_same(gpu.multi(s.views(), cut), want);
            std::size_t above = 0;
            for (std::size_t f = 0; f < want.nframes; ++f) above += want.frame(f).npixels > gpu.cap();
            CHECK(gpu.last_host() == above);
            if (cut == -0.5 && (t == PixelType::u8 || t == PixelType::u16 || t == PixelType::u32)) CHECK(above == 12);
        }
    }
}

TEST_CASE("zstd frames of under 8 pixels, smaller than a block, or with a raw tail: multi, operator() and coo equal the CPU",
          "[gpu][zstd]") {
    struct Shape {
        std::size_t ni, nj;
    };
    // 5 pixels: no block, the raw tail only; 15: one block of 8 and 7 raw; 91: one short block
    // and 3 raw; 61 x 137: blocks, a short last one, 5 raw.
    for (const Shape& shape : {Shape{1, 5}, Shape{3, 5}, Shape{7, 13}, Shape{61, 137}})
        for (PixelType t : kGpuTypes) {
            INFO(pixel_type_name(t) << " " << shape.ni << " x " << shape.nj);
            const Stack s = random_zstd(shape.ni, shape.nj, t, 5);
            bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, t, on_cpu());
            for (cuda::Unblock u : {cuda::Unblock::gpu, cuda::Unblock::cpu}) {
                cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, t, on_gpu(0, 0, u));
                for (double cut : {-1e30, 0.0, 3.0}) {
                    require_same(gpu.multi(s.views(), cut), cpu.multi(s.views(), cut));
                    const SparseFrame g = gpu(s.chunks[2], cut), c = cpu(s.chunks[2], cut);
                    REQUIRE(g.npixels == c.npixels);
                    REQUIRE(std::memcmp(g.indices, c.indices, 4 * c.npixels) == 0);
                    REQUIRE(std::memcmp(g.values, c.values, c.npixels * pixel_size(s.type)) == 0);
                    const CooFrame gc = gpu.coo(s.chunks[4], cut), cc = cpu.coo(s.chunks[4], cut);
                    CHECK(gc.row == cc.row);
                    CHECK(gc.col == cc.col);
                    CHECK(gc.value_bytes == cc.value_bytes);
                }
                const auto dense = gpu.decompress(s.views()).to_host();
                for (std::size_t f = 0; f < 5; ++f)
                    REQUIRE(std::memcmp(dense.data() + f * s.ni * s.nj * pixel_size(s.type), decode_chunk(s.chunks[f], pixel_size(s.type), Codec::zstd).data(),
                                        s.ni * s.nj * pixel_size(s.type)) == 0);
            }
        }
}

TEST_CASE("zstd chunks: multi, from_buffer from pageable and pinned memory, operator(), coo, decompress and time_on_device "
          "agree with the CPU, for groups unblocked on the host (up to 4 frames) and on the GPU",
          "[gpu][zstd]") {
    const Stack s = eiger_zstd(300, 517, PixelType::u16, 40);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type, on_cpu());
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    bslz4::Chunk2Sparse cpu_other(s.mask, s.ni, s.nj, s.type, on_cpu());  // the other calls: `want` stays
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const auto& c : s.chunks) {
        offsets.push_back(total);
        lengths.push_back(c.size());
        total += c.size() + 3;
    }
    std::vector<std::uint8_t> pageable(total);
    cuda::PinnedHostMemory pinned(total);
    for (std::size_t f = 0; f < s.chunks.size(); ++f) {
        std::memcpy(pageable.data() + offsets[f], s.chunks[f].data(), lengths[f]);
        std::memcpy(pinned.data() + offsets[f], s.chunks[f].data(), lengths[f]);
    }
    struct Setting {
        unsigned batch, group;
        cuda::Unblock unblock;
    };
    for (const Setting& o : {Setting{0, 0, cuda::Unblock::gpu}, Setting{1, 1, cuda::Unblock::gpu}, Setting{3, 4, cuda::Unblock::gpu},
                             Setting{2, 5, cuda::Unblock::gpu}, Setting{7, 33, cuda::Unblock::cpu}, Setting{64, 100, cuda::Unblock::cpu}}) {
        INFO("batch " << o.batch << " group " << o.group);
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, on_gpu(o.batch, o.group, o.unblock));
        for (int round = 0; round < 2; ++round) {
            require_same(gpu.multi(s.views(), 3.0), want);
            require_same(gpu.from_buffer(pageable, offsets, lengths, 3.0), want);
            require_same(gpu.from_buffer(ByteView(pinned.data(), total), offsets, lengths, 3.0), want);
        }
        const std::vector<ByteView> one = {s.chunks[17]};
        require_same(gpu.multi(one, 3.0), cpu_other.multi(one, 3.0));
        for (std::size_t f : {0, 23, 39}) {
            const SparseFrame g = gpu(s.chunks[f], 3.0);
            REQUIRE(g.npixels == want.frame(f).npixels);
            REQUIRE(std::memcmp(g.indices, want.frame(f).indices, 4 * g.npixels) == 0);
            REQUIRE(std::memcmp(g.values, want.frame(f).values, 2 * g.npixels) == 0);
        }
        const CooFrame gc = gpu.coo(s.chunks[5], 3.0), cc = cpu_other.coo(s.chunks[5], 3.0);
        CHECK(gc.row == cc.row);
        CHECK(gc.col == cc.col);
        CHECK(gc.value_bytes == cc.value_bytes);
        const std::vector<ByteView> some(s.chunks.begin(), s.chunks.begin() + 9);
        const auto dense = gpu.decompress(some).to_host();
        for (std::size_t f = 0; f < some.size(); ++f)
            REQUIRE(std::memcmp(dense.data() + f * s.ni * s.nj * 2, decode_chunk(s.chunks[f], 2, Codec::zstd).data(), s.ni * s.nj * 2) == 0);
        const std::vector<ByteView> group(s.chunks.begin(), s.chunks.begin() + std::min<std::size_t>(gpu.group(), 6));
        CHECK(gpu.time_on_device(group, 3.0, 2) > 0);
    }
}

TEST_CASE("reserve sizes for zstd chunks as restaged: reserved for the chunks' own length, the first call allocates no "
          "device memory",
          "[gpu][zstd][memory]") {
    const Stack s = eiger_zstd(300, 517, PixelType::u16, 40);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type, on_cpu());
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    std::size_t longest = 0;
    for (const auto& c : s.chunks) longest = std::max(longest, c.size());
    REQUIRE(longest < s.ni * s.nj);  // under half a frame: far shorter than what a restaged chunk uploads
    for (const cuda::Chunk2SparseOptions& o : {on_gpu(), on_gpu(2, 5), on_gpu(3, 16, cuda::Unblock::cpu)}) {
        INFO("batch " << o.batch << " group " << o.group);
        cuda::Chunk2Sparse reserved(s.mask, s.ni, s.nj, s.type, o);
        reserved.reserve(40, longest);
        std::size_t device_allocations = 0;
        {
            test::DriverAllocationHook counter;
            require_same(reserved.multi(s.views(), 3.0), want);
            device_allocations = counter.device_count();
        }
        CHECK(device_allocations == 0);
    }
}

TEST_CASE("Chunk2SparseCSC on zstd chunks: multi and integrate equal the CPU's lists and powders (i64 exact, f64)",
          "[gpu][zstd][integrate]") {
    const std::size_t ni = 70, nj = 90, n = ni * nj;
    const IntegrationMatrix m = normalise_matrix(test::random_csr(33, n, 2.0, 5).input());
    for (PixelType t : {PixelType::u16, PixelType::i32, PixelType::u8, PixelType::f32}) {
        const Stack s = eiger_zstd(ni, nj, t, 30);
        const auto mask = test::random_mask(n, 12);
        std::vector<Accumulator> accs = {Accumulator::f64};
        if (t != PixelType::f32) accs.push_back(Accumulator::i64);
        for (Accumulator acc : accs) {
            const IntegrationMatrix use = acc == Accumulator::i64 ? fixed_point_matrix(m, t) : m;
            bslz4::Chunk2SparseCSC cpu(mask, ni, nj, t, use, acc, on_cpu());
            for (const cuda::Chunk2SparseOptions& o : {on_gpu(), on_gpu(1, 1), on_gpu(4, 8, cuda::Unblock::cpu)}) {
                INFO(pixel_type_name(t) << " acc " << accumulator_name(acc) << " batch " << o.batch << " group " << o.group);
                cuda::Chunk2SparseCSC gpu(mask, ni, nj, t, use, acc, o);
                const std::vector<ByteView> all = s.views(), one = {s.chunks[4]};
                for (const auto* frames : {&all, &one}) REQUIRE(difference(gpu.multi(*frames, 3.0), cpu.multi(*frames, 3.0)) == "");
                const IntegratedBatch want = cpu.multi(all, 3.0);
                const auto host = gpu.integrate(all).to_host();
                const Powder on_device{all.size(), want.powder.bins, acc, host.data(), want.powder.powder_scale};
                REQUIRE(powder_difference(on_device, want.powder) == "");
            }
        }
    }
}

TEST_CASE("corrupt zstd chunks, first, inside or last in a batch, alone or two, give the CPU's code and message, thrown "
          "or reported; the good frames stay exact",
          "[gpu][zstd][corrupt]") {
    const Stack s = eiger_zstd(63, 203, PixelType::u16, 13);  // blocks 0-2 of 8192 bytes, block 3 of 992, 5 raw pixels
    const std::size_t bpp = 2, frame_bytes = 63 * 203 * bpp;
    const IntegrationMatrix matrix = fixed_point_matrix(normalise_matrix(test::random_csr(37, 63 * 203, 1.5, 21).input()), s.type);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type, on_cpu()), cpu_report(s.mask, s.ni, s.nj, s.type, on_cpu(OnError::report));
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, matrix, Accumulator::i64, on_cpu()),
        cpu_csc_report(s.mask, s.ni, s.nj, s.type, matrix, Accumulator::i64, on_cpu(OnError::report));
    struct Damage {
        const char* what;
        bool cpu_refuses;  // false: a valid chunk still (the GPU must then list it)
        std::function<void(Chunk&)> apply;
    };
    const auto block_at = [&](const Chunk& c, std::size_t b) { return block_starts(c, bpp).starts[b]; };
    const Chunk filler(4096, 7);
    const Chunk noise = [] {
        Chunk n(700);
        for (std::size_t k = 0; k < n.size(); ++k) n[k] = static_cast<std::uint8_t>(k * 131 + 7);
        return n;
    }();
    const std::vector<Damage> damages = {
        {"empty chunk", true, [](Chunk& c) { c.clear(); }},
        {"cut inside the header", true, [](Chunk& c) { c.resize(7); }},
        {"cut inside block 1's zstd frame", true, [&](Chunk& c) { c.resize(block_at(c, 1) + 4 + be32_at(c, block_at(c, 1)) / 2); }},
        {"cut inside the raw tail", true, [](Chunk& c) { c.pop_back(); }},
        {"block 0's length one byte longer", true,
         [&](Chunk& c) { test::put_be32(c, block_at(c, 0), be32_at(c, block_at(c, 0)) + 1); }},
        {"block 1's length one byte shorter", true,
         [&](Chunk& c) { test::put_be32(c, block_at(c, 1), be32_at(c, block_at(c, 1)) - 1); }},
        {"block 2's length past the end of the chunk", true,
         [&](Chunk& c) { test::put_be32(c, block_at(c, 2), static_cast<std::uint32_t>(c.size())); }},
        {"1 MB left over", true, [](Chunk& c) { c.resize(c.size() + (1 << 20), 0x33); }},
        {"block 1 a garbage zstd frame", true, [&](Chunk& c) { c = with_block(c, bpp, 1, noise); }},
        {"block 2's bytes after the magic number scrambled", true, [&](Chunk& c) {
             const std::size_t at = block_at(c, 2) + 4, len = be32_at(c, block_at(c, 2));
             for (std::size_t k = 8; k < len; ++k) c[at + k] ^= static_cast<std::uint8_t>(0x5A + k);
         }},
        {"block 0 a zstd frame of 4096 bytes", true, [&](Chunk& c) {
             Chunk half;
             detail::compress_zstd(filler.data(), filler.size(), 3, half);  // records 4096 bytes of content
             c = with_block(c, bpp, 0, half);
         }},
        {"the last block of length 0", true, [&](Chunk& c) { c = with_block(c, bpp, 3, {}); }},
        {"block 1 an lz4 block (the lz4 codec's)", true, [&](Chunk& c) {
             Chunk lz4;
             detail::compress_lz4(filler.data(), filler.size(), lz4);
             c = with_block(c, bpp, 1, lz4);
         }},
        {"decoded size one pixel more", true, [&](Chunk& c) { test::put_be64(c, 0, frame_bytes + bpp); }},
        {"decoded size one block less", true, [&](Chunk& c) { test::put_be64(c, 0, frame_bytes - 8192); }},
        {"decoded size 2^62", true, [&](Chunk& c) { test::put_be64(c, 0, std::uint64_t{1} << 62); }},
        {"block size field 4096", true, [](Chunk& c) { test::put_be32(c, 8, 4096); }},
        {"block size not a whole group of pixels", true, [](Chunk& c) { test::put_be32(c, 8, 8193); }},
        // Valid still: zstd decodes a skippable frame after a block's frame to nothing, and the
        // chunk is longer than any lz4 chunk of the frame (which the GPU would refuse as such).
        {"a skippable frame of 40000 bytes after block 1's frame", false, [&](Chunk& c) {
             Chunk block = block_bytes_of(c, bpp, 1);
             const std::uint8_t skippable[8] = {0x50, 0x2A, 0x4D, 0x18, 0x40, 0x9C, 0x00, 0x00};  // magic, 40000 LE
             block.insert(block.end(), skippable, skippable + 8);
             block.resize(block.size() + 40000, 0xAB);
             c = with_block(c, bpp, 1, block);
             REQUIRE(c.size() > 12 + 4 * (4 + 8240) + 10);
         }},
    };
    struct Setting {
        unsigned batch, group;
        cuda::Unblock unblock;
    };
    std::vector<std::string> failures;
    std::size_t refused = 0, inputs = 0;
    for (const Setting& o : {Setting{2, 5, cuda::Unblock::gpu}, Setting{1, 1, cuda::Unblock::cpu}, Setting{0, 0, cuda::Unblock::gpu}}) {
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, on_gpu(o.batch, o.group, o.unblock)),
            gpu_report(s.mask, s.ni, s.nj, s.type, on_gpu(o.batch, o.group, o.unblock, OnError::report));
        cuda::Chunk2SparseCSC gpu_csc(s.mask, s.ni, s.nj, s.type, matrix, Accumulator::i64, on_gpu(o.batch, o.group, o.unblock)),
            gpu_csc_report(s.mask, s.ni, s.nj, s.type, matrix, Accumulator::i64,
                           on_gpu(o.batch, o.group, o.unblock, OnError::report));
        // One frame damaged (first, inside, last), or two: this damage at 2, garbage at 9.
        const std::vector<std::vector<std::size_t>> places = {{0}, {6}, {12}, {2, 9}};
        for (const Damage& d : damages)
            for (const auto& at : places) {
                std::vector<Chunk> bad = s.chunks;
                d.apply(bad[at[0]]);
                if (at.size() > 1) bad[at[1]] = with_block(bad[at[1]], bpp, 0, noise);
                const std::vector<ByteView> batch(bad.begin(), bad.end());
                std::vector<ByteView> good;
                for (std::size_t f = 0; f < bad.size(); ++f)
                    if (std::find(at.begin(), at.end(), f) == at.end()) good.push_back(s.chunks[f]);
                inputs += at.size();
                const std::string where = std::string("batch ") + std::to_string(o.batch) + " group " + std::to_string(o.group) +
                                          ", " + d.what + " at frame " + std::to_string(at[0]) + (at.size() > 1 ? " (and 9)" : "") + ": ";
                bool cpu_refused = false, ignored = false;
                std::string f = judge(gpu, cpu, batch, good, &cpu_refused);
                if (!f.empty()) failures.push_back(where + "lists: " + f);
                f = judge(gpu_report, cpu_report, batch, good, &ignored);
                if (!f.empty()) failures.push_back(where + "lists, reporting: " + f);
                f = judge(gpu_csc, cpu_csc, batch, good, &ignored);
                if (!f.empty()) failures.push_back(where + "powders: " + f);
                f = judge(gpu_csc_report, cpu_csc_report, batch, good, &ignored);
                if (!f.empty()) failures.push_back(where + "powders, reporting: " + f);
                if (at.size() == 1 && cpu_refused != d.cpu_refuses)
                    failures.push_back(where + (cpu_refused ? "the CPU refuses a valid chunk" : "the CPU accepts the damage"));
                refused += cpu_refused;
            }
    }
    std::printf("corrupt zstd chunks: %zu corrupted inputs, %zu batches refused by the CPU, %zu disagreements\n", inputs, refused,
                failures.size());
    for (std::size_t k = 0; k < failures.size() && k < 20; ++k) std::printf("  %s\n", failures[k].c_str());
    INFO(failures.size() << " disagreements; the first: " << (failures.empty() ? "" : failures[0]));
    REQUIRE(failures.empty());
}

TEST_CASE("a zstd chunk of other than 8 kB blocks is refused by the GPU with bad_argument, thrown or reported, the other "
          "frames exact",
          "[gpu][zstd]") {
    const Stack s = eiger_zstd(40, 300, PixelType::u16, 6);
    std::vector<Chunk> chunks = s.chunks;
    chunks[3] = zstd_chunk(decode_chunk(s.chunks[3], 2, Codec::zstd), 2, 4096);
    const std::vector<ByteView> batch(chunks.begin(), chunks.end());
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, on_gpu());
    try {
        gpu.multi(batch, 2.0);
        FAIL("a chunk of 4096-byte blocks was taken");
    } catch (const Error& e) {
        CHECK(e.code() == ErrorCode::bad_argument);
        CHECK_THAT(e.what(), Catch::StartsWith("frame 3: block size 4096 bytes") && Catch::Contains("use bslz4::Chunk2Sparse (CPU)"));
    }
    cuda::Chunk2Sparse gpu_report(s.mask, s.ni, s.nj, s.type, on_gpu(0, 0, cuda::Unblock::gpu, OnError::report));
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type, on_cpu());
    const SparseBatch got = gpu_report.multi(batch, 2.0);
    REQUIRE(got.nbad == 1);
    CHECK(got.bad[0].frame == 3);
    CHECK(got.bad[0].code == ErrorCode::bad_argument);
    const SparseBatch want = cpu.multi(s.views(), 2.0);
    for (std::size_t f = 0; f < 6; ++f) {
        if (f == 3) continue;
        const SparseFrame g = got.frame(f), c = want.frame(f);
        REQUIRE(g.npixels == c.npixels);
        REQUIRE(std::memcmp(g.indices, c.indices, 4 * c.npixels) == 0);
    }
}
