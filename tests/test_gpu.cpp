// The GPU class against the CPU class, bit for bit. Its own main: without a driver or a
// device it prints why and exits 77, which Meson reports as skipped (never a silent pass).
#define CATCH_CONFIG_RUNNER
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
#include "file_io.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "pinned_chunks.hpp"
#include "reference_cases.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::eiger_stack;
using test::difference;
using test::lists_of;
using test::require_same;
using test::status_difference;
using test::Stack;

namespace {

const PixelType kGpuTypes[] = {PixelType::u8, PixelType::u16, PixelType::u32, PixelType::i8,
                               PixelType::i16, PixelType::i32, PixelType::f32};

}  // namespace

TEST_CASE("the driver's entry points are the same through cuGetProcAddress (CUDA 11.3 drivers) as through its _v2 (12.0 on)",
          "[gpu][driver]") {
    using cuda::detail::ProcLookup;
    const cuda::detail::DriverApi newest = cuda::detail::load_driver(ProcLookup::newest);
    const cuda::detail::DriverApi v1 = cuda::detail::load_driver(ProcLookup::v1);
    CHECK(v1.driver_version == newest.driver_version);
    CHECK(v1.driver_version == cuda::detail::driver().driver_version);
#define X(name)                                       \
    {                                                 \
        INFO(#name);                                  \
        CHECK(v1.name != nullptr);                    \
        CHECK(reinterpret_cast<void*>(v1.name) == reinterpret_cast<void*>(newest.name)); \
    }
#include "driver_symbols.inc"
#undef X
}

TEST_CASE("GPU equals CPU on every reference case the GPU decodes", "[gpu]") {
    std::vector<std::string> dirs = {test::env_or("BSLZ4_LOCAL_TESTDATA", "tests/data")};
    const std::string shared = tool::default_testdata_dir();
    if (std::FILE* f = std::fopen((shared + "/cases.tsv").c_str(), "r")) {
        std::fclose(f);
        dirs.push_back(shared);
    } else {
        WARN("no shared reference data at " << shared << ": checking tests/data only");
    }
    std::size_t checked = 0;
    for (const std::string& dir : dirs)
        for (const tool::ReferenceCase& c : tool::read_reference_cases(dir)) {
            if (c.block_bytes != 8192 || c.elem_size > 4 || c.type == PixelType::u64 || c.type == PixelType::i64 ||
                c.type == PixelType::f64)
                continue;
            INFO("case " << c.name);
            const auto chunk = tool::read_file(c.chunk_path);
            const auto mask = test::random_mask(c.ni * c.nj, 9);
            bslz4::Chunk2Sparse cpu(mask, c.ni, c.nj, c.type);
            cuda::Chunk2Sparse gpu(mask, c.ni, c.nj, c.type);
            for (double cut : {-1e9, 0.0, 1.0, 100.0}) {
                const std::vector<ByteView> one = {chunk};
                require_same(gpu.multi(one, cut), cpu.multi(one, cut));
            }
            ++checked;
        }
    CHECK(checked > 100);
}

TEST_CASE("GPU equals CPU on synthetic Eiger frames of every type, with masks and cuts", "[gpu]") {
    for (PixelType t : kGpuTypes) {
        const Stack s = eiger_stack(514, 1030, t, 12);
        bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, t);
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, t);
        for (double cut : {-0.5, 0.0, 2.0, 10.5, 1000.0, std::numeric_limits<double>::quiet_NaN()}) {
            INFO(pixel_type_name(t) << " cut " << cut);
            require_same(gpu.multi(s.views(), cut), cpu.multi(s.views(), cut));
        }
    }
}

TEST_CASE("an f32 pixel is listed exactly when it is above the double cut, at every float boundary", "[gpu]") {
    using F = std::numeric_limits<float>;
    const float inf = F::infinity();
    std::vector<float> around = {0.0f, -0.0f, F::denorm_min(), -F::denorm_min(), F::min(), F::max(), -F::max(),
                                 inf, -inf, F::quiet_NaN(), 16777216.0f, 16777218.0f, 1e-30f, -1e-30f};
    for (float v : {0.1f, -0.1f, 1.0f, 0.3f, 10.5f})  // each with its neighbours on both sides
        for (float w : {std::nextafter(v, -inf), v, std::nextafter(v, inf)}) around.push_back(w);
    const std::size_t ni = 61, nj = 137;  // a short last block and a raw tail of 5 pixels
    std::vector<float> dense(ni * nj), sparse(ni * nj, 0.0f);
    for (std::size_t i = 0; i < dense.size(); ++i) dense[i] = around[i % around.size()];
    for (std::size_t i = 0; i < sparse.size(); i += 97) sparse[i] = around[(i / 97) % around.size()];
    std::vector<std::vector<std::uint8_t>> chunks;
    for (const auto* px : {&dense, &sparse})
        chunks.push_back(encode_chunk(ByteView(reinterpret_cast<const std::uint8_t*>(px->data()), px->size() * 4), 4));
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    bslz4::Chunk2Sparse cpu(mask, ni, nj, PixelType::f32);
    cuda::Chunk2Sparse gpu(mask, ni, nj, PixelType::f32);
    for (double cut : {0.1, -0.1, 0.0, -0.0, 0.3, 0.30000000000000004, 1e-45, -1e-45, 5e-324, 16777217.0,
                       static_cast<double>(F::max()), 1e300, -1e300, std::numeric_limits<double>::infinity(),
                       -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
        INFO("cut " << cut);
        require_same(gpu.multi(views, cut), cpu.multi(views, cut));
    }
}

TEST_CASE("GPU results do not depend on batch, group or who unblocks", "[gpu]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 40);  // odd size: a short last block and a tail
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    // Groups of up to 4 frames are walked on the host whatever the option says; 5 and more on the GPU.
    for (unsigned batch : {1u, 3u, 64u})
        for (unsigned group : {1u, 4u, 5u, 7u, 256u})
            for (cuda::Unblock u : {cuda::Unblock::gpu, cuda::Unblock::cpu}) {
                INFO("batch " << batch << " group " << group << " unblock " << (u == cuda::Unblock::gpu ? "gpu" : "cpu"));
                cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {batch, group, u, -1, Codec::lz4});
                require_same(gpu.multi(s.views(), 3.0), want);
            }
}

