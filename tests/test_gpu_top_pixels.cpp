// Top pixels (set_top_pixels: the seed's howmany / thresholds) on the GPU classes against the
// CPU classes, which tests/test_top_pixels.cpp pins to the rule and top_pixels_seed.py to the
// seed's package: lists, values, last_cut and last_nabove bit for bit, every GPU pixel type.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::require_same;

namespace {

using test::kGpuTypes;
constexpr double kInf = std::numeric_limits<double>::infinity();

using Howmany = std::optional<std::size_t>;
using Thresholds = std::optional<std::vector<double>>;

// A frame of `npix` pixels of value `low`, then runs of `count` pixels of `value`, spread out.
template <class T>
std::vector<std::uint8_t> frame_with(std::size_t npix, T low, const std::vector<std::pair<std::size_t, T>>& runs) {
    std::vector<T> v(npix, low);
    std::size_t at = 3;
    for (const auto& [count, value] : runs)
        for (std::size_t k = 0; k < count; ++k, at = (at + 7919) % npix) v[at] = value;
    std::vector<std::uint8_t> out(npix * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

}  // namespace

TEST_CASE("GPU top pixels equal the CPU's on every GPU type, NaN and infinities included, through multi, from_buffer, "
          "operator() and coo, in one group or many, however the blocks are walked",
          "[gpu][top_pixels]") {
    const std::size_t ni = 37, nj = 229, npix = ni * nj;  // 4 blocks of 16-bit pixels and a tail
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 11);
    const std::vector<Thresholds> lists = {std::nullopt, std::vector<double>{}, std::vector<double>{2.5, 10, 30, 31, 100},
                                           std::vector<double>{-kInf, 0, 1e300, kInf}, std::vector<double>{-50, -50, 7}};
    const Howmany howmanys[] = {std::nullopt, 0, 1, 40, 300, npix};
    for (PixelType t : kGpuTypes) {
        INFO(pixel_type_name(t));
        std::vector<std::vector<std::uint8_t>> chunks;
        for (std::uint32_t s = 0; s < 9; ++s) chunks.push_back(encode_chunk(test::random_pixels_for(t, npix, 100 + s), pixel_size(t)));
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        std::vector<std::uint8_t> base(5, 0);
        std::vector<std::uint64_t> offsets, lengths;
        for (const auto& ch : chunks) {
            offsets.push_back(base.size());
            lengths.push_back(ch.size());
            base.insert(base.end(), ch.begin(), ch.end());
        }
        Chunk2Sparse cpu(mask, ni, nj, t);
        cuda::Chunk2Sparse one_group(mask, ni, nj, t);
        cuda::Chunk2Sparse groups(mask, ni, nj, t, {2, 5, cuda::Unblock::gpu, -1, Codec::lz4});
        cuda::Chunk2Sparse host_walk(mask, ni, nj, t, {3, 16, cuda::Unblock::cpu, -1, Codec::lz4});
        for (double cut : {0.0, 5.0, -3.5})
            for (const Howmany& howmany : howmanys)
                for (const Thresholds& thr : lists) {
                    INFO("cut " << cut << " howmany " << (howmany ? static_cast<long>(*howmany) : -1) << " thresholds "
                                << (thr ? static_cast<long>(thr->size()) : -1));
                    cpu.set_top_pixels(howmany, thr);
                    const SparseBatch want = cpu.multi(views, cut);
                    for (cuda::Chunk2Sparse* gpu : {&one_group, &groups, &host_walk}) {
                        gpu->set_top_pixels(howmany, thr);
                        require_same(gpu->multi(views, cut), want);
                    }
                    require_same(groups.from_buffer(base, offsets, lengths, cut), want);
                    const SparseFrame g = one_group(chunks[4], cut), c = cpu(chunks[4], cut);
                    REQUIRE(g.npixels == c.npixels);
                    REQUIRE(std::memcmp(g.indices, c.indices, c.npixels * 4) == 0);
                    REQUIRE(g.last_nabove == c.last_nabove);
                    REQUIRE(std::memcmp(&g.last_cut, &c.last_cut, sizeof(double)) == 0);
                    const CooFrame gc = one_group.coo(chunks[7], cut), cc = cpu.coo(chunks[7], cut);
                    REQUIRE(gc.row == cc.row);
                    REQUIRE(gc.col == cc.col);
                    REQUIRE(gc.value_bytes == cc.value_bytes);
                    REQUIRE(gc.last_nabove == cc.last_nabove);
                    REQUIRE(std::memcmp(&gc.last_cut, &cc.last_cut, sizeof(double)) == 0);
                }
    }
}

TEST_CASE("frames with exactly howmany pixels above a level, one more, one fewer, none, or all, and pixels equal to a "
          "level (not above it): the GPU chooses the CPU's level and keeps the CPU's pixels",
          "[gpu][top_pixels]") {
    const std::size_t ni = 96, nj = 160, npix = ni * nj, howmany = 50;
    const std::vector<std::uint8_t> mask(npix, 1);
    const std::vector<double> levels = {10, 20, 40};
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::size_t level = 0; level < levels.size(); ++level)
        for (std::size_t count : {std::size_t{0}, howmany - 1, howmany, howmany + 1, 3 * howmany, npix}) {
            const auto above = static_cast<std::uint16_t>(levels[level] + 1), at = static_cast<std::uint16_t>(levels[level]);
            // howmany + 1 pixels just above the cut (5), so the rule applies; then `count` above
            // the level and as many exactly at it.
            chunks.push_back(encode_chunk(frame_with<std::uint16_t>(npix, 0, {{howmany + 1, 6}, {count, above}, {count, at}}), 2));
        }
    chunks.push_back(encode_chunk(frame_with<std::uint16_t>(npix, 0, {}), 2));                  // none above the cut
    chunks.push_back(encode_chunk(frame_with<std::uint16_t>(npix, 0, {{howmany, 100}}), 2));    // exactly howmany
    chunks.push_back(encode_chunk(frame_with<std::uint16_t>(npix, 0, {{howmany + 1, 100}}), 2));  // one more
    chunks.push_back(encode_chunk(frame_with<std::uint16_t>(npix, 1000, {}), 2));               // all, above every level
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    Chunk2Sparse cpu(mask, ni, nj, PixelType::u16);
    cuda::Chunk2Sparse gpu(mask, ni, nj, PixelType::u16, {4, 8, cuda::Unblock::gpu, -1, Codec::lz4});
    for (const Thresholds& thr : {Thresholds{levels}, Thresholds{}, Thresholds{std::vector<double>{}}}) {
        INFO("thresholds " << (thr ? static_cast<long>(thr->size()) : -1));
        cpu.set_top_pixels(howmany, thr);
        gpu.set_top_pixels(howmany, thr);
        const SparseBatch want = cpu.multi(views, 5.0);
        require_same(gpu.multi(views, 5.0), want);
        CHECK(gpu.last_host() == 0);  // every frame listed on the device, the one of all pixels too
        if (thr == Thresholds{levels}) {
            // The cases mean what they say: level 1 with howmany - 1 above it is chosen, with howmany it is not.
            CHECK(want.last_cut[6 + 1] == 20);
            CHECK(want.last_cut[6 + 2] == 40);
        }
    }
}

