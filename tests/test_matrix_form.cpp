// Integration matrices on the CPU: csr and csc inputs to one canonical form, duplicate entries
// kept as terms of their own and summed as scipy sums them, refusals naming the fault, masks
// folded out.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "matrix_support.hpp"
#include "scipy_product.hpp"
#include "test_support.hpp"

using namespace bslz4;
using test::kAllTypes;

TEST_CASE("csr and csc inputs of one matrix normalise to the same canonical form", "[matrix]") {
    const auto csr = test::random_csr(40, 500, 2.0, 1);
    const IntegrationMatrix a = normalise_matrix(csr.input()), b = normalise_matrix(test::to_csc(csr).input());
    CHECK(a.row_start == b.row_start);
    CHECK(a.pixel == b.pixel);
    CHECK(a.weight == b.weight);
    for (std::size_t r = 0; r < a.bins; ++r)
        for (auto k = a.row_start[r] + 1; k < a.row_start[r + 1]; ++k) REQUIRE(a.pixel[k - 1] <= a.pixel[k]);
}

TEST_CASE("duplicate (bin, pixel) entries are kept as terms of their own, in the order given; unsorted indices sorted; "
          "uint32 indices work",
          "[matrix]") {
    const std::vector<float> data = {1.0f, 2.0f, 0.5f, 4.0f};
    const std::vector<std::uint32_t> indices = {3, 1, 3, 0}, indptr = {0, 3, 4};
    const MatrixInput in{MatrixLayout::csr, 2, 4, data.data(), 4, IndexType::u32, indices.data(), 4, indptr.data(), 3};
    const IntegrationMatrix m = normalise_matrix(in);
    CHECK(m.row_start == std::vector<std::uint32_t>{0, 3, 4});
    CHECK(m.pixel == std::vector<std::uint32_t>{1, 3, 3, 0});
    CHECK(m.weight == std::vector<float>{2.0f, 1.0f, 0.5f, 4.0f});
}

TEST_CASE("an f64 powder sums each duplicate entry's float64 product, as scipy does: merged into one float32 weight, "
          "1 + 1e-8 would be 1",
          "[integrate][exact]") {
    // Pixel 0 in bin 0 twice, weights 1 and 1e-8 (their float32 sum is 1): the u32 pixel 10^8
    // gives 10^8 + 10^8 x 1e-8f = 100000000.99999999..., 100000001 in float64.
    const std::vector<float> data = {1.0f, 1e-8f, 1.0f};
    const std::vector<std::int32_t> indices = {0, 0, 1}, indptr = {0, 2, 3};
    const MatrixInput in{MatrixLayout::csc, 2, 2, data.data(), 3, IndexType::i32, indices.data(), 3, indptr.data(), 3};
    const std::vector<std::uint32_t> frame = {100000000u, 7u};
    std::vector<std::uint8_t> raw(8);
    std::memcpy(raw.data(), frame.data(), 8);
    Chunk2SparseCSC csc(std::vector<std::uint8_t>(2, 1), 1, 2, PixelType::u32, normalise_matrix(in), Accumulator::f64);
    const Powder p = csc.from_frames({ByteView(raw)}, 0.0).powder;
    REQUIRE(p.value(0, 0) == 1e8 + 1e8 * static_cast<double>(1e-8f));
    REQUIRE(p.value(0, 0) == 100000001.0);
    REQUIRE(p.value(0, 1) == 7.0);
}

TEST_CASE("f64 powders of a csc matrix with duplicate entries equal scipy's csc @ frame in float64 within 1e-9 "
          "relative, and the exact sums within 1e-12, for every pixel type",
          "[integrate][exact]") {
    // Merging the duplicates into one float32 weight left these 2e-8 off (tests/powder_exact_scipy.py).
    const std::size_t ni = 40, nj = 64, bins = 90;
    const test::RawMatrix raw_csc = test::split_csc_with_duplicates(bins, ni, nj, 26);
    const IntegrationMatrix m = normalise_matrix(raw_csc.input());
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    for (PixelType t : kAllTypes) {
        INFO(pixel_type_name(t));
        std::vector<std::vector<std::uint8_t>> frames;
        for (std::uint32_t f = 0; f < 3; ++f) {
            frames.push_back(test::random_pixels_for(t, ni * nj, 50 + f));
            visit_pixel_type(t, [&](auto z) {  // finite floats: a NaN makes every sum it meets NaN
                using T = decltype(z);
                if constexpr (std::is_floating_point<T>::value) {
                    auto* v = reinterpret_cast<T*>(frames.back().data());
                    for (std::size_t i = 0; i < ni * nj; ++i)
                        if (!std::isfinite(v[i])) v[i] = static_cast<T>(i % 13);
                }
            });
        }
        Chunk2SparseCSC csc(mask, ni, nj, t, m, Accumulator::f64);
        const Powder p = csc.from_frames(std::vector<ByteView>(frames.begin(), frames.end()), 0.0).powder;
        for (std::size_t f = 0; f < frames.size(); ++f) {
            const std::vector<double> x =
                visit_pixel_type(t, [&](auto z) { return test::pixels_as_double<decltype(z)>(frames[f]); });
            const test::ExactProduct exact = test::exact_product(raw_csc, x);
            const double vs_scipy = test::relative_error(p, f, test::scipy_csc_matvec(raw_csc, x), exact.size);
            const double vs_exact = test::relative_error(p, f, exact);
            INFO("frame " << f << ": vs scipy " << vs_scipy << ", vs the exact sums " << vs_exact);
            REQUIRE(vs_scipy < 1e-9);
            // 64-bit pixels are rounded to float64 first, as scipy rounds them.
            if (pixel_size(t) < 8) REQUIRE(vs_exact < 1e-12);
        }
    }
}