TEST_CASE("frames above cap are listed on the host, counted, and still equal the CPU", "[gpu]") {
    Stack s{64, 100, PixelType::i32, {}, std::vector<std::uint8_t>(6400, 1)};
    for (std::uint32_t f = 0; f < 5; ++f) s.chunks.push_back(encode_chunk(test::random_pixels<std::int32_t>(6400, f), 4));
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    require_same(gpu.multi(s.views(), -1e12), cpu.multi(s.views(), -1e12));  // every pixel: above cap
    CHECK(gpu.last_host() == 5);
    require_same(gpu.multi(s.views(), 1e9), cpu.multi(s.views(), 1e9));  // a few percent
    CHECK(gpu.last_host() == 0);
}

TEST_CASE("a tile with more listed pixels than it stages is listed from the dense frame", "[gpu]") {
    // 64 listed pixels in the first tile (all staged), 65 in the second (one too many), half of
    // the third, one in the fourth: the frame stays under cap, so the device lists it.
    const std::size_t ni = 64, nj = 512, n = ni * nj;
    const std::vector<std::uint8_t> mask(n, 1);
    for (PixelType t : kGpuTypes) {
        INFO(pixel_type_name(t));
        const std::size_t bpp = pixel_size(t), tile = 8192 / bpp;
        std::vector<std::uint8_t> raw(n * bpp, 0);
        auto hot = [&](std::size_t i) {
            visit_pixel_type(t, [&](auto zero) {
                const decltype(zero) v = 100;
                std::memcpy(raw.data() + i * bpp, &v, bpp);
            });
        };
        for (std::size_t k = 0; k < 64; ++k) hot(k * 61 % tile);
        for (std::size_t k = 0; k < 65; ++k) hot(tile + k * 59 % tile);
        for (std::size_t k = 0; k < tile / 2; ++k) hot(2 * tile + k);
        hot(3 * tile + 5);
        const std::vector<std::vector<std::uint8_t>> chunks = {encode_chunk(raw, bpp), encode_chunk(raw, bpp)};
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        bslz4::Chunk2Sparse cpu(mask, ni, nj, t);
        cuda::Chunk2Sparse gpu(mask, ni, nj, t);
        const SparseBatch want = cpu.multi(views, 50.0);
        REQUIRE(want.frame(0).npixels == 64 + 65 + tile / 2 + 1);
        require_same(gpu.multi(views, 50.0), want);
        CHECK(gpu.last_host() == 0);
    }
}

TEST_CASE("calls of 1 frame and of 300 frames, operator(), from_buffer and coo agree with the CPU", "[gpu]") {
    const Stack s = eiger_stack(200, 333, PixelType::f32, 300);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type);
    require_same(gpu.multi(s.views(), 4.0), cpu.multi(s.views(), 4.0));
    const std::vector<ByteView> one = {s.chunks[17]};
    require_same(gpu.multi(one, 4.0), cpu.multi(one, 4.0));
    const SparseFrame g = gpu(s.chunks[3], 4.0);
    const SparseFrame c = cpu(s.chunks[3], 4.0);
    REQUIRE(g.npixels == c.npixels);
    REQUIRE(std::memcmp(g.indices, c.indices, 4 * c.npixels) == 0);
    const CooFrame gc = gpu.coo(s.chunks[5], 4.0), cc = cpu.coo(s.chunks[5], 4.0);
    CHECK(gc.row == cc.row);
    CHECK(gc.col == cc.col);
    CHECK(gc.value_bytes == cc.value_bytes);
    // from_buffer, from pageable and from pinned memory
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const auto& ch : s.chunks) {
        offsets.push_back(total);
        lengths.push_back(ch.size());
        total += ch.size() + 3;
    }
    std::vector<std::uint8_t> pageable(total);
    cuda::PinnedHostMemory pinned(total);
    for (std::size_t f = 0; f < s.chunks.size(); ++f) {
        std::memcpy(pageable.data() + offsets[f], s.chunks[f].data(), lengths[f]);
        std::memcpy(pinned.data() + offsets[f], s.chunks[f].data(), lengths[f]);
    }
    const SparseBatch want = cpu.multi(s.views(), 4.0);
    require_same(gpu.from_buffer(pageable, offsets, lengths, 4.0), want);
    require_same(gpu.from_buffer(ByteView(pinned.data(), total), offsets, lengths, 4.0), want);
    // After chunks uploaded straight from pinned memory, staged ones need their own room again.
    require_same(gpu.from_buffer(pageable, offsets, lengths, 4.0), want);
}

TEST_CASE("long calls from pageable memory, copied into staging by several threads, equal the CPU for groups and batches "
          "of several sizes, alternating with calls from pinned memory", "[gpu]") {
    // Chunks of about 300 kB: each is copied in more than one piece, and a group in many.
    const Stack s = eiger_stack(1100, 1100, PixelType::u16, 140);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const auto& ch : s.chunks) {
        offsets.push_back(total);
        lengths.push_back(ch.size());
        total += ch.size() + 5;
    }
    REQUIRE(*std::max_element(lengths.begin(), lengths.end()) > (std::size_t{256} << 10));
    cuda::PinnedHostMemory pinned(total);
    std::vector<ByteView> in_pinned, mixed;
    for (std::size_t f = 0; f < s.chunks.size(); ++f) {
        std::memcpy(pinned.data() + offsets[f], s.chunks[f].data(), lengths[f]);
        in_pinned.emplace_back(pinned.data() + offsets[f], lengths[f]);
        mixed.push_back(f % 3 ? ByteView(s.chunks[f]) : in_pinned.back());
    }
    const ByteView base(pinned.data(), total);
    const cuda::Chunk2SparseOptions settings[] = {{0, 0, cuda::Unblock::gpu, -1, Codec::lz4},
                                                  {4, 16, cuda::Unblock::gpu, -1, Codec::lz4},
                                                  {7, 33, cuda::Unblock::cpu, -1, Codec::lz4},
                                                  {1, 5, cuda::Unblock::gpu, -1, Codec::lz4},
                                                  {64, 100, cuda::Unblock::cpu, -1, Codec::lz4}};
    for (const auto& o : settings) {
        INFO("batch " << o.batch << ", group " << o.group);
        cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, o);
        for (int round = 0; round < 2; ++round) {
            require_same(gpu.multi(s.views(), 3.0), want);
            require_same(gpu.from_buffer(base, offsets, lengths, 3.0), want);
            require_same(gpu.multi(s.views(), 3.0), want);
            require_same(gpu.multi(in_pinned, 3.0), want);
            require_same(gpu.multi(mixed, 3.0), want);
        }
        for (std::size_t f : {0, 61, 139}) {
            const SparseFrame g = gpu(s.chunks[f], 3.0);
            REQUIRE(g.npixels == want.frame(f).npixels);
            REQUIRE(std::memcmp(g.indices, want.frame(f).indices, 4 * g.npixels) == 0);
            REQUIRE(std::memcmp(g.values, want.frame(f).values, 2 * g.npixels) == 0);
        }
    }
}