TEST_CASE("a frame with more than cap pixels above the cut is listed on the device when howmany keeps fewer than cap, "
          "and on the host only when more than cap are kept",
          "[gpu][top_pixels]") {
    const test::Stack s = test::eiger_stack(300, 517, PixelType::u16, 12);
    const double every = -1e12;  // every unmasked pixel is listed: more than cap
    Chunk2Sparse cpu(s.mask, s.ni, s.nj, s.type);
    cuda::Chunk2Sparse gpu(s.mask, s.ni, s.nj, s.type, {3, 6, cuda::Unblock::gpu, -1, Codec::lz4});
    struct Case {
        Howmany howmany;
        Thresholds thresholds;
        std::size_t host_frames;
    };
    const std::size_t npix = s.ni * s.nj;
    for (const Case& c : {Case{1000, std::nullopt, 0}, Case{1000, std::vector<double>{}, 0},
                          Case{gpu.cap() - 1, std::vector<double>{}, 0}, Case{std::nullopt, std::nullopt, 12},
                          Case{npix, std::vector<double>{}, 12}, Case{npix, std::vector<double>{-kInf, 1e9}, 12},
                          Case{1000, std::vector<double>{-kInf, 1e9}, 0}}) {
        INFO("howmany " << (c.howmany ? static_cast<long>(*c.howmany) : -1));
        cpu.set_top_pixels(c.howmany, c.thresholds);
        gpu.set_top_pixels(c.howmany, c.thresholds);
        require_same(gpu.multi(s.views(), every), cpu.multi(s.views(), every));
        CHECK(gpu.last_host() == c.host_frames);
    }
}