TEST_CASE("f64 powders of unit weights sum u32 pixels past 2^53 exactly, rounded once, where float64 adds round each",
          "[integrate][exact]") {
    // Bin 0 takes 15 of every 16 pixels: 2,162,688 pixels near 2^32 sum past 2^53.
    const std::size_t ni = 2048, nj = 1128, n = ni * nj;
    test::RawMatrix ones{MatrixLayout::csc, 2, n, std::vector<float>(n, 1.0f), {}, {0}};
    for (std::size_t p = 0; p < n; ++p) {
        ones.indices.push_back(p % 16 == 0 ? 1 : 0);
        ones.indptr.push_back(static_cast<std::int32_t>(p + 1));
    }
    std::mt19937_64 rng(53);
    std::vector<std::uint32_t> frame(n);
    std::uint64_t exact[2] = {0, 0};
    for (std::size_t p = 0; p < n; ++p) {
        frame[p] = 0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % (1u << 20));
        exact[p % 16 == 0 ? 1 : 0] += frame[p];
    }
    REQUIRE(exact[0] > (1ull << 53));
    std::vector<std::uint8_t> raw(n * 4);
    std::memcpy(raw.data(), frame.data(), raw.size());
    const std::vector<double> x = test::pixels_as_double<std::uint32_t>(raw);
    const std::vector<double> rounded_each_add = test::scipy_csc_matvec(ones, x);
    REQUIRE(rounded_each_add[0] != static_cast<double>(exact[0]));  // the case has teeth
    Chunk2SparseCSC csc(std::vector<std::uint8_t>(n, 1), ni, nj, PixelType::u32, normalise_matrix(ones.input()),
                        Accumulator::f64);
    const Powder p = csc.multi({ByteView(encode_chunk(raw, 4))}, 0.0).powder;
    REQUIRE(p.value(0, 0) == static_cast<double>(exact[0]));
    REQUIRE(p.value(0, 1) == static_cast<double>(exact[1]));
    // Weights exact in fixed point (halves, quarters) sum exactly too, signed pixels included.
    test::RawMatrix halves = ones;
    for (std::size_t k = 0; k < n; ++k) halves.data[k] = k % 3 ? 0.5f : 0.25f;
    std::vector<std::int32_t> signed_frame(n);
    long double want[2] = {0, 0};
    for (std::size_t p = 0; p < n; ++p) {
        signed_frame[p] = static_cast<std::int32_t>(rng());  // the whole int32 range
        want[p % 16 == 0 ? 1 : 0] += static_cast<long double>(halves.data[p]) * signed_frame[p];  // exact: 62 bits
    }
    std::memcpy(raw.data(), signed_frame.data(), raw.size());
    Chunk2SparseCSC half(std::vector<std::uint8_t>(n, 1), ni, nj, PixelType::i32, normalise_matrix(halves.input()),
                         Accumulator::f64);
    const Powder q = half.multi({ByteView(encode_chunk(raw, 4))}, 0.0).powder;
    REQUIRE(q.value(0, 0) == static_cast<double>(want[0]));
    REQUIRE(q.value(0, 1) == static_cast<double>(want[1]));
}