TEST_CASE("two GPU objects alive at once work side by side", "[gpu]") {
    const Stack a = eiger_stack(128, 256, PixelType::u8, 9), b = eiger_stack(257, 129, PixelType::i16, 9);
    cuda::Chunk2Sparse ga(a.mask, a.ni, a.nj, a.type), gb(b.mask, b.ni, b.nj, b.type);
    bslz4::Chunk2Sparse ca(a.mask, a.ni, a.nj, a.type), cb(b.mask, b.ni, b.nj, b.type);
    for (int round = 0; round < 2; ++round) {
        require_same(ga.multi(a.views(), 2.0), ca.multi(a.views(), 2.0));
        require_same(gb.multi(b.views(), 2.0), cb.multi(b.views(), 2.0));
    }
}

TEST_CASE("objects on two GPUs work side by side, each on its own device", "[gpu][devices]") {
    if (cuda::device_count() < 2) {
        WARN("only " << cuda::device_count() << " GPU here: objects on two devices are not tested");
        return;
    }
    const std::size_t ni = 60, nj = 70, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 30);
    const IntegrationMatrix x = fixed_point_matrix(normalise_matrix(test::random_csr(17, n, 2.0, 8).input()), s.type);
    bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, s.type, x, Accumulator::i64);
    const IntegratedBatch want = cpu.multi(s.views(), 2.0);
    const cuda::Chunk2SparseOptions on0{0, 0, cuda::Unblock::gpu, 0, Codec::lz4}, on1{0, 0, cuda::Unblock::gpu, 1, Codec::lz4};
    cuda::Chunk2SparseCSC g0(s.mask, ni, nj, s.type, x, Accumulator::i64, on0);
    cuda::Chunk2SparseCSC g1(s.mask, ni, nj, s.type, x, Accumulator::i64, on1);
    cuda::Chunk2Sparse p1(s.mask, ni, nj, s.type, on1);
    for (int round = 0; round < 2; ++round) {
        const IntegratedBatch a = g0.multi(s.views(), 2.0);
        require_same(a.sparse, want.sparse);
        REQUIRE(std::memcmp(a.powder.data, want.powder.data, 30 * 17 * 8) == 0);
        const IntegratedBatch b = g1.multi(s.views(), 2.0);
        require_same(b.sparse, want.sparse);
        REQUIRE(std::memcmp(b.powder.data, want.powder.data, 30 * 17 * 8) == 0);
        require_same(p1.multi(s.views(), 2.0), want.sparse);
    }
    const cuda::DeviceArray on_1 = g1.integrate(s.views());
    CHECK(on_1.device() == 1);
    const auto host = on_1.to_host();
    CHECK(std::memcmp(host.data(), want.powder.data, 30 * 17 * 8) == 0);
}

TEST_CASE("moved GPU objects and pinned memory keep working", "[gpu]") {
    const Stack s = eiger_stack(96, 160, PixelType::u16, 6);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 2.0);
    cuda::Chunk2Sparse a(s.mask, s.ni, s.nj, s.type);
    cuda::Chunk2Sparse b(std::move(a));
    require_same(b.multi(s.views(), 2.0), want);
    cuda::Chunk2Sparse c(s.mask, 8, s.ni * s.nj / 8, s.type);  // another shape, replaced by the move
    c = std::move(b);
    require_same(c.multi(s.views(), 2.0), want);
    cuda::PinnedHostMemory p(1000), q(10);
    p.data()[999] = 7;
    q = std::move(p);
    CHECK(q.size() == 1000);
    CHECK(q.data()[999] == 7);
}

// ---- Corrupted chunks inside batches of good ones. The CPU class is the judge: for a batch it
// rejects, the GPU must throw its exact message and code (the first bad frame, by its index in
// the batch), and the same object must then list the batch's good frames bit for bit; for a
// batch it accepts, the GPU must give the same lists and powders. With OnError::report both
// return the batch, and the GPU's must equal the CPU's: the same bad frames with the same codes
// and messages, the same lists and powders (bad frames: 0 pixels, a zero powder row). Under compute-sanitizer set
// BSLZ4_GPU_QUICK=1: every kind of damage still, in two settings, and 150 random trials; =2
// (racecheck): one setting, the damaged frame inside a batch, lists only, 20 random trials.

