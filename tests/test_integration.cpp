// Integration matrices and Chunk2SparseCSC on the CPU, against a dense oracle in long double,
// scipy's csc @ frame in float64 and exact sums.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "matrix_support.hpp"
#include "pixel_major_matrix.hpp"
#include "scipy_product.hpp"
#include "test_support.hpp"

using namespace bslz4;


namespace {

using test::kAllTypes;

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

namespace {

// Bin 0 holds every pixel (weights 0.5 to 1), bin 1 is empty, bin 2 holds pixel 0 alone.
IntegrationMatrix heavy_bin_matrix(std::size_t n) {
    test::RawMatrix r{MatrixLayout::csr, 3, n, {}, {}, {0}};
    for (std::size_t p = 0; p < n; ++p) {
        r.indices.push_back(static_cast<std::int32_t>(p));
        r.data.push_back(0.5f + static_cast<float>(p % 97) / 200.0f);
    }
    r.indptr.push_back(static_cast<std::int32_t>(n));
    r.indptr.push_back(static_cast<std::int32_t>(n));
    r.indices.push_back(0);
    r.data.push_back(1.0f);
    r.indptr.push_back(static_cast<std::int32_t>(n + 1));
    return normalise_matrix(r.input());
}

// INT64_MAX / the largest |pixel| of an integer type: how heavy a bin's |fixed weights| may be.
std::uint64_t sum_limit(PixelType t) {
    return visit_pixel_type(t, [](auto z) -> std::uint64_t {
        using T = decltype(z);
        if constexpr (std::is_integral<T>::value && sizeof(T) <= 4) {
            const std::uint64_t most = std::is_signed<T>::value ? std::uint64_t{1} << (8 * sizeof(T) - 1)
                                                                 : static_cast<std::uint64_t>(std::numeric_limits<T>::max());
            return static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) / most;
        } else {
            return 0;
        }
    });
}

// The heaviest bin's sum of |round(w x scale)|.
std::uint64_t heaviest_sum(const IntegrationMatrix& m, double scale) {
    std::uint64_t heaviest = 0;
    for (std::size_t b = 0; b < m.bins; ++b) {
        std::uint64_t sum = 0;
        for (auto k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
            sum += static_cast<std::uint64_t>(std::llabs(std::llround(static_cast<double>(m.weight[k]) * scale)));
        heaviest = std::max(heaviest, sum);
    }
    return heaviest;
}

const PixelType kFixedPointTypes[] = {PixelType::u8, PixelType::u16, PixelType::u32,
                                      PixelType::i8, PixelType::i16, PixelType::i32};

}  // namespace

TEST_CASE("the fixed-point scale is the widest power of two at which no bin's int64 sum can overflow, for every "
          "integer pixel type",
          "[matrix][i64]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(20, 300, 2.0, 5).input());
    for (PixelType t : kFixedPointTypes) {
        const IntegrationMatrix x = fixed_point_matrix(m, t);
        INFO(pixel_type_name(t) << ": scale 2^" << std::ilogb(x.powder_scale));
        REQUIRE(x.fixed_point());
        REQUIRE(std::ilogb(x.powder_scale) == std::logb(x.powder_scale));  // a power of two
        REQUIRE(heaviest_sum(x, x.powder_scale) <= sum_limit(t));            // fits,
        REQUIRE(heaviest_sum(x, 2 * x.powder_scale) > sum_limit(t));         // and twice it would not
        for (std::size_t k = 0; k < m.nnz(); ++k) {
            REQUIRE(x.fixed_weight[k] == std::llround(static_cast<double>(m.weight[k]) * x.powder_scale));
            REQUIRE(std::fabs(static_cast<double>(x.fixed_weight[k]) / x.powder_scale - m.weight[k]) <= 0.5 / x.powder_scale);
        }
    }
    // Weights past 32 bits where the pixels are narrow: u8's scale is 2^50 here.
    REQUIRE(fixed_point_matrix(m, PixelType::u8).powder_scale == 0x1p50);
}

TEST_CASE("the fixed-point scales are at least bslz4-to-sparse 0.0.22a2's for every pixel type", "[matrix][i64]") {
    // The seed's fixed_point_matrix(csc, mask, dtype).scale for heavy_bin_matrix(n), measured
    // (tests/powder_exact_scipy.py compares its scales on other matrices as it runs). Its 32-bit
    // weights stop it at 2^31 for narrow pixels; where the sums bound both, ours is a bit wider
    // (INT64_MAX / the largest pixel, against its 2^62 / 2^bits). For n = 2^19, u32 and i32
    // are refused here (15 bits or fewer left) where the seed takes 2^11 and 2^12.
    struct Seed {
        std::size_t n;
        PixelType type;
        int seed_log2, ours_log2;
    };
    const Seed scales[] = {{3072, PixelType::u8, 31, 43},  {3072, PixelType::u16, 31, 35},   {3072, PixelType::u32, 18, 19},
                           {3072, PixelType::i8, 31, 44},  {3072, PixelType::i16, 31, 36},   {3072, PixelType::i32, 19, 20},
                           {1 << 19, PixelType::u8, 31, 36}, {1 << 19, PixelType::u16, 27, 28},
                           {1 << 19, PixelType::i8, 31, 37}, {1 << 19, PixelType::i16, 28, 29}};
    for (const Seed& s : scales) {
        INFO(s.n << " pixels, " << pixel_type_name(s.type));
        const double scale = fixed_point_matrix(heavy_bin_matrix(s.n), s.type).powder_scale;
        REQUIRE(scale == std::ldexp(1.0, s.ours_log2));
        REQUIRE(scale >= std::ldexp(1.0, s.seed_log2));
    }
}

TEST_CASE("weight_bits narrows the scale: 24 bits keep the largest weight 24 bits with the sign; 2 to 63 are taken",
          "[matrix][i64]") {
    const IntegrationMatrix m = normalise_matrix(test::random_csr(20, 300, 2.0, 5).input());
    float top = 0;
    for (float w : m.weight) top = std::max(top, std::fabs(w));
    for (PixelType t : kFixedPointTypes) {
        INFO(pixel_type_name(t));
        const IntegrationMatrix x = fixed_point_matrix(m, t, 24);
        REQUIRE(top * x.powder_scale >= 0x1p22);
        REQUIRE(top * x.powder_scale < 0x1p23);
    }
    REQUIRE(fixed_point_matrix(m, PixelType::u16, 63).powder_scale == fixed_point_matrix(m, PixelType::u16).powder_scale);
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, PixelType::u16, 64), Catch::Contains("2 to 63 bits, not 64"));
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, PixelType::u16, 1), Catch::Contains("2 to 63 bits, not 1"));
}