TEST_CASE("bad matrices are refused with a message naming the fault", "[matrix]") {
    auto good = test::random_csr(10, 50, 1.0, 2);
    auto bad = good;
    bad.indptr[3] = bad.indptr[4] + 1;
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("indptr decreases"));
    bad = good;
    bad.indices[0] = 50;
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("index 50 at entry 0 is outside 0..49"));
    bad = good;
    bad.indices[1] = -2;
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("outside"));
    bad = good;
    bad.data.pop_back();
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("weights but"));
    bad = good;
    bad.indptr.pop_back();
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("indptr has 10 entries, bins + 1 = 11"));
    bad = good;
    bad.indptr[0] = 1;
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("indptr[0] is not 0"));
    bad = good;
    bad.data.pop_back();
    bad.indices.pop_back();
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()), Catch::Contains("indptr ends at"));
    const IntegrationMatrix m = normalise_matrix(good.input());
    const std::vector<std::uint8_t> mask(51, 1);
    REQUIRE_THROWS_WITH(fold_mask(m, mask), Catch::Contains("mask has 51 pixels"));
    REQUIRE_THROWS_WITH(Chunk2SparseCSC(std::vector<std::uint8_t>(49, 1), 7, 7, PixelType::u16, m),
                        Catch::Contains("matrix has 50 pixels"));
    REQUIRE_THROWS_WITH(Chunk2SparseCSC(std::vector<std::uint8_t>(50, 1), 5, 10, PixelType::u16, m, Accumulator::i64),
                        Catch::Contains("fixed_point_matrix"));
    REQUIRE_THROWS_WITH(Chunk2SparseCSC(std::vector<std::uint8_t>(50, 1), 5, 10, PixelType::f32,
                                        fixed_point_matrix(m, PixelType::u16), Accumulator::i64),
                        Catch::Contains("integer pixels"));
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, PixelType::f64), Catch::Contains("integer pixels, not f64"));
    // A hand-made IntegrationMatrix whose row starts or pixels point outside it.
    for (int fault = 0; fault < 3; ++fault) {
        IntegrationMatrix broken = m;
        if (fault == 0) broken.row_start[3] = broken.row_start.back() + 1000;
        if (fault == 1) broken.row_start.back() += 1;
        if (fault == 2) broken.pixel[0] = 50;
        REQUIRE_THROWS_WITH(Chunk2SparseCSC(std::vector<std::uint8_t>(50, 1), 5, 10, PixelType::u16, broken),
                            Catch::Contains("not in normalise_matrix's form"));
    }
}

TEST_CASE("a refused matrix is ErrorCode::bad_matrix; a pixel type or weight bits it cannot take are bad_argument",
          "[matrix][codes]") {
    using test::code_thrown_by;
    const auto good = test::random_csr(10, 50, 1.0, 2);
    auto bad = good;
    bad.indptr[3] = bad.indptr[4] + 1;
    REQUIRE(code_thrown_by([&] { normalise_matrix(bad.input()); }) == ErrorCode::bad_matrix);
    bad = good;
    bad.indices[0] = 50;
    REQUIRE(code_thrown_by([&] { normalise_matrix(bad.input()); }) == ErrorCode::bad_matrix);
    bad = good;
    bad.indptr.pop_back();
    REQUIRE(code_thrown_by([&] { normalise_matrix(bad.input()); }) == ErrorCode::bad_matrix);
    const IntegrationMatrix m = normalise_matrix(good.input());
    const std::vector<std::uint8_t> mask(50, 1);
    REQUIRE(code_thrown_by([&] { Chunk2SparseCSC(std::vector<std::uint8_t>(49, 1), 7, 7, PixelType::u16, m); }) ==
            ErrorCode::bad_matrix);
    REQUIRE(code_thrown_by([&] { Chunk2SparseCSC(mask, 5, 10, PixelType::u16, m, Accumulator::i64); }) ==
            ErrorCode::bad_matrix);
    REQUIRE(code_thrown_by([&] {
                Chunk2SparseCSC(mask, 5, 10, PixelType::u16, fixed_point_matrix(m, PixelType::u16), Accumulator::f64);
            }) == ErrorCode::bad_matrix);
    IntegrationMatrix broken = m;
    broken.pixel[0] = 50;
    REQUIRE(code_thrown_by([&] { Chunk2SparseCSC(mask, 5, 10, PixelType::u16, broken); }) == ErrorCode::bad_matrix);
    IntegrationMatrix infinite = m;
    infinite.weight[0] = std::numeric_limits<float>::infinity();
    REQUIRE(code_thrown_by([&] { fixed_point_matrix(infinite, PixelType::u16); }) == ErrorCode::bad_matrix);
    REQUIRE(code_thrown_by([&] { fixed_point_matrix(m, PixelType::f64); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { fixed_point_matrix(m, PixelType::u64); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { fixed_point_matrix(m, PixelType::u16, 64); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { fold_mask(m, std::vector<std::uint8_t>(51, 1)); }) == ErrorCode::bad_argument);
}

TEST_CASE("an indptr of the wrong length is named with the layout, the shape and what each layout needs", "[matrix]") {
    const auto csr = test::random_csr(10, 50, 1.0, 2);
    auto bad = csr;
    bad.indptr.pop_back();
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()),
                        Catch::Equals("csr matrix of 10 bins x 50 pixels: indptr has 10 entries, bins + 1 = 11 expected "
                                      "(one per bin, and the end)"));
    auto csc = test::to_csc(csr);
    csc.indptr.push_back(csc.indptr.back());
    REQUIRE_THROWS_WITH(normalise_matrix(csc.input()),
                        Catch::Equals("csc matrix of 10 bins x 50 pixels: indptr has 52 entries, pixels + 1 = 51 expected "
                                      "(one per pixel, and the end)"));
    // A csr indptr taken for a csc one (or the reverse) says so.
    bad = csr;
    bad.layout = MatrixLayout::csc;
    REQUIRE_THROWS_WITH(normalise_matrix(bad.input()),
                        Catch::Contains("csc matrix of 10 bins x 50 pixels: indptr has 11 entries, pixels + 1 = 51 expected") &&
                            Catch::Contains("11 = bins + 1 is a csr matrix's indptr"));
    csc = test::to_csc(csr);
    csc.layout = MatrixLayout::csr;
    REQUIRE_THROWS_WITH(normalise_matrix(csc.input()),
                        Catch::Contains("csr matrix of 10 bins x 50 pixels: indptr has 51 entries, bins + 1 = 11 expected") &&
                            Catch::Contains("51 = pixels + 1 is a csc matrix's indptr"));
}

TEST_CASE("mask folding drops the weights of masked pixels only", "[matrix]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(20, 300, 2.0, 3).input());
    const auto mask = test::random_mask(300, 4);
    const IntegrationMatrix f = fold_mask(m, mask);
    std::size_t kept = 0;
    for (std::uint32_t p : m.pixel) kept += mask[p] != 0;
    CHECK(f.nnz() == kept);
    for (std::uint32_t p : f.pixel) REQUIRE(mask[p] != 0);
}

namespace {

// fold_mask's result, entry by entry on one thread: what its threads must give.
IntegrationMatrix folded_in_order(const IntegrationMatrix& m, const std::vector<std::uint8_t>& mask) {
    IntegrationMatrix out;
    out.bins = m.bins;
    out.pixels = m.pixels;
    out.powder_scale = m.powder_scale;
    out.row_start = {0};
    for (std::size_t b = 0; b < m.bins; ++b) {
        for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k) {
            if (!mask[m.pixel[k]]) continue;
            out.pixel.push_back(m.pixel[k]);
            out.weight.push_back(m.weight[k]);
            if (m.fixed_point()) out.fixed_weight.push_back(m.fixed_weight[k]);
        }
        out.row_start.push_back(static_cast<std::uint32_t>(out.pixel.size()));
    }
    return out;
}

bool same_matrix(const IntegrationMatrix& a, const IntegrationMatrix& b) {
    return a.bins == b.bins && a.pixels == b.pixels && a.row_start == b.row_start && a.pixel == b.pixel && a.weight == b.weight &&
           a.fixed_weight == b.fixed_weight && a.powder_scale == b.powder_scale;
}

}  // namespace