namespace {

std::size_t corrupted_inputs = 0;  // corrupted chunks handed to the GPU, printed at exit

int quick_level() { return std::atoi(test::env_or("BSLZ4_GPU_QUICK", "0").c_str()); }

std::uint32_t load_be32(const std::vector<std::uint8_t>& c, std::size_t at) {
    return (std::uint32_t{c[at]} << 24) | (std::uint32_t{c[at + 1]} << 16) | (std::uint32_t{c[at + 2]} << 8) | c[at + 3];
}

// Where things are in a valid chunk: each block's length field, the raw tail, and every LZ4
// match's 2-byte offset with the bytes its block has decoded before it.
struct ChunkMap {
    struct Match {
        std::size_t at, op;
    };
    std::vector<std::size_t> starts;
    std::size_t tail = 0;
    std::vector<std::vector<Match>> matches;
    std::size_t block_end(std::size_t b) const { return b + 1 < starts.size() ? starts[b + 1] : tail; }
};

ChunkMap map_chunk(const std::vector<std::uint8_t>& c, std::size_t bpp) {
    const BlockLayout layout = block_starts(c, bpp);
    ChunkMap m{{}, static_cast<std::size_t>(layout.tail_offset), {}};
    m.starts.assign(layout.starts.begin(), layout.starts.end());
    for (std::size_t start : m.starts) {
        std::vector<ChunkMap::Match> found;
        std::size_t ip = start + 4, op = 0;
        const std::size_t end = ip + load_be32(c, start);
        auto extend = [&](std::size_t& n) {
            if (n != 15) return;
            for (std::uint8_t b = 255; b == 255; n += b) b = c[ip++];
        };
        while (ip < end) {
            const std::uint8_t token = c[ip++];
            std::size_t lit = token >> 4;
            extend(lit);
            ip += lit;
            op += lit;
            if (ip >= end) break;
            found.push_back({ip, op});
            ip += 2;
            std::size_t match = token & 15;
            extend(match);
            op += match + 4;
        }
        m.matches.push_back(found);
    }
    return m;
}

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

cuda::Chunk2SparseOptions reporting(cuda::Chunk2SparseOptions o) {
    o.on_error = OnError::report;
    return o;
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

namespace {

// Holds the GPU's memory as another process would, through the driver the library loaded,
// until about `leave` bytes are free; gives it all back when destroyed.
class DeviceMemoryHog {
public:
    DeviceMemoryHog() : ctx_(0) {}
    ~DeviceMemoryHog() {
        cuda::detail::ScopedContext scope(ctx_);
        for (CUdeviceptr p : held_) cuda::detail::driver().cuMemFree(p);
    }
    DeviceMemoryHog(const DeviceMemoryHog&) = delete;
    DeviceMemoryHog& operator=(const DeviceMemoryHog&) = delete;

    void leave(std::size_t bytes) {
        cuda::detail::ScopedContext scope(ctx_);
        const auto& api = cuda::detail::driver();
        for (std::size_t piece : {std::size_t{1} << 30, std::size_t{64} << 20, std::size_t{2} << 20})
            for (;;) {
                if (free_bytes() < bytes + piece) break;
                CUdeviceptr p = 0;
                if (api.cuMemAlloc(&p, piece) != CUDA_SUCCESS) break;
                held_.push_back(p);
            }
    }
    std::size_t free_bytes() const {
        cuda::detail::ScopedContext scope(ctx_);
        std::size_t free = 0, total = 0;
        cuda::detail::check(cuda::detail::driver().cuMemGetInfo(&free, &total), "cuMemGetInfo");
        return free;
    }

private:
    cuda::detail::PrimaryContext ctx_;
    std::vector<CUdeviceptr> held_;
};

// What the process writes on stderr while this lives.
class StderrCapture {
public:
    StderrCapture() : file_(std::tmpfile()) {
        std::fflush(stderr);
        saved_ = dup(2);
        dup2(fileno(file_), 2);
    }
    ~StderrCapture() {
        restore();
        std::fclose(file_);
    }
    std::string text() {
        restore();
        std::string out;
        std::rewind(file_);
        for (int ch; (ch = std::fgetc(file_)) != EOF;) out += static_cast<char>(ch);
        return out;
    }

private:
    void restore() {
        if (saved_ < 0) return;
        std::fflush(stderr);
        dup2(saved_, 2);
        close(saved_);
        saved_ = -1;
    }
    std::FILE* file_;
    int saved_ = -1;
};

std::size_t count_of(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

}  // namespace

TEST_CASE("options asking for batches and groups larger than the GPU are bounded by its free memory", "[gpu][memory]") {
    const Stack s = eiger_stack(1024, 1024, PixelType::u32, 20);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {1u << 30, 1u << 30, cuda::Unblock::gpu, -1, Codec::lz4});
    CHECK(gpu.batch() <= 64);
    CHECK(gpu.group() <= 256);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    require_same(gpu.multi(s.views(), 3.0), cpu.multi(s.views(), 3.0));
}

TEST_CASE("with most of the GPU held elsewhere, objects fit in what is free, what cannot fit is a clear error, and they "
          "work again once memory is back", "[gpu][memory]") {
    const std::size_t ni = 1024, nj = 1024, n = ni * nj;  // u32: 4.2 MB frames
    Stack quiet{ni, nj, PixelType::u32, {}, test::random_mask(n, 4)};
    Stack noisy = quiet;  // incompressible: chunks as large as frames
    for (std::uint32_t f = 0; f < 12; ++f) {
        quiet.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u32, f), 4));
        std::vector<std::uint8_t> raw(n * 4);
        std::mt19937 rng(f);
        for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
        noisy.chunks.push_back(encode_chunk(raw, 4));
    }
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(64, n, 1.0, 3).input()), PixelType::u32);
    bslz4::Chunk2Sparse cpu(quiet.mask, ni, nj, PixelType::u32);
    bslz4::Chunk2SparseCSC cpu_csc(quiet.mask, ni, nj, PixelType::u32, m, Accumulator::i64);
    auto same_powders = [](const IntegratedBatch& g, const IntegratedBatch& c) {
        require_same(g.sparse, c.sparse);
        REQUIRE(std::memcmp(g.powder.data, c.powder.data, c.powder.nframes * c.powder.bins * 8) == 0);
    };
    const std::vector<std::string> out_of_memory = {"CUDA_ERROR_OUT_OF_MEMORY", " MB free of "};
    auto plus = [](std::vector<std::string> v, const std::string& more) {
        v.push_back(more);
        return v;
    };
    std::optional<cuda::Chunk2Sparse> lists;
    std::optional<cuda::Chunk2SparseCSC> powders;
    {
        DeviceMemoryHog hog;
        hog.leave(std::size_t{1} << 30);
        INFO("free with 1 GB left: " << hog.free_bytes() / 1e6 << " MB");
        lists.emplace(quiet.mask, ni, nj, PixelType::u32);
        powders.emplace(quiet.mask, ni, nj, PixelType::u32, m, Accumulator::i64);
        std::printf("with %.0f MB of the GPU free: batch %u, group %u\n", hog.free_bytes() / 1e6, lists->batch(), lists->group());
        CHECK(lists->group() < 256);  // 1/16 of the free memory holds 16 frames
        require_same(lists->multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));
        same_powders(powders->multi(quiet.views(), 5.0), cpu_csc.multi(quiet.views(), 5.0));

        hog.leave(std::size_t{8} << 20);
        std::printf("with %.1f MB of the GPU free:\n", hog.free_bytes() / 1e6);
        // The call throws bslz4::Error, with all of `parts` in its message (or exactly `exact`).
        auto expect_error = [&](const char* what, auto&& call, const std::vector<std::string>& parts,
                                const std::string& exact = "") {
            std::string message = "(no error)";
            hog.leave(std::size_t{8} << 20);  // what the driver gave back since (its own reserves) is taken again
            try {
                call();
            } catch (const Error& e) {
                message = e.what();
            }
            std::printf("  %s: %s\n", what, message.c_str());
            INFO(what << ": " << message);
            for (const std::string& p : parts) CHECK(message.find(p) != std::string::npos);
            if (!exact.empty()) CHECK(message == exact);
        };
        {
            // Lists of incompressible frames need more memory than is free: an out-of-memory Error,
            // unless the driver gives what the call asks (what it frees of its own buffers, and
            // memory the driver kept back from cuMemGetInfo: seen on the H200, 6 allocations granted
            // with 9.6 MB said free); then the lists are right. The refusal itself is pinned by the
            // hooked test below, which does not depend on the driver's accounting.
            hog.leave(std::size_t{8} << 20);
            const std::size_t free_before = hog.free_bytes();
            std::string message = "(no error)";
            std::optional<SparseBatch> got;
            std::size_t asked = 0, asked_bytes = 0;
            {
                test::DriverAllocationHook counter;
                try {
                    got = lists->multi(noisy.views(), 5.0);
                } catch (const Error& e) {
                    message = e.what();
                }
                asked = counter.device_count();
                asked_bytes = counter.device_bytes();
            }
            std::printf("  lists of incompressible frames: %s (%zu device allocations, %.1f MB, asked for with %.1f MB free)\n",
                        message.c_str(), asked, asked_bytes / 1e6, free_before / 1e6);
            INFO("lists of incompressible frames: " << message);
            if (got) {
                require_same(*got, cpu.multi(noisy.views(), 5.0));
            } else {
                for (const std::string& p : plus(out_of_memory, "cuMemAlloc(")) CHECK(message.find(p) != std::string::npos);
            }
        }
        expect_error("powders of incompressible frames", [&] { powders->multi(noisy.views(), 5.0); }, out_of_memory);
        expect_error("decompress", [&] { lists->decompress(quiet.views()); },
                     plus(out_of_memory, "cuMemAlloc(device array, 50.3 MB)"));
        expect_error("integrate", [&] { powders->integrate(noisy.views()); }, out_of_memory);
        expect_error("a new object", [&] { cuda::Chunk2Sparse(quiet.mask, ni, nj, PixelType::u32); },
                     {"CUDA_ERROR_OUT_OF_MEMORY"});
        // A call that fits in what is free still works: no buffer is left sized for the calls
        // that failed.
        const std::vector<ByteView> one = {quiet.chunks[5]};
        require_same(lists->multi(one, 5.0), cpu.multi(one, 5.0));
        same_powders(powders->multi(one, 5.0), cpu_csc.multi(one, 5.0));
        // A chunk longer than any chunk of a frame is refused before it could take memory.
        auto long_chunks = quiet.chunks;
        long_chunks[0].resize(long_chunks[0].size() + (std::size_t{64} << 20), 1);
        const std::vector<ByteView> long_views(long_chunks.begin(), long_chunks.end());
        std::string cpu_says;
        try {
            cpu.multi(long_views, 5.0);
        } catch (const Error& e) {
            cpu_says = e.what();
        }
        REQUIRE_THAT(cpu_says, Catch::StartsWith("frame 0: ") && Catch::Contains("left over"));
        expect_error("a chunk 64 MB too long", [&] { lists->multi(long_views, 5.0); }, {}, cpu_says);
    }
    // Memory back: the same objects work, bit for bit, and new ones can be made.
    require_same(lists->multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
    same_powders(powders->multi(noisy.views(), 5.0), cpu_csc.multi(noisy.views(), 5.0));
    const auto dense = lists->decompress(quiet.views()).to_host();
    for (std::size_t f = 0; f < quiet.chunks.size(); ++f)
        REQUIRE(std::memcmp(dense.data() + f * n * 4, decode_chunk(quiet.chunks[f], 4).data(), n * 4) == 0);
    const auto sums = powders->integrate(noisy.views()).to_host();
    REQUIRE(std::memcmp(sums.data(), cpu_csc.multi(noisy.views(), 0.0).powder.data, 12 * 64 * 8) == 0);
    cuda::Chunk2Sparse fresh(quiet.mask, ni, nj, PixelType::u32);
    require_same(fresh.multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
}

TEST_CASE("when the driver refuses pinned host memory, the GPU classes use pageable memory after one warning, with the "
          "same results; PinnedHostMemory says it is pageable and no pinned copy rate is given", "[gpu][pinned]") {
    const Stack s = eiger_stack(96, 160, PixelType::u16, 40);
    const std::size_t n = s.ni * s.nj;
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(19, n, 2.0, 5).input()), s.type);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    std::vector<std::uint64_t> offsets, lengths;
    std::size_t total = 0;
    for (const auto& c : s.chunks) {
        offsets.push_back(total);
        lengths.push_back(c.size());
        total += c.size();
    }
    std::string warnings;
    {
        StderrCapture err;
        test::DriverAllocationHook refused(test::DriverAllocationHook::Refuse::pinned_memory());
        cuda::Chunk2Sparse a(s.mask, s.ni, s.nj, s.type, {4, 8, cuda::Unblock::gpu, -1, Codec::lz4});
        cuda::Chunk2Sparse b(s.mask, s.ni, s.nj, s.type, {3, 16, cuda::Unblock::cpu, -1, Codec::lz4});
        cuda::Chunk2SparseCSC c(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
        cuda::PinnedHostMemory buffer(total);  // pageable too: staged like any caller memory
        CHECK_FALSE(buffer.pinned());
        CHECK_FALSE(cuda::PinnedHostMemory(std::size_t{40} << 20).pinned());  // large: mapped, registering refused
        // No pinned rate to give, rather than the pageable one under the pinned name.
        CHECK(test::code_thrown_by([] { cuda::copy_bandwidth(cuda::Copy::pinned_to_device, 1 << 20); }) ==
              ErrorCode::out_of_memory);
        for (std::size_t f = 0; f < s.chunks.size(); ++f) std::memcpy(buffer.data() + offsets[f], s.chunks[f].data(), lengths[f]);
        for (int round = 0; round < 2; ++round) {
            require_same(a.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
            require_same(b.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
            require_same(a.from_buffer(ByteView(buffer.data(), total), offsets, lengths, 2.0), cpu.multi(s.views(), 2.0));
            const IntegratedBatch g = c.multi(s.views(), 2.0), want = cpu_csc.multi(s.views(), 2.0);
            require_same(g.sparse, want.sparse);
            REQUIRE(std::memcmp(g.powder.data, want.powder.data, 40 * 19 * 8) == 0);
        }
        warnings = err.text();
    }
    std::printf("stderr while pinned memory was refused:\n%s", warnings.c_str());
    CHECK(count_of(warnings, "bslz4: warning: the driver refused pinned host memory") == 1);
    CHECK(count_of(warnings, "\n") == 1);
    CHECK_THAT(warnings, Catch::Contains("CUDA_ERROR_OUT_OF_MEMORY") && Catch::Contains("using pageable memory instead"));
    // Pinned again once the driver gives it.
    cuda::Chunk2Sparse again(s.mask, s.ni, s.nj, s.type);
    require_same(again.multi(s.views(), 2.0), cpu.multi(s.views(), 2.0));
    CHECK(cuda::PinnedHostMemory(4096).pinned());
    CHECK(cuda::PinnedHostMemory(std::size_t{40} << 20).pinned());
    CHECK(cuda::copy_bandwidth(cuda::Copy::pinned_to_device, 1 << 20) > 0);
    CHECK(cuda::copy_bandwidth(cuda::Copy::pinned_to_device, std::size_t{64} << 20) > 0);  // registered huge pages
}

TEST_CASE("reserve grows the staging and device buffers before the first call, which then allocates no device memory; "
          "results unchanged, and calls beyond what was reserved still grow", "[gpu][memory]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 40);
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    std::size_t longest = 0;
    for (const auto& c : s.chunks) longest = std::max(longest, c.size());
    const cuda::Chunk2SparseOptions settings[] = {
        {0, 0, cuda::Unblock::gpu, -1, Codec::lz4},
        {2, 5, cuda::Unblock::gpu, -1, Codec::lz4},
        {3, 16, cuda::Unblock::cpu, -1, Codec::lz4},
    };
    for (const auto& o : settings) {
        INFO("batch " << o.batch << " group " << o.group);
        cuda::Chunk2Sparse reserved(s.mask, s.ni, s.nj, s.type, o), grown(s.mask, s.ni, s.nj, s.type, o);
        reserved.reserve(40, longest);
        std::size_t device_reserved = 0, host_reserved = 0, device_grown = 0, host_grown = 0;
        {
            test::DriverAllocationHook counter;
            require_same(reserved.multi(s.views(), 3.0), want);
            device_reserved = counter.device_count();
            host_reserved = counter.host_count();
        }
        {
            test::DriverAllocationHook counter;
            require_same(grown.multi(s.views(), 3.0), want);
            device_grown = counter.device_count();
            host_grown = counter.host_count();
        }
        CHECK(device_reserved == 0);
        CHECK(device_grown > 0);
        CHECK(host_reserved < host_grown);  // the lists' pinned copies still grow with what is found
        // Nothing reserved, or more than a frame's chunk can be: still the same results.
        reserved.reserve(0, 0);
        reserved.reserve(3, std::size_t{1} << 40);
        require_same(reserved.multi(s.views(), 3.0), want);
        cuda::Chunk2Sparse small(s.mask, s.ni, s.nj, s.type, o);
        small.reserve(2, 100);
        require_same(small.multi(s.views(), 3.0), want);
    }
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(20, 300 * 517, 1.0, 3).input()), s.type);
    bslz4::Chunk2SparseCSC cpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    cuda::Chunk2SparseCSC gpu_csc(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    gpu_csc.reserve(40, longest);
    const IntegratedBatch g = gpu_csc.multi(s.views(), 3.0), c = cpu_csc.multi(s.views(), 3.0);
    require_same(g.sparse, c.sparse);
    REQUIRE(std::memcmp(g.powder.data, c.powder.data, 40 * 20 * 8) == 0);
}

TEST_CASE("pinned memory of 2 MB and more is not copied into a forked child, as cuMemHostAlloc's is not", "[gpu][pinned]") {
    cuda::PinnedHostMemory large(std::size_t{64} << 20), small(4096);
    REQUIRE(large.pinned());
    std::memset(large.data(), 7, large.size());
    const pid_t child = fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        // In the child the range is not mapped: msync says so (ENOMEM) rather than touching it.
        const bool absent = msync(large.data(), 4096, MS_ASYNC) != 0 && errno == ENOMEM;
        _exit(absent ? 0 : 1);
    }
    int status = 0;
    REQUIRE(waitpid(child, &status, 0) == child);
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
    CHECK(large.data()[large.size() - 1] == 7);  // the parent's own is untouched
}