TEST_CASE("acc i64 powders are within half a weight step of the exact sum of float64 products: 8- and 16-bit pixels "
          "within 1e-12 relative (exact here), 32-bit ones as int64 allows",
          "[integrate][i64][exact]") {
    // The 2^22 scale of 24-bit weights left these 9e-7 off (tests/powder_exact_scipy.py).
    const std::size_t ni = 40, nj = 64, bins = 90;
    const test::RawMatrix raw_csc = test::split_csc_with_duplicates(bins, ni, nj, 27);
    const IntegrationMatrix m = normalise_matrix(raw_csc.input());
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    for (PixelType t : kFixedPointTypes) {
        const IntegrationMatrix x = fixed_point_matrix(m, t);
        const std::vector<std::uint8_t> frame = test::random_pixels_for(t, ni * nj, 60);
        Chunk2SparseCSC csc(mask, ni, nj, t, x, Accumulator::i64);
        const Powder p = csc.from_frames({ByteView(frame)}, 0.0).powder;
        const std::vector<double> px = visit_pixel_type(t, [&](auto z) { return test::pixels_as_double<decltype(z)>(frame); });
        const test::ExactProduct exact = test::exact_product(raw_csc, px);
        std::vector<long double> pixel_sum(bins, 0);  // each weight is off by at most 0.5 / scale
        for (std::size_t q = 0; q < ni * nj; ++q)
            for (auto k = raw_csc.indptr[q]; k < raw_csc.indptr[q + 1]; ++k)
                pixel_sum[static_cast<std::size_t>(raw_csc.indices[k])] += std::fabs(px[q]);
        const double err = test::relative_error(p, 0, exact);
        INFO(pixel_type_name(t) << ": scale 2^" << std::ilogb(x.powder_scale) << ", " << err << " relative");
        for (std::size_t b = 0; b < bins; ++b)
            REQUIRE(std::fabs(static_cast<long double>(p.as<std::int64_t>()[b]) / x.powder_scale - exact.sum[b]) <=
                    0.5L / x.powder_scale * pixel_sum[b] * (1 + 1e-12L) + std::fabs(exact.sum[b]) * 0x1p-60L);
        if (pixel_size(t) < 4) REQUIRE(err < 1e-12);  // u32: 2^25 and 1.3e-7 here, the int64 bound
    }
}

