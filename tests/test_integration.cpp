// Integration matrices and Chunk2SparseCSC on the CPU, against a dense oracle in long double.
#include <catch2/catch.hpp>
#include <cmath>

#include "bslz4/bslz4.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {

const PixelType kAllTypes[] = {PixelType::u8,  PixelType::u16, PixelType::u32, PixelType::u64, PixelType::i8,
                               PixelType::i16, PixelType::i32, PixelType::i64, PixelType::f32, PixelType::f64};

// powder[b] = sum over the bin's pixels (mask != 0) of weight * value.
template <class T>
std::vector<long double> oracle(const IntegrationMatrix& m, const std::vector<std::uint8_t>& raw,
                                const std::vector<std::uint8_t>& mask, bool fixed) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    std::vector<long double> out(m.bins, 0);
    for (std::size_t b = 0; b < m.bins; ++b)
        for (auto k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
            if (mask[m.pixel[k]])
                out[b] += (fixed ? static_cast<long double>(m.fixed_weight[k]) : static_cast<long double>(m.weight[k])) *
                          static_cast<long double>(v[m.pixel[k]]);
    return out;
}

}  // namespace

TEST_CASE("csr and csc inputs of one matrix normalise to the same canonical form", "[matrix]") {
    const auto csr = test::random_csr(40, 500, 2.0, 1);
    const IntegrationMatrix a = normalise_matrix(csr.input()), b = normalise_matrix(test::to_csc(csr).input());
    CHECK(a.row_start == b.row_start);
    CHECK(a.pixel == b.pixel);
    CHECK(a.weight == b.weight);
    for (std::size_t r = 0; r < a.bins; ++r)
        for (auto k = a.row_start[r] + 1; k < a.row_start[r + 1]; ++k) REQUIRE(a.pixel[k - 1] < a.pixel[k]);
}

TEST_CASE("duplicate entries are merged and unsorted indices sorted; uint32 indices work", "[matrix]") {
    const std::vector<float> data = {1.0f, 2.0f, 0.5f, 4.0f};
    const std::vector<std::uint32_t> indices = {3, 1, 3, 0}, indptr = {0, 3, 4};
    const MatrixInput in{MatrixLayout::csr, 2, 4, data.data(), 4, IndexType::u32, indices.data(), 4, indptr.data(), 3};
    const IntegrationMatrix m = normalise_matrix(in);
    CHECK(m.row_start == std::vector<std::uint32_t>{0, 2, 3});
    CHECK(m.pixel == std::vector<std::uint32_t>{1, 3, 0});
    CHECK(m.weight == std::vector<float>{2.0f, 1.5f, 4.0f});
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
    REQUIRE_THROWS_WITH(Chunk2SparseCSC(std::vector<std::uint8_t>(50, 1), 5, 10, PixelType::f32, fixed_point_matrix(m),
                                        Accumulator::i64),
                        Catch::Contains("integer pixels"));
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

TEST_CASE("fixed-point weights are the float weights to 24 bits", "[matrix]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(20, 300, 2.0, 5).input());
    const IntegrationMatrix x = fixed_point_matrix(m);
    REQUIRE(x.fixed_point());
    for (std::size_t k = 0; k < m.nnz(); ++k)
        REQUIRE(std::fabs(x.fixed_weight[k] / x.powder_scale - m.weight[k]) <= 1.0 / x.powder_scale);
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, 40), Catch::Contains("2 to 31 bits"));
}