TEST_CASE("reserve for chunks in pinned memory grows no staging; from_buffer from pinned memory then allocates no device "
          "memory, and a call from ordinary memory still grows its staging",
          "[gpu][memory][pinned]") {
    const Stack s = eiger_stack(300, 517, PixelType::u16, 160);  // over 2 MB of chunks: registered huge-page memory
    bslz4::Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    const SparseBatch want = cpu.multi(s.views(), 3.0);
    const tool::PinnedChunks pinned = tool::pin_chunks(s.views(), 0);
    REQUIRE(pinned.memory.size() >= (std::size_t{2} << 20));
    REQUIRE(pinned.memory.pinned());
    const std::size_t longest = *std::max_element(pinned.lengths.begin(), pinned.lengths.end());
    cuda::Chunk2Sparse for_pinned(s.mask, s.ni, s.nj, s.type), for_pageable(s.mask, s.ni, s.nj, s.type);
    std::size_t host_pinned = 0, host_pageable = 0;
    {
        test::DriverAllocationHook counter;
        for_pinned.reserve(160, longest, cuda::ChunkMemory::pinned);
        host_pinned = counter.host_count();
    }
    {
        test::DriverAllocationHook counter;
        for_pageable.reserve(160, longest, cuda::ChunkMemory::pageable);
        host_pageable = counter.host_count();
    }
    CHECK(host_pinned < host_pageable);  // the staging buffers
    {
        test::DriverAllocationHook counter;
        require_same(for_pinned.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, 3.0), want);
        CHECK(counter.device_count() == 0);
    }
    require_same(for_pinned.multi(s.views(), 3.0), want);  // ordinary memory: staging grown now
    require_same(for_pageable.from_buffer(pinned.base(), pinned.offsets, pinned.lengths, 3.0), want);
}