TEST_CASE("a large matrix is folded on several threads into the entries, in the order, one thread keeps", "[matrix]") {
    // 2 M entries and more: the passes split them over threads (a thread a million) where there
    // are CPUs for them.
    const IntegrationMatrix m = normalise_matrix(test::random_csr(2000, 1500, 2000.0, 5).input());
    REQUIRE(m.nnz() > 2'000'000);
    const IntegrationMatrix fixed = fixed_point_matrix(m, PixelType::u16);
    for (const unsigned seed : {6u, 7u}) {
        const auto mask = test::random_mask(1500, seed);
        const IntegrationMatrix f = fold_mask(m, mask);
        CHECK(f.nnz() < m.nnz());
        CHECK(same_matrix(f, folded_in_order(m, mask)));
        CHECK(same_matrix(fold_mask(fixed, mask), folded_in_order(fixed, mask)));
    }
    const IntegrationMatrix emptied = fold_mask(m, std::vector<std::uint8_t>(1500, 0));
    CHECK(emptied.nnz() == 0);
    CHECK(emptied.row_start == std::vector<std::uint32_t>(2001, 0));
    CHECK(same_matrix(fold_mask(m, std::vector<std::uint8_t>(1500, 1)), m));
}

TEST_CASE("folding a matrix not in normalise_matrix's form is refused, not read out of bounds", "[matrix]") {
    IntegrationMatrix m = normalise_matrix(test::random_csr(10, 50, 2.0, 3).input());
    m.pixel.back() = 50;  // past the frame: its mask byte would be read past the mask's end
    REQUIRE_THROWS_WITH(fold_mask(m, std::vector<std::uint8_t>(50, 1)), Catch::Contains("not in normalise_matrix's form"));
    m = normalise_matrix(test::random_csr(10, 50, 2.0, 3).input());
    m.row_start[5] = m.row_start[4] - 1;  // a bin that ends before it starts
    REQUIRE_THROWS_WITH(fold_mask(m, std::vector<std::uint8_t>(50, 1)), Catch::Contains("not in normalise_matrix's form"));
}