TEST_CASE("powders equal the dense product for every type, acc and mask, sparse lists unchanged", "[integrate]") {
    const std::size_t ni = 30, nj = 41, n = ni * nj;
    for (std::size_t bins : {1u, 7u, 200u}) {
        const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, n, 2.0, static_cast<std::uint32_t>(bins)).input());
        const IntegrationMatrix x = fixed_point_matrix(m);
        for (PixelType t : kAllTypes) {
            const bool integer = t != PixelType::f32 && t != PixelType::f64;
            const auto mask = test::random_mask(n, 8);
            std::vector<std::vector<std::uint8_t>> raws, chunks;
            for (std::uint32_t f = 0; f < 5; ++f) {
                raws.push_back(visit_pixel_type(t, [&](auto z) {
                    auto r = test::random_pixels<decltype(z)>(n, 30 + f);
                    if constexpr (std::is_floating_point<decltype(z)>::value) {  // finite values: NaN would poison every sum
                        auto* v = reinterpret_cast<decltype(z)*>(r.data());
                        for (std::size_t i = 0; i < n; ++i)
                            if (!std::isfinite(v[i])) v[i] = static_cast<decltype(z)>(i % 13);
                    } else if (sizeof(z) == 8) {  // keep 64-bit products inside int64 for the i64 check
                        auto* v = reinterpret_cast<decltype(z)*>(r.data());
                        for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<decltype(z)>(v[i] % 100000);
                    }
                    return r;
                }));
                chunks.push_back(encode_chunk(raws.back(), pixel_size(t)));
            }
            const std::vector<ByteView> views(chunks.begin(), chunks.end());
            std::vector<Accumulator> accs = {Accumulator::f64, Accumulator::f32};
            if (integer) accs.push_back(Accumulator::i64);
            Chunk2Sparse plain(mask, ni, nj, t);
            const SparseBatch want = plain.multi(views, 5.0);
            for (Accumulator acc : accs) {
                INFO(pixel_type_name(t) << " bins " << bins << " acc " << accumulator_name(acc));
                Chunk2SparseCSC csc(mask, ni, nj, t, acc == Accumulator::i64 ? x : m, acc, {Codec::lz4, 3});
                const IntegratedBatch got = csc.multi(views, 5.0);
                REQUIRE(got.powder.nframes == 5);
                REQUIRE(got.powder.bins == bins);
                for (std::size_t f = 0; f < 5; ++f) {
                    REQUIRE(got.sparse.npixels[f] == want.npixels[f]);
                    visit_pixel_type(t, [&](auto z) {
                        const auto ref = oracle<decltype(z)>(acc == Accumulator::i64 ? x : m, raws[f], mask,
                                                             acc == Accumulator::i64);
                        for (std::size_t b = 0; b < bins; ++b) {
                            if (acc == Accumulator::i64) {
                                REQUIRE(got.powder.as<std::int64_t>()[f * bins + b] == static_cast<std::int64_t>(ref[b]));
                            } else {
                                const double tol = acc == Accumulator::f64 ? 1e-12 : 1e-5;
                                const long double scale = std::max<long double>(1, std::fabs(ref[b]));
                                REQUIRE(std::fabs(got.powder.value(f, b) - ref[b]) / scale < tol * 10);
                            }
                        }
                    });
                }
                // the same sums, bit for bit, through from_frames and coo
                const auto* gp = static_cast<const std::uint8_t*>(got.powder.data);
                const std::vector<std::uint8_t> kept(gp, gp + 5 * bins * accumulator_size(acc));
                const std::vector<ByteView> dense(raws.begin(), raws.end());
                const IntegratedBatch fromf = csc.from_frames(dense, 5.0);
                REQUIRE(std::memcmp(fromf.powder.data, kept.data(), kept.size()) == 0);
                const IntegratedCoo one = csc.coo(chunks[2], 5.0);
                REQUIRE(one.coo.npixels == want.npixels[2]);
                const IntegratedBatch again = csc.multi(views, 5.0);
                REQUIRE(std::memcmp(one.powder_bytes.data(),
                                    static_cast<const std::uint8_t*>(again.powder.data) + 2 * bins * accumulator_size(acc),
                                    bins * accumulator_size(acc)) == 0);
            }
        }
    }
}

TEST_CASE("a batch of 300 frames integrates each frame into its own row, whatever the thread count", "[integrate]") {
    const std::size_t ni = 16, nj = 24, n = ni * nj;
    const IntegrationMatrix m = normalise_matrix(test::random_csr(13, n, 3.0, 77).input());
    const std::vector<std::uint8_t> mask(n, 1);
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < 300; ++f) chunks.push_back(encode_chunk(test::random_pixels<std::uint16_t>(n, f), 2));
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    Chunk2SparseCSC one(mask, ni, nj, PixelType::u16, m, Accumulator::f64, {Codec::lz4, 1});
    Chunk2SparseCSC many(mask, ni, nj, PixelType::u16, m, Accumulator::f64, {Codec::lz4, 7});
    const IntegratedBatch a = one.multi(views, 3.0);
    const std::vector<double> first(a.powder.as<double>(), a.powder.as<double>() + 300 * 13);
    const IntegratedBatch b = many.multi(views, 3.0);
    REQUIRE(std::memcmp(first.data(), b.powder.data, first.size() * sizeof(double)) == 0);
    const IntegratedFrame single = one(chunks[299], 3.0);
    REQUIRE(std::memcmp(single.powder.data, first.data() + 299 * 13, 13 * sizeof(double)) == 0);
}