TEST_CASE("a device allocation refused in the middle of a call is an out_of_memory Error naming it, reporting or not, "
          "never frames quietly skipped; the object works once memory is back", "[gpu][memory]") {
    const std::size_t ni = 512, nj = 512, n = ni * nj;  // u32: 1 MB frames
    Stack quiet{ni, nj, PixelType::u32, {}, test::random_mask(n, 4)};
    Stack noisy = quiet;  // incompressible: each chunk's LZ4 sequences take about 2.8 MB of device memory
    for (std::uint32_t f = 0; f < 6; ++f) {
        quiet.chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u32, f), 4));
        std::vector<std::uint8_t> raw(n * 4);
        std::mt19937 rng(f + 100);
        for (auto& b : raw) b = static_cast<std::uint8_t>(rng());
        noisy.chunks.push_back(encode_chunk(raw, 4));
    }
    bslz4::Chunk2Sparse cpu(quiet.mask, ni, nj, PixelType::u32);
    cuda::Chunk2SparseOptions reporting{2, 4, cuda::Unblock::gpu, -1, Codec::lz4};
    reporting.on_error = OnError::report;
    for (const cuda::Chunk2SparseOptions& o :
         {cuda::Chunk2SparseOptions{2, 4, cuda::Unblock::gpu, -1, Codec::lz4}, reporting}) {
        INFO("on_error " << (o.on_error == OnError::report ? "report" : "throw_first"));
        cuda::Chunk2Sparse gpu(quiet.mask, ni, nj, PixelType::u32, o);
        require_same(gpu.multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));  // buffers sized for quiet frames
        std::string message = "(no error)";
        ErrorCode code = ErrorCode::ok;
        {
            // Quiet frames' buffers are far under 2 MB; the noisy frames' chunks and sequences are over.
            test::DriverAllocationHook refused(test::DriverAllocationHook::Refuse::device_allocations_over(std::size_t{2} << 20));
            try {
                gpu.multi(noisy.views(), 5.0);
            } catch (const Error& e) {
                message = e.what();
                code = e.code();
            }
        }
        INFO(message);
        CHECK(code == ErrorCode::out_of_memory);
        CHECK_THAT(message, Catch::Contains("cuMemAlloc(") && Catch::Contains("CUDA_ERROR_OUT_OF_MEMORY"));
        require_same(gpu.multi(noisy.views(), 5.0), cpu.multi(noisy.views(), 5.0));
        require_same(gpu.multi(quiet.views(), 5.0), cpu.multi(quiet.views(), 5.0));
    }
}