TEST_CASE("powders equal the dense product for every type, acc and mask, sparse lists unchanged, with a cut above "
          "zero (the nonzero pixels listed and summed) and below it (every pixel)",
          "[integrate]") {
    const std::size_t ni = 30, nj = 41, n = ni * nj;
    for (std::size_t bins : {1u, 7u, 200u}) {
        const IntegrationMatrix m = normalise_matrix(test::random_csr(bins, n, 2.0, static_cast<std::uint32_t>(bins)).input());
        for (PixelType t : kAllTypes) {
            // acc i64 takes integer pixels of up to 32 bits (64-bit ones are refused: see below).
            const bool integer = t != PixelType::f32 && t != PixelType::f64 && pixel_size(t) < 8;
            const IntegrationMatrix x = integer ? fixed_point_matrix(m, t) : IntegrationMatrix{};
            const auto mask = test::random_mask(n, 8);
            std::vector<std::vector<std::uint8_t>> raws, chunks;
            for (std::uint32_t f = 0; f < 5; ++f) {
                raws.push_back(visit_pixel_type(t, [&](auto z) {
                    auto r = test::random_pixels<decltype(z)>(n, 30 + f);
                    if constexpr (std::is_floating_point<decltype(z)>::value) {  // finite values: NaN would poison every sum
                        auto* v = reinterpret_cast<decltype(z)*>(r.data());
                        for (std::size_t i = 0; i < n; ++i)
                            if (!std::isfinite(v[i])) v[i] = static_cast<decltype(z)>(i % 13);
                    }
                    return r;
                }));
                chunks.push_back(encode_chunk(raws.back(), pixel_size(t)));
            }
            const std::vector<ByteView> views(chunks.begin(), chunks.end());
            std::vector<Accumulator> accs = {Accumulator::f64, Accumulator::f32};
            if (integer) accs.push_back(Accumulator::i64);
            for (double cut : {5.0, -3.0}) {
                Chunk2Sparse plain(mask, ni, nj, t);
                const SparseBatch want = plain.multi(views, cut);
                for (Accumulator acc : accs) {
                    INFO(pixel_type_name(t) << " bins " << bins << " acc " << accumulator_name(acc) << " cut " << cut);
                    Chunk2SparseCSC csc(mask, ni, nj, t, acc == Accumulator::i64 ? x : m, acc, {Codec::lz4, 3});
                    const IntegratedBatch got = csc.multi(views, cut);
                    REQUIRE(got.powder.nframes == 5);
                    REQUIRE(got.powder.bins == bins);
                    for (std::size_t f = 0; f < 5; ++f) {
                        REQUIRE(got.sparse.npixels[f] == want.npixels[f]);
                        const std::size_t bytes = want.npixels[f] * pixel_size(t);
                        REQUIRE(std::memcmp(got.sparse.frame(f).values, want.frame(f).values, bytes) == 0);
                        REQUIRE(std::memcmp(got.sparse.frame(f).indices, want.frame(f).indices, want.npixels[f] * 4) == 0);
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
                    const IntegratedBatch fromf = csc.from_frames(dense, cut);
                    REQUIRE(std::memcmp(fromf.powder.data, kept.data(), kept.size()) == 0);
                    const IntegratedCoo one = csc.coo(chunks[2], cut);
                    REQUIRE(one.coo.npixels == want.npixels[2]);
                    const IntegratedBatch again = csc.multi(views, cut);
                    REQUIRE(std::memcmp(one.powder_bytes.data(),
                                        static_cast<const std::uint8_t*>(again.powder.data) + 2 * bins * accumulator_size(acc),
                                        bins * accumulator_size(acc)) == 0);
                }
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


TEST_CASE("acc i64 sums a heavy bin of saturated pixels exactly, never wrapped, for every integer type", "[integrate][i64]") {
    const std::size_t ni = 64, nj = 48, n = ni * nj;
    const IntegrationMatrix m = heavy_bin_matrix(n);
    const std::vector<std::uint8_t> mask(n, 1);
    for (PixelType t : {PixelType::u8, PixelType::u16, PixelType::u32, PixelType::i8, PixelType::i16, PixelType::i32}) {
        visit_pixel_type(t, [&](auto z) {
            using T = decltype(z);
            // The value of largest magnitude: the maximum (unsigned) or the minimum (signed).
            const T extreme = std::is_signed<T>::value ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
            const std::vector<T> frame(n, extreme);
            std::vector<std::uint8_t> raw(n * sizeof(T));
            std::memcpy(raw.data(), frame.data(), raw.size());
            const IntegrationMatrix x = fixed_point_matrix(m, t);
            Chunk2SparseCSC csc(mask, ni, nj, t, x, Accumulator::i64);
            const IntegratedBatch got = csc.multi({ByteView(encode_chunk(raw, sizeof(T)))}, 0.0);
            const auto want = oracle<T>(x, raw, mask, true);
            for (std::size_t b = 0; b < 3; ++b) {
                INFO(pixel_type_name(t) << " bin " << b << " want " << static_cast<double>(want[b]));
                REQUIRE(got.powder.as<std::int64_t>()[b] == static_cast<std::int64_t>(want[b]));
                REQUIRE((got.powder.as<std::int64_t>()[b] < 0) == (want[b] < 0));
            }
        });
    }
}

TEST_CASE("acc i64 refuses 64-bit pixels: one pixel alone can pass int64", "[integrate][i64]") {
    const std::size_t ni = 8, nj = 8, n = ni * nj;
    const IntegrationMatrix m = heavy_bin_matrix(n);
    const std::vector<std::uint8_t> mask(n, 1);
    for (PixelType t : {PixelType::u64, PixelType::i64}) {
        INFO(pixel_type_name(t));
        REQUIRE_THROWS_WITH(Chunk2SparseCSC(mask, ni, nj, t, fixed_point_matrix(m, PixelType::u8), Accumulator::i64),
                            Catch::Contains(pixel_type_name(t)) && Catch::Contains("acc f64"));
        REQUIRE_THROWS_WITH(fixed_point_matrix(m, t), Catch::Contains(pixel_type_name(t)) && Catch::Contains("acc f64"));
    }
}

TEST_CASE("a fixed-point matrix made for narrower pixels is refused, not overflowed", "[integrate][i64]") {
    const std::size_t ni = 64, nj = 48, n = ni * nj;
    const IntegrationMatrix m = heavy_bin_matrix(n);
    const std::vector<std::uint8_t> mask(n, 1);
    const IntegrationMatrix x16 = fixed_point_matrix(m, PixelType::u16);
    REQUIRE_NOTHROW(Chunk2SparseCSC(mask, ni, nj, PixelType::u16, x16, Accumulator::i64));
    REQUIRE_THROWS_WITH(Chunk2SparseCSC(mask, ni, nj, PixelType::u32, x16, Accumulator::i64),
                        Catch::Contains("can overflow int64 with u32 pixels") && Catch::Contains("bin 0") &&
                            Catch::Contains("fixed_point_matrix(matrix, PixelType::u32)"));
    REQUIRE(test::code_thrown_by([&] { Chunk2SparseCSC(mask, ni, nj, PixelType::u32, x16, Accumulator::i64); }) ==
            ErrorCode::bad_matrix);
    // The u32 scale is the smallest: a matrix made for u32 serves every type acc i64 takes.
    const IntegrationMatrix any = fixed_point_matrix(m, PixelType::u32);
    for (PixelType t : {PixelType::u8, PixelType::u16, PixelType::u32, PixelType::i8, PixelType::i16, PixelType::i32})
        REQUIRE_NOTHROW(Chunk2SparseCSC(mask, ni, nj, t, any, Accumulator::i64));
}

TEST_CASE("acc i64 is refused, saying the bits left, when an exact sum leaves the weights under 16 bits", "[integrate][i64]") {
    // 2^19 u32 pixels of weight about 0.75 in one bin (the largest weight is 1): int64 holds
    // their sum only at a scale of 2^12, which leaves the largest weight 14 bits.
    const std::size_t ni = 1024, nj = 512, n = ni * nj;
    const IntegrationMatrix m = heavy_bin_matrix(n);
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, PixelType::u32),
                        Catch::Contains("with u32 pixels: bin 0") && Catch::Contains("scale of 2^12") && Catch::Contains("leaves the largest weight 14 bits") &&
                            Catch::Contains("use acc f64"));
    REQUIRE(test::code_thrown_by([&] { fixed_point_matrix(m, PixelType::u32); }) == ErrorCode::bad_matrix);
    // u16 pixels: the widest scale is 2^28 (the seed's 2^27); i32's limit is twice u32's: one bit more.
    REQUIRE(fixed_point_matrix(m, PixelType::u16).powder_scale == 0x1p28);
    REQUIRE_THROWS_WITH(fixed_point_matrix(m, PixelType::i32), Catch::Contains("15 bits"));
    // Asking for fewer bits than the minimum is the caller's choice.
    REQUIRE(fixed_point_matrix(m, PixelType::u32, 12).fixed_point());

    // Weights of exactly 1 lose nothing at a coarse scale: accepted, and the sums are exact.
    IntegrationMatrix ones = m;
    std::fill(ones.weight.begin(), ones.weight.end(), 1.0f);
    const IntegrationMatrix x = fixed_point_matrix(ones, PixelType::u32);
    const std::vector<std::uint32_t> frame(n, 0xFFFFFFFFu);
    std::vector<std::uint8_t> raw(n * 4);
    std::memcpy(raw.data(), frame.data(), raw.size());
    const std::vector<std::uint8_t> mask(n, 1);
    Chunk2SparseCSC csc(mask, ni, nj, PixelType::u32, x, Accumulator::i64);
    const Powder p = csc.multi({ByteView(encode_chunk(raw, 4))}, 0.0).powder;
    REQUIRE(p.value(0, 0) == static_cast<double>(n) * 0xFFFFFFFFu);
    REQUIRE(p.value(0, 2) == 0xFFFFFFFFu);
}

namespace {

// Each bin's sum in the order the integrator adds (its entries in order, every pixel, zeros
// too), in A: what summing the nonzero pixels alone must give bit for bit.
template <class A, class T>
std::vector<A> every_pixel_product(const IntegrationMatrix& m, const std::vector<std::uint8_t>& raw,
                                   const std::vector<std::uint8_t>& mask) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    std::vector<A> out(m.bins, A(0));
    for (std::size_t b = 0; b < m.bins; ++b)
        for (auto k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
            if (mask[m.pixel[k]]) out[b] += static_cast<A>(m.weight[k]) * static_cast<A>(v[m.pixel[k]]);
    return out;
}

// Whole pixels, each in `per_pixel` neighbouring bins (every 4th in one more when `mixed`, as
// pixels split over 2 or 3 bins), every 9th pixel in none (outside the integration's range).
// Unit weights, which f64 sums in exact fixed point; or fractional ones, every 7th pixel's 1e-30,
// which no fixed-point scale holds (whatever the mask leaves), so they are summed in float64.
inline test::RawMatrix uniform_csc(std::size_t bins, std::size_t pixels, std::size_t per_pixel, bool unit,
                                   bool mixed = false) {
    std::mt19937 rng(5);
    test::RawMatrix m{MatrixLayout::csc, bins, pixels, {}, {}, {0}};
    for (std::size_t p = 0; p < pixels; ++p) {
        if (p % 9 != 4)
            for (std::size_t k = 0; k < per_pixel + (mixed && p % 4 == 0); ++k) {
                m.indices.push_back(static_cast<std::int32_t>((p / 3 + k) % bins));
                m.data.push_back(unit ? 1.0f : p % 7 == 0 ? 1e-30f : 0.25f + static_cast<float>(rng() % 1000) / 997.0f);
            }
        m.indptr.push_back(static_cast<std::int32_t>(m.indices.size()));
    }
    return m;
}

// Each bin's exact sum of its pixels (unit weights), rounded once to double.
template <class T>
std::vector<double> unit_weight_sums(const IntegrationMatrix& m, const std::vector<std::uint8_t>& raw,
                                     const std::vector<std::uint8_t>& mask) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    std::vector<double> out(m.bins);
    for (std::size_t b = 0; b < m.bins; ++b) {
        std::uint64_t sum = 0;
        for (auto k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
            if (mask[m.pixel[k]]) sum += v[m.pixel[k]];
        out[b] = static_cast<double>(sum);
    }
    return out;
}

// A frame of mostly zeros: about one pixel in `one_in` nonzero, some of them large.
template <class T>
std::vector<std::uint8_t> sparse_pixels(std::size_t n, std::size_t one_in, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<T> v(n, T(0));
    for (auto& x : v)
        if (rng() % one_in == 0) x = static_cast<T>(rng() % 4 == 0 ? rng() : 1 + rng() % 9);
    std::vector<std::uint8_t> out(n * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

}  // namespace

TEST_CASE("powders summed from the nonzero pixels alone equal the product over every pixel bit for bit, on sparse "
          "frames of every unsigned type, for every cut, and the lists are Chunk2Sparse's",
          "[integrate][exact]") {
    // Odd shapes leave a raw tail after the last block; fractional split weights keep the sums
    // in floating point, where only the order of the adds decides the bits.
    // Matrices of 1 to 4 entries a pixel (its columns' starts kept), of whole pixels in 1 or 2
    // bins each (padded columns, the empty slots summing 0 x pixel), of whole pixels of unit
    // weight (summed in fixed point, a bin a pixel: 16 bits for 70 bins, 32 for 70,000), and of
    // pixels in 2 or 3 bins (padded to 3, a quarter of the pixels' third slot empty).
    for (const auto& shape : {std::pair<std::size_t, std::size_t>{37, 53}, {64, 130}})
    for (int kind = 0; kind < 6; ++kind) {
        const bool unit = kind == 3 || kind == 4;
        const std::size_t ni = shape.first, nj = shape.second, n = ni * nj, bins = kind == 4 ? 70000 : 70;
        const test::RawMatrix raw_matrix = kind == 0   ? test::split_csc_with_duplicates(bins, ni, nj, 9)
                                           : kind == 5 ? uniform_csc(bins, n, 2, false, true)
                                                       : uniform_csc(bins, n, unit ? 1 : kind, unit);
        const IntegrationMatrix m = normalise_matrix(raw_matrix.input());
        const auto mask = test::random_mask(n, 4);
        for (PixelType t : {PixelType::u8, PixelType::u16, PixelType::u32}) {
            visit_pixel_type(t, [&](auto z) {
                using T = decltype(z);
                std::vector<std::vector<std::uint8_t>> raws, chunks;
                for (std::uint32_t f = 0; f < 4; ++f) {
                    raws.push_back(sparse_pixels<T>(n, f == 3 ? 1 : 8 + 30 * f, 70 + f));  // the last one dense
                    chunks.push_back(encode_chunk(raws.back(), sizeof(T)));
                }
                const std::vector<ByteView> views(chunks.begin(), chunks.end());
                for (double cut : {0.0, 4.0, -1.0, std::nan(""), 1e30}) {
                    Chunk2Sparse plain(mask, ni, nj, t);
                    const SparseBatch want = plain.multi(views, cut);
                    for (Accumulator acc : {Accumulator::f64, Accumulator::f32}) {
                        INFO(pixel_type_name(t) << " " << ni << " x " << nj << " matrix " << kind << " cut " << cut << " acc "
                                                << accumulator_name(acc));
                        Chunk2SparseCSC csc(mask, ni, nj, t, m, acc, {Codec::lz4, 2});
                        const IntegratedBatch got = csc.multi(views, cut);
                        for (std::size_t f = 0; f < raws.size(); ++f) {
                            REQUIRE(got.sparse.npixels[f] == want.npixels[f]);
                            const std::size_t np = want.npixels[f];
                            const SparseFrame a = got.sparse.frame(f), b = want.frame(f);
                            REQUIRE(std::memcmp(a.values, b.values, np * sizeof(T)) == 0);
                            REQUIRE(std::memcmp(a.indices, b.indices, np * 4) == 0);
                            if (acc == Accumulator::f64) {
                                const auto ref = unit ? unit_weight_sums<T>(m, raws[f], mask)
                                                           : every_pixel_product<double, T>(m, raws[f], mask);
                                REQUIRE(std::memcmp(got.powder.as<double>() + f * bins, ref.data(), bins * 8) == 0);
                            } else {
                                const auto ref = every_pixel_product<float, T>(m, raws[f], mask);
                                REQUIRE(std::memcmp(got.powder.as<float>() + f * bins, ref.data(), bins * 4) == 0);
                            }
                        }
                        const IntegratedFrame one = csc(chunks[1], cut);
                        REQUIRE(one.sparse.npixels == want.npixels[1]);
                    }
                }
            });
        }
    }
}

TEST_CASE("pixels split over 2 or 3 bins are read padded to 3 slots, and the split matrix with duplicates by its "
          "columns, so that the exact powders above sum both forms",
          "[integrate][exact]") {
    const std::size_t ni = 64, nj = 130, n = ni * nj;
    const IntegrationMatrix mixed = normalise_matrix(uniform_csc(70, n, 2, false, true).input());
    REQUIRE(detail::PixelMajorMatrix(mixed, PixelType::u16).width() == 3);
    const IntegrationMatrix split = normalise_matrix(test::split_csc_with_duplicates(70, ni, nj, 9).input());
    REQUIRE(detail::PixelMajorMatrix(split, PixelType::u16).width() == 0);
    // Float pixels are never padded: an empty slot's 0 x an infinite pixel would be NaN.
    REQUIRE(detail::PixelMajorMatrix(mixed, PixelType::f32).width() == 0);
}

TEST_CASE("f32 pixels of -0, NaN, infinities and negative values are summed as the every-pixel product and listed as "
          "Chunk2Sparse lists them, with cuts of 0, 2.5 and NaN, dense and sparse frames, from chunks and from frames",
          "[integrate][exact]") {
    // The integrator takes an f32 frame's nonzero pixels from its bit planes: -0 has a bit set
    // and is listed there, adding w x -0 to its bins, which must change no sum; NaN and the
    // infinities are summed into their bins as the product sums them, and no cut keeps NaN.
    const std::size_t ni = 37, nj = 53, n = ni * nj, bins = 70;
    const IntegrationMatrix m = normalise_matrix(uniform_csc(bins, n, 2, false, true).input());
    const auto mask = test::random_mask(n, 4);
    const float specials[] = {-0.0f, 0.0f, -1.5f, 3.25f, std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::nanf(""), 1e30f, -7.0f};
    std::vector<std::vector<std::uint8_t>> raws, chunks;
    for (std::uint32_t f = 0; f < 3; ++f) {
        std::mt19937 rng(40 + f);
        std::vector<float> v(n, 0.0f);
        for (std::size_t i = 0; i < n; ++i) {
            const unsigned r = static_cast<unsigned>(rng() % (f == 2 ? 40 : 3));  // frame 2 sparse
            if (r == 0) v[i] = specials[rng() % 9];
            else if (r == 1 && f != 2) v[i] = -0.0f;
            else if (r == 2 && f != 2) v[i] = static_cast<float>(rng() % 5);
        }
        if (f == 0)  // no NaN or infinity in frame 0, so that its bins are finite sums
            for (float& x : v)
                if (!std::isfinite(x)) x = 2.0f;
        std::vector<std::uint8_t> raw(n * 4);
        std::memcpy(raw.data(), v.data(), raw.size());
        raws.push_back(raw);
        chunks.push_back(encode_chunk(raw, 4));
    }
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    const auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 8) == 0; };
    for (double cut : {0.0, 2.5, std::nan("")}) {
        Chunk2Sparse plain(mask, ni, nj, PixelType::f32);
        const SparseBatch want = plain.multi(views, cut);
        Chunk2SparseCSC csc(mask, ni, nj, PixelType::f32, m, Accumulator::f64, {Codec::lz4, 2});
        // From chunks, then the same frames given dense: the same lists and sums.
        const auto check = [&](const IntegratedBatch& got, const char* how) {
            for (std::size_t f = 0; f < raws.size(); ++f) {
                INFO(how << ", frame " << f << " cut " << cut);
                REQUIRE(got.sparse.npixels[f] == want.npixels[f]);
                REQUIRE(std::memcmp(got.sparse.frame(f).values, want.frame(f).values, want.npixels[f] * 4) == 0);
                REQUIRE(std::memcmp(got.sparse.frame(f).indices, want.frame(f).indices, want.npixels[f] * 4) == 0);
                const auto ref = every_pixel_product<double, float>(m, raws[f], mask);
                for (std::size_t b = 0; b < bins; ++b) REQUIRE(same(got.powder.as<double>()[f * bins + b], ref[b]));
            }
        };
        check(csc.multi(views, cut), "multi");
        check(csc.from_frames(std::vector<ByteView>(raws.begin(), raws.end()), cut), "from_frames");
    }
}

TEST_CASE("an infinite weight makes its bin NaN where its pixel is zero, as scipy's csc @ frame does", "[integrate]") {
    // A 64 x 64 u16 frame of zeros but pixel 1 (3): pixel 0 in bin 0 with weight inf, pixel 1
    // in bin 1 with weight 2. inf x 0 is NaN, so the zero pixel must be summed.
    const std::size_t n = 64 * 64;
    const std::vector<float> data = {std::numeric_limits<float>::infinity(), 2.0f};
    const std::vector<std::int32_t> indices = {0, 1};
    std::vector<std::int32_t> indptr(n + 1, 2);
    indptr[0] = 0;
    indptr[1] = 1;
    const MatrixInput in{MatrixLayout::csc, 2, n, data.data(), 2, IndexType::i32, indices.data(), 2,
                         indptr.data(), indptr.size()};
    std::vector<std::uint16_t> frame(n, 0);
    frame[1] = 3;
    std::vector<std::uint8_t> raw(n * 2);
    std::memcpy(raw.data(), frame.data(), raw.size());
    const std::vector<std::uint8_t> chunk = encode_chunk(raw, 2);
    Chunk2SparseCSC csc(std::vector<std::uint8_t>(n, 1), 64, 64, PixelType::u16, normalise_matrix(in), Accumulator::f64);
    const IntegratedFrame got = csc(ByteView(chunk), 0.0);
    REQUIRE(got.sparse.npixels == 1);
    REQUIRE(std::isnan(got.powder.value(0, 0)));
    REQUIRE(got.powder.value(0, 1) == 6.0);
}