TEST_CASE("with top pixels the GPU's CSC powders still integrate the whole frame, its lists equal the CPU's, and a bad "
          "frame reported has 0 pixels, the call's cut and last_nabove 0",
          "[gpu][top_pixels]") {
    const test::Stack s = test::eiger_stack(514, 1030, PixelType::u32, 10);
    const std::size_t n = s.ni * s.nj;
    const IntegrationMatrix m = fixed_point_matrix(normalise_matrix(test::random_csr(40, n, 1.0, 3).input()), s.type);
    Chunk2SparseCSC cpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    Chunk2SparseCSC whole(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    cuda::Chunk2SparseCSC gpu(s.mask, s.ni, s.nj, s.type, m, Accumulator::i64);
    for (const Howmany howmany : {Howmany{5}, Howmany{200}}) {
        cpu.set_top_pixels(howmany);
        gpu.set_top_pixels(howmany);
        const IntegratedBatch g = gpu.multi(s.views(), 2.0), c = cpu.multi(s.views(), 2.0), w = whole.multi(s.views(), 2.0);
        require_same(g.sparse, c.sparse);
        REQUIRE(std::memcmp(g.powder.data, w.powder.data, 10 * 40 * 8) == 0);
        bool cut_down = false;
        for (std::size_t f = 0; f < 10; ++f) cut_down |= c.sparse.npixels[f] < w.sparse.npixels[f];
        CHECK(cut_down);
    }
    // Reporting: frame 4 truncated.
    cuda::Chunk2SparseOptions reporting{0, 0, cuda::Unblock::gpu, -1, Codec::lz4};
    reporting.on_error = OnError::report;
    reporting.howmany = 100;
    Chunk2SparseOptions cpu_reporting;
    cpu_reporting.on_error = OnError::report;
    cpu_reporting.howmany = 100;
    cuda::Chunk2Sparse gpu_lists(s.mask, s.ni, s.nj, s.type, reporting);
    Chunk2Sparse cpu_lists(s.mask, s.ni, s.nj, s.type, cpu_reporting);
    auto chunks = s.chunks;
    chunks[4].resize(chunks[4].size() / 2);
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    const SparseBatch g = gpu_lists.multi(views, 2.0), c = cpu_lists.multi(views, 2.0);
    require_same(g, c);
    REQUIRE(g.nbad == 1);
    CHECK(g.npixels[4] == 0);
    CHECK(g.last_cut[4] == 2.0);
    CHECK(g.last_nabove[4] == 0);
}

TEST_CASE("GPU threshold lists are checked as the CPU's: more than 16, unsorted or NaN is bad_argument naming them",
          "[gpu][top_pixels]") {
    const std::vector<std::uint8_t> mask(64, 1);
    cuda::Chunk2Sparse gpu(mask, 8, 8, PixelType::u16);
    const std::vector<double> bad[] = {std::vector<double>(17, 1.0), {3, 2}, {1, std::nan("")}};
    for (const auto& thr : bad) {
        std::string cpu_says, gpu_says;
        try {
            check_top_pixel_thresholds(thr);
        } catch (const Error& e) {
            cpu_says = e.what();
        }
        try {
            gpu.set_top_pixels(10, thr);
        } catch (const Error& e) {
            gpu_says = e.what();
            CHECK(e.code() == ErrorCode::bad_argument);
        }
        CHECK(!cpu_says.empty());
        CHECK(gpu_says == cpu_says);
    }
    cuda::Chunk2SparseOptions o;
    o.howmany = 3;
    o.thresholds = std::vector<double>{5, 1};
    CHECK_THROWS_AS(cuda::Chunk2Sparse(mask, 8, 8, PixelType::u16, o), Error);
}