TEST_CASE("what the GPU does not decode is refused with a pointer to the CPU class", "[gpu]") {
    const std::vector<std::uint8_t> mask(64, 1);
    REQUIRE_THROWS_WITH(cuda::Chunk2Sparse(mask, 8, 8, PixelType::u64), Catch::Contains("use bslz4::Chunk2Sparse (CPU)"));
    REQUIRE_THROWS_WITH(cuda::Chunk2Sparse(mask, 8, 9, PixelType::u16), Catch::Contains("mask has 64 bytes"));
    REQUIRE_THROWS_WITH(cuda::Chunk2Sparse(mask, 8, 8, PixelType::u16, {0, 0, cuda::Unblock::gpu, 4096, Codec::lz4}),
                        Catch::Contains("does not exist"));
    cuda::Chunk2Sparse gpu(mask, 8, 8, PixelType::u16);
    const auto raw = test::random_pixels<std::uint16_t>(64, 1);
    const auto small_blocks = encode_chunk(raw, 2, {Codec::lz4, 64, 3});
    REQUIRE_THROWS_WITH(gpu(small_blocks, 1.0), Catch::Contains("frame 0: block size 64 bytes") &&
                                                     Catch::Contains("use bslz4::Chunk2Sparse (CPU)"));
    // Each with its code: what was asked is not what the GPU does.
    using test::code_thrown_by;
    CHECK(code_thrown_by([&] { cuda::Chunk2Sparse(mask, 8, 8, PixelType::u64); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { cuda::Chunk2Sparse(mask, 8, 8, PixelType::u16, {0, 0, cuda::Unblock::gpu, 4096, Codec::lz4}); }) ==
          ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { gpu(small_blocks, 1.0); }) == ErrorCode::bad_argument);
    CHECK(code_thrown_by([&] { gpu.time_on_device({}, 1.0, 1); }) == ErrorCode::bad_argument);
}

namespace {

void require_close(const Powder& gpu, const Powder& cpu) {
    REQUIRE(gpu.nframes == cpu.nframes);
    REQUIRE(gpu.bins == cpu.bins);
    REQUIRE(gpu.acc == cpu.acc);
    const std::size_t n = cpu.nframes * cpu.bins;
    if (cpu.acc == Accumulator::i64) {  // exact
        REQUIRE(std::memcmp(gpu.data, cpu.data, n * 8) == 0);
        return;
    }
    const double tol = cpu.acc == Accumulator::f64 ? 1e-12 : 1e-5;
    for (std::size_t f = 0; f < cpu.nframes; ++f)
        for (std::size_t b = 0; b < cpu.bins; ++b) {
            const double c = cpu.value(f, b), g = gpu.value(f, b);
            INFO("frame " << f << " bin " << b << " gpu " << g << " cpu " << c);
            REQUIRE(std::fabs(g - c) <= tol * std::max(1.0, std::fabs(c)));
        }
}

}  // namespace

