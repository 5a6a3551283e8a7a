// Exact powders on the GPU: f64 of a matrix with duplicate entries against scipy's csc @ frame
// and the CPU, the exact sums of unit weights past 2^53, and i64 at the widest fixed-point
// scales (int64 weights past 32 bits), bit for bit with the CPU.
#include <catch2/catch.hpp>

#include <cstring>
#include <random>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "gpu_comparison.hpp"
#include "matrix_support.hpp"
#include "scipy_product.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {

const PixelType kIntegerTypes[] = {PixelType::u8, PixelType::u16, PixelType::u32,
                                   PixelType::i8, PixelType::i16, PixelType::i32};

// Frames of type t, floats made finite (a NaN makes every sum it meets NaN, on both sides).
std::vector<std::vector<std::uint8_t>> finite_frames(PixelType t, std::size_t n, std::size_t count) {
    std::vector<std::vector<std::uint8_t>> out;
    for (std::uint32_t f = 0; f < count; ++f) {
        out.push_back(test::random_pixels_for(t, n, 70 + f));
        if (t == PixelType::f32) {
            auto* v = reinterpret_cast<float*>(out.back().data());
            for (std::size_t i = 0; i < n; ++i)
                if (!std::isfinite(v[i])) v[i] = static_cast<float>(i % 13);
        }
    }
    return out;
}

std::vector<std::vector<std::uint8_t>> chunks_of(const std::vector<std::vector<std::uint8_t>>& frames, PixelType t) {
    std::vector<std::vector<std::uint8_t>> out;
    for (const auto& f : frames) out.push_back(encode_chunk(f, pixel_size(t)));
    return out;
}

}  // namespace

TEST_CASE("GPU f64 powders of a matrix with duplicate entries equal scipy's csc @ frame within 1e-9 relative and the "
          "CPU's within 1e-12, for every type",
          "[gpu][integrate][exact]") {
    const std::size_t ni = 40, nj = 64, bins = 90, n = ni * nj;
    const test::RawMatrix raw_csc = test::split_csc_with_duplicates(bins, ni, nj, 26);
    const IntegrationMatrix m = normalise_matrix(raw_csc.input());
    const std::vector<std::uint8_t> mask(n, 1);
    for (PixelType t : {PixelType::u8, PixelType::u16, PixelType::u32, PixelType::i8, PixelType::i16, PixelType::i32,
                        PixelType::f32}) {
        INFO(pixel_type_name(t));
        const auto frames = finite_frames(t, n, 20);  // two passes of 16 frames
        const auto chunks = chunks_of(frames, t);
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        cuda::Chunk2SparseCSC gpu(mask, ni, nj, t, m, Accumulator::f64);
        bslz4::Chunk2SparseCSC cpu(mask, ni, nj, t, m, Accumulator::f64);
        const IntegratedBatch g = gpu.multi(views, 0.0);
        const IntegratedBatch c = cpu.multi(views, 0.0);
        REQUIRE(test::powder_difference(g.powder, c.powder) == "");
        double worst = 0;
        for (std::size_t f = 0; f < frames.size(); ++f) {
            const std::vector<double> x =
                visit_pixel_type(t, [&](auto z) { return test::pixels_as_double<decltype(z)>(frames[f]); });
            const test::ExactProduct exact = test::exact_product(raw_csc, x);
            worst = std::max(worst, test::relative_error(g.powder, f, test::scipy_csc_matvec(raw_csc, x), exact.size));
            REQUIRE(test::relative_error(g.powder, f, exact) < 1e-12);
        }
        INFO("GPU vs scipy: " << worst << " relative");
        REQUIRE(worst < 1e-9);
    }
}

TEST_CASE("GPU f64 powders of unit weights past 2^53 are the exact sums rounded once, bit for bit with the CPU",
          "[gpu][integrate][exact]") {
    const std::size_t ni = 2048, nj = 1128, n = ni * nj;  // bin 0: 15 of 16 pixels, near 2^32
    test::RawMatrix ones{MatrixLayout::csc, 2, n, std::vector<float>(n, 1.0f), {}, {0}};
    for (std::size_t p = 0; p < n; ++p) {
        ones.indices.push_back(p % 16 == 0 ? 1 : 0);
        ones.indptr.push_back(static_cast<std::int32_t>(p + 1));
    }
    const IntegrationMatrix m = normalise_matrix(ones.input());
    std::mt19937_64 rng(53);
    std::vector<std::vector<std::uint8_t>> frames;
    std::vector<std::uint64_t> exact;
    for (int f = 0; f < 3; ++f) {
        std::vector<std::uint32_t> v(n);
        std::uint64_t sum[2] = {0, 0};
        for (std::size_t p = 0; p < n; ++p) {
            v[p] = 0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % (1u << 20));
            sum[p % 16 == 0 ? 1 : 0] += v[p];
        }
        frames.emplace_back(n * 4);
        std::memcpy(frames.back().data(), v.data(), n * 4);
        exact.insert(exact.end(), {sum[0], sum[1]});
    }
    REQUIRE(exact[0] > (1ull << 53));
    const auto chunks = chunks_of(frames, PixelType::u32);
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    const std::vector<std::uint8_t> mask(n, 1);
    cuda::Chunk2SparseCSC gpu(mask, ni, nj, PixelType::u32, m, Accumulator::f64);
    bslz4::Chunk2SparseCSC cpu(mask, ni, nj, PixelType::u32, m, Accumulator::f64);
    const Powder g = gpu.multi(views, 0.0).powder;
    const std::vector<double> got(g.as<double>(), g.as<double>() + exact.size());
    for (std::size_t k = 0; k < exact.size(); ++k) REQUIRE(got[k] == static_cast<double>(exact[k]));
    REQUIRE(std::memcmp(got.data(), cpu.multi(views, 0.0).powder.data, exact.size() * 8) == 0);
    // integrate() leaves the same on the device
    const auto on_device = gpu.integrate(views).to_host();
    REQUIRE(std::memcmp(on_device.data(), got.data(), exact.size() * 8) == 0);
}

TEST_CASE("GPU i64 powders at the widest fixed-point scales (weights past 32 bits) equal the CPU's bit for bit, for "
          "every integer type",
          "[gpu][integrate][i64][exact]") {
    const std::size_t ni = 40, nj = 64, bins = 90, n = ni * nj;
    const IntegrationMatrix m = normalise_matrix(test::split_csc_with_duplicates(bins, ni, nj, 28).input());
    const auto mask = test::random_mask(n, 29);
    for (PixelType t : kIntegerTypes) {
        const IntegrationMatrix x = fixed_point_matrix(m, t);
        std::int64_t widest = 0;
        for (std::int64_t w : x.fixed_weight) widest = std::max(widest, w < 0 ? -w : w);
        INFO(pixel_type_name(t) << ": scale 2^" << std::ilogb(x.powder_scale) << ", largest fixed weight " << widest);
        if (pixel_size(t) < 4) REQUIRE(widest > (std::int64_t{1} << 32));
        const auto chunks = chunks_of(finite_frames(t, n, 20), t);
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        cuda::Chunk2SparseCSC gpu(mask, ni, nj, t, x, Accumulator::i64);
        bslz4::Chunk2SparseCSC cpu(mask, ni, nj, t, x, Accumulator::i64);
        const Powder g = gpu.multi(views, 0.0).powder, c = cpu.multi(views, 0.0).powder;
        REQUIRE(g.powder_scale == x.powder_scale);
        REQUIRE(std::memcmp(g.data, c.data, 20 * bins * 8) == 0);
    }
}