TEST_CASE("GPU powders equal the CPU's for every type, acc and mask; random matrices; 1 and 300 frames", "[gpu][integrate]") {
    const std::size_t ni = 70, nj = 90, n = ni * nj;
    for (std::size_t bins : {1u, 9u, 501u}) {  // a block a row (1, 9), a warp a row (501: a part block)
        const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, n, 2.0, static_cast<std::uint32_t>(bins)).input());
        // The u32 scale is the smallest: it serves every type acc i64 takes.
        const IntegrationMatrix x = fixed_point_matrix(m, PixelType::u32);
        for (PixelType t : kGpuTypes) {
            const Stack s = eiger_stack(ni, nj, t, 300);
            const auto mask = test::random_mask(n, 12);
            std::vector<Accumulator> accs = {Accumulator::f64, Accumulator::f32};
            if (t != PixelType::f32) accs.push_back(Accumulator::i64);
            for (Accumulator acc : accs) {
                INFO(pixel_type_name(t) << " bins " << bins << " acc " << accumulator_name(acc));
                const IntegrationMatrix& use = acc == Accumulator::i64 ? x : m;
                bslz4::Chunk2SparseCSC cpu(mask, ni, nj, t, use, acc);
                cuda::Chunk2SparseCSC gpu(mask, ni, nj, t, use, acc, {bins == 9 ? 5u : 0u, 0, cuda::Unblock::gpu, -1, Codec::lz4});
                const std::vector<ByteView> all = s.views(), one = {s.chunks[4]};
                for (const auto* frames : {&all, &one}) {
                    const IntegratedBatch c = cpu.multi(*frames, 3.0);
                    const IntegratedBatch g = gpu.multi(*frames, 3.0);
                    require_same(g.sparse, c.sparse);
                    require_close(g.powder, c.powder);
                }
            }
        }
    }
}

TEST_CASE("integrate and decompress leave their results on the GPU, in arrays the caller owns", "[gpu][integrate]") {
    const std::size_t ni = 50, nj = 64, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::u16, 21);
    const IntegrationMatrix x = fixed_point_matrix(normalise_matrix(test::random_csr(33, n, 2.0, 4).input()), s.type);
    bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, s.type, x, Accumulator::i64);
    cuda::Chunk2SparseCSC gpu(s.mask, ni, nj, s.type, x, Accumulator::i64, {4, 8, cuda::Unblock::gpu, -1, Codec::lz4});
    const IntegratedBatch want = cpu.multi(s.views(), 1.0);
    const cuda::DeviceArray powders = gpu.integrate(s.views());
    REQUIRE(powders.shape() == std::vector<std::size_t>{21, 33});
    REQUIRE(powders.dtype() == "i64");
    REQUIRE(powders.device_pointer() != 0);
    const auto host = powders.to_host();
    REQUIRE(std::memcmp(host.data(), want.powder.data, 21 * 33 * 8) == 0);
    const cuda::DeviceArray frames = gpu.decompress(s.views());
    REQUIRE(frames.shape() == std::vector<std::size_t>{21, ni, nj});
    REQUIRE(frames.dtype() == "u16");
    const auto dense = frames.to_host();
    for (std::size_t f = 0; f < 21; ++f)
        REQUIRE(std::memcmp(dense.data() + f * n * 2, decode_chunk(s.chunks[f], 2).data(), n * 2) == 0);
    cuda::Chunk2Sparse plain(s.mask, ni, nj, s.type);
    const auto again = plain.decompress(s.views()).to_host();
    REQUIRE(again == dense);
    // copy_to_host: straight into the caller's memory, which must hold the whole array
    std::vector<std::uint8_t> room(frames.bytes() + 3, 0xAB);
    frames.copy_to_host(room.data(), room.size());
    REQUIRE(std::equal(dense.begin(), dense.end(), room.begin()));
    REQUIRE(room.back() == 0xAB);
    REQUIRE_THROWS_WITH(frames.copy_to_host(room.data(), frames.bytes() - 1),
                        Catch::Contains(std::to_string(frames.bytes() - 1) + " bytes of room"));
    cuda::DeviceArray().copy_to_host(nullptr, 0);  // an empty array: nothing to copy
    // the object still lists after a device-resident call
    require_same(gpu.multi(s.views(), 1.0).sparse, want.sparse);
}

TEST_CASE("matrices and masks are uploaded and prepared once and shared; release_shared drops them, objects keep theirs", "[gpu][integrate]") {
    const std::size_t ni = 20, nj = 30, n = ni * nj;
    const Stack s = eiger_stack(ni, nj, PixelType::i32, 3);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(11, n, 2.0, 6).input());
    cuda::release_shared();
    cuda::Chunk2SparseCSC a(s.mask, ni, nj, s.type, m);
    const std::size_t after_one = cuda::shared_count();
    CHECK(after_one == 2);  // the mask and the matrix
    cuda::Chunk2SparseCSC b(s.mask, ni, nj, s.type, m);
    CHECK(cuda::shared_count() == after_one);
    // Another mask: another mask upload and another prepared (folded) matrix, its powders its own.
    std::vector<std::uint8_t> other_mask = s.mask;
    for (std::size_t p = 0; p < n; p += 7) other_mask[p] = 0;
    cuda::Chunk2SparseCSC c(other_mask, ni, nj, s.type, m);
    CHECK(cuda::shared_count() == after_one + 2);
    cuda::release_shared();
    CHECK(cuda::shared_count() == 0);
    bslz4::Chunk2SparseCSC cpu(s.mask, ni, nj, s.type, m), cpu_other(other_mask, ni, nj, s.type, m);
    require_close(a.multi(s.views(), 2.0).powder, cpu.multi(s.views(), 2.0).powder);
    require_close(b.multi(s.views(), 2.0).powder, cpu.multi(s.views(), 2.0).powder);
    require_close(c.multi(s.views(), 2.0).powder, cpu_other.multi(s.views(), 2.0).powder);
}

int main(int argc, char** argv) {
    if (!cuda::available()) {
        // A CI runner that lost its driver or GPU must go red, not report the suite skipped.
        const char* require = std::getenv("BSLZ4_REQUIRE_GPU");
        if (require && *require && std::string(require) != "0") {
            std::printf("FAIL: BSLZ4_REQUIRE_GPU=%s but no usable GPU: %s\n", require, cuda::unavailable_reason().c_str());
            return 1;
        }
        std::printf("SKIP: no GPU: %s\n", cuda::unavailable_reason().c_str());
        return 77;
    }
    const cuda::DeviceInfo info = cuda::device_info(0);
    std::printf("GPU: %s, sm_%d, %d SMs, driver %d; kernels built for %s\n", info.name.c_str(), info.sm,
                info.multiprocessors, info.driver_version, cuda::built_architectures());
    const int failed = Catch::Session().run(argc, argv);
    std::printf("corrupted chunks handed to the GPU: %zu\n", corrupted_inputs);
    return failed;
}
