// Top pixels (set_top_pixels, the seed's howmany / thresholds) on the CPU classes: hand-built
// frames with known counts above each threshold, and random frames of every type against a
// plain oracle of the rule written here in long double.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {

using test::kAllTypes;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
    std::vector<std::uint8_t> out(v.size() * sizeof(T));
    std::memcpy(out.data(), v.data(), out.size());
    return out;
}

struct Expected {
    std::vector<std::uint32_t> indices;
    std::vector<long double> values;
    double last_cut;
    std::size_t last_nabove;
};

bool above(long double v, double t) { return !std::isnan(v) && v > static_cast<long double>(t); }

// The rule, as the issue states it, on a dense frame.
template <class T>
Expected oracle(const std::vector<std::uint8_t>& raw, const std::vector<std::uint8_t>& mask, double cut,
                std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    std::vector<std::uint32_t> idx;
    std::vector<long double> val;
    for (std::size_t i = 0; i < mask.size(); ++i)
        if (mask[i] && above(static_cast<long double>(v[i]), cut)) {
            idx.push_back(static_cast<std::uint32_t>(i));
            val.push_back(static_cast<long double>(v[i]));
        }
    const std::size_t n = idx.size();
    if (!howmany || n <= *howmany) return {idx, val, cut, n};
    std::vector<double> thr;
    if (thresholds) thr = *thresholds;
    else
        for (int i = 0; i < 16; ++i) thr.push_back(std::max(cut, 1.0) * std::pow(2.0, i));
    if (thr.empty()) {
        idx.resize(*howmany);
        val.resize(*howmany);
        return {idx, val, cut, n};
    }
    double t = thr.back();
    for (double c : thr) {
        std::size_t count = 0;
        for (long double x : val) count += above(x, c);
        if (count < *howmany) {
            t = c;
            break;
        }
    }
    Expected e{{}, {}, t, 0};
    for (std::size_t k = 0; k < n; ++k)
        if (above(val[k], t)) {
            if (e.indices.size() < *howmany) {
                e.indices.push_back(idx[k]);
                e.values.push_back(val[k]);
            }
            ++e.last_nabove;
        }
    return e;
}

template <class T>
void check_frame(const SparseFrame& got, const Expected& want) {
    REQUIRE(got.npixels == want.indices.size());
    REQUIRE(std::vector<std::uint32_t>(got.indices, got.indices + got.npixels) == want.indices);
    const T* gv = got.values_as<T>();
    for (std::size_t k = 0; k < got.npixels; ++k) REQUIRE(static_cast<long double>(gv[k]) == want.values[k]);
    REQUIRE(got.last_nabove == want.last_nabove);
    REQUIRE(std::memcmp(&got.last_cut, &want.last_cut, sizeof(double)) == 0);
}

template <class T>
void check_frame_in_type(PixelType t, const SparseFrame& got, const Expected& want) {
    REQUIRE(got.pixel_type == t);
    check_frame<T>(got, want);
}

void check_any(PixelType t, const SparseFrame& got, const Expected& want) {
    visit_pixel_type(t, [&](auto zero) { check_frame_in_type<decltype(zero)>(t, got, want); });
}

Expected oracle_any(PixelType t, const std::vector<std::uint8_t>& raw, const std::vector<std::uint8_t>& mask, double cut,
                    std::optional<std::size_t> howmany, const std::optional<std::vector<double>>& thresholds) {
    return visit_pixel_type(t, [&](auto zero) { return oracle<decltype(zero)>(raw, mask, cut, howmany, thresholds); });
}

// A frame of these values through the single-frame call (its lists are views of c's buffers).
template <class T>
SparseFrame top_of(Chunk2Sparse& c, const std::vector<T>& values, double cut) {
    return c(encode_chunk(bytes_of(values), sizeof(T)), cut);
}

template <class T>
std::vector<T> listed(const SparseFrame& f) {
    const T* v = f.values_as<T>();
    return std::vector<T>(v, v + f.npixels);
}

}  // namespace

TEMPLATE_TEST_CASE("howmany keeps pixels above the first threshold fewer than howmany exceed, in pixel order",
                   "[top_pixels]", std::uint8_t, std::uint16_t, std::uint32_t, std::uint64_t, std::int8_t,
                   std::int16_t, std::int32_t, std::int64_t, float, double) {
    using T = TestType;
    const std::vector<std::uint8_t> mask(8, 1);
    Chunk2Sparse c(mask, 1, 8, pixel_type_of<T>());
    c.set_top_pixels(3, std::vector<double>{10, 20, 30});
    auto frame = [](std::vector<int> v) {
        std::vector<T> out;
        for (int x : v) out.push_back(static_cast<T>(x));
        return out;
    };
    SECTION("exactly howmany above the cut: every one, the cut kept") {
        const SparseFrame f = top_of(c, frame({0, 5, 0, 15, 25, 0, 0, 0}), 0);
        REQUIRE(listed<T>(f) == frame({5, 15, 25}));
        REQUIRE(f.last_cut == 0);
        REQUIRE(f.last_nabove == 3);
    }
    SECTION("one more than howmany: the first threshold fewer exceed") {
        const SparseFrame f = top_of(c, frame({5, 15, 25, 35, 0, 0, 0, 0}), 0);
        REQUIRE(listed<T>(f) == frame({25, 35}));
        REQUIRE(std::vector<std::uint32_t>(f.indices, f.indices + 2) == std::vector<std::uint32_t>{2, 3});
        REQUIRE(f.last_cut == 20);
        REQUIRE(f.last_nabove == 2);
    }
    SECTION("none above the cut") {
        const SparseFrame f = top_of(c, frame({0, 0, 0, 0, 0, 0, 0, 0}), 0);
        REQUIRE(f.npixels == 0);
        REQUIRE(f.last_cut == 0);
        REQUIRE(f.last_nabove == 0);
    }
    SECTION("all above every threshold: the last one, then the first howmany in pixel order, not the brightest") {
        const SparseFrame f = top_of(c, frame({44, 40, 43, 41, 42, 0, 0, 0}), 0);
        REQUIRE(listed<T>(f) == frame({44, 40, 43}));
        REQUIRE(f.last_cut == 30);
        REQUIRE(f.last_nabove == 5);
    }
    SECTION("exactly howmany above a threshold is not fewer: the next one") {
        const SparseFrame f = top_of(c, frame({15, 25, 26, 27, 5, 0, 0, 0}), 0);
        REQUIRE(f.npixels == 0);
        REQUIRE(f.last_cut == 30);
        REQUIRE(f.last_nabove == 0);
    }
    SECTION("one fewer than howmany above the first threshold") {
        const SparseFrame f = top_of(c, frame({11, 1, 12, 2, 3, 0, 0, 0}), 0);
        REQUIRE(listed<T>(f) == frame({11, 12}));
        REQUIRE(f.last_cut == 10);
        REQUIRE(f.last_nabove == 2);
    }
    SECTION("howmany 0 keeps nothing, above the last threshold") {
        c.set_top_pixels(0, std::vector<double>{10, 20, 30});
        const SparseFrame f = top_of(c, frame({44, 40, 5, 0, 0, 0, 0, 0}), 0);
        REQUIRE(f.npixels == 0);
        REQUIRE(f.last_cut == 30);
        REQUIRE(f.last_nabove == 2);
    }
    SECTION("howmany nullopt lists every pixel above the cut again") {
        c.set_top_pixels(std::nullopt);
        const SparseFrame f = top_of(c, frame({44, 40, 43, 41, 42, 0, 0, 0}), 0);
        REQUIRE(f.npixels == 5);
        REQUIRE(f.last_cut == 0);
        REQUIRE(f.last_nabove == 5);
    }
}

TEST_CASE("thresholds not given are max(cut, 1) * 2**i; an empty list given keeps simply the first howmany",
          "[top_pixels]") {
    const std::vector<std::uint8_t> mask(6, 1);
    Chunk2Sparse c(mask, 1, 6, PixelType::u16);
    const std::vector<std::uint16_t> v = {4, 7, 13, 25, 50, 0};
    c.set_top_pixels(2);  // 3, 6, 12, 24, 48: 1 pixel above 48
    SparseFrame f = top_of(c, v, 3);
    REQUIRE(listed<std::uint16_t>(f) == std::vector<std::uint16_t>{50});
    REQUIRE(f.last_cut == 48);
    REQUIRE(f.last_nabove == 1);
    f = top_of(c, v, 0);  // max(0, 1): 1, 2, 4, ..., 32: 1 above 32
    REQUIRE(f.last_cut == 32);
    REQUIRE(f.last_nabove == 1);
    c.set_top_pixels(2, {});  // a bare {} is "not given"
    REQUIRE(top_of(c, v, 3).last_cut == 48);
    c.set_top_pixels(2, std::vector<double>{});
    f = top_of(c, v, 3);
    REQUIRE(listed<std::uint16_t>(f) == std::vector<std::uint16_t>{4, 7});
    REQUIRE(f.last_cut == 3);
    REQUIRE(f.last_nabove == 5);
    Chunk2SparseOptions o;
    o.howmany = 2;
    o.thresholds = std::vector<double>{};
    Chunk2Sparse from_options(mask, 1, 6, PixelType::u16, o);
    REQUIRE(listed<std::uint16_t>(top_of(from_options, v, 3)) == std::vector<std::uint16_t>{4, 7});
}

TEMPLATE_TEST_CASE("threshold lists of more than 16 values, unsorted or with NaN are bad_argument naming them",
                   "[top_pixels]", Chunk2Sparse, Chunk2SparseCSC) {
    const std::vector<std::uint8_t> mask(4, 1);
    const std::vector<std::vector<double>> bad = {
        std::vector<double>(17, 1.0), {1, 5, 3}, {1, std::numeric_limits<double>::quiet_NaN(), 3}};
    const test::RawMatrix raw = test::random_csr(3, 4, 1.0, 5);
    const IntegrationMatrix m = normalise_matrix(raw.input());
    auto make = [&](Chunk2SparseOptions o) {
        if constexpr (std::is_same<TestType, Chunk2Sparse>::value) return TestType(mask, 2, 2, PixelType::u16, o);
        else return TestType(mask, 2, 2, PixelType::u16, m, Accumulator::f64, o);
    };
    TestType c = make({});
    for (const auto& t : bad) {
        try {
            c.set_top_pixels(3, t);
            FAIL("accepted");
        } catch (const Error& e) {
            REQUIRE(e.code() == ErrorCode::bad_argument);
            REQUIRE_THAT(e.what(), Catch::Contains("thresholds [1, "));
        }
        Chunk2SparseOptions o;
        o.howmany = 3;
        o.thresholds = t;
        REQUIRE(test::code_thrown_by([&] { make(o); }) == ErrorCode::bad_argument);
    }
    std::vector<double> sixteen(16, 2.0);
    sixteen[0] = -kInf;
    sixteen[15] = kInf;
    REQUIRE(test::code_thrown_by([&] { c.set_top_pixels(3, sixteen); }) == ErrorCode::ok);
}

TEST_CASE("every pixel type, NaN and infinities included, follows the rule through multi, from_buffer, "
          "from_frames, operator() and coo",
          "[top_pixels]") {
    const std::size_t ni = 37, nj = 53, npix = ni * nj;
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 11);
    const std::vector<std::optional<std::vector<double>>> lists = {
        std::nullopt, std::vector<double>{}, std::vector<double>{2.5, 10, 30, 31, 100},
        std::vector<double>{-kInf, 0, 1e300, kInf}, std::vector<double>{-50, -50, 7}};
    for (PixelType t : kAllTypes) {
        INFO(pixel_type_name(t));
        std::vector<std::vector<std::uint8_t>> raws, chunks;
        for (std::uint32_t s = 0; s < 5; ++s) {
            raws.push_back(test::random_pixels_for(t, npix, 100 + s));
            chunks.push_back(encode_chunk(raws.back(), pixel_size(t)));
        }
        const std::vector<ByteView> views(chunks.begin(), chunks.end()), dense(raws.begin(), raws.end());
        std::vector<std::uint8_t> base(5, 0);
        std::vector<std::uint64_t> offsets, lengths;
        for (const auto& ch : chunks) {
            offsets.push_back(base.size());
            lengths.push_back(ch.size());
            base.insert(base.end(), ch.begin(), ch.end());
        }
        Chunk2Sparse c(mask, ni, nj, t);
        for (double cut : {0.0, 5.0, -3.5}) {
            for (std::optional<std::size_t> howmany : {std::optional<std::size_t>{}, std::optional<std::size_t>{0},
                                                       std::optional<std::size_t>{1}, std::optional<std::size_t>{40},
                                                       std::optional<std::size_t>{300}, std::optional<std::size_t>{npix}})
                for (const auto& thr : lists) {
                    INFO("cut " << cut << " howmany " << (howmany ? static_cast<long>(*howmany) : -1) << " thresholds "
                                << (thr ? static_cast<long>(thr->size()) : -1));
                    c.set_top_pixels(howmany, thr);
                    std::vector<Expected> want;
                    for (const auto& raw : raws) want.push_back(oracle_any(t, raw, mask, cut, howmany, thr));
                    const SparseBatch m = c.multi(views, cut);
                    for (std::size_t f = 0; f < raws.size(); ++f) check_any(t, m.frame(f), want[f]);
                    const SparseBatch b = c.from_buffer(base, offsets, lengths, cut);
                    for (std::size_t f = 0; f < raws.size(); ++f) check_any(t, b.frame(f), want[f]);
                    const SparseBatch d = c.from_frames(dense, cut);
                    for (std::size_t f = 0; f < raws.size(); ++f) check_any(t, d.frame(f), want[f]);
                    for (std::size_t f = 0; f < raws.size(); ++f) {
                        check_any(t, c(chunks[f], cut), want[f]);
                        const CooFrame coo = c.coo(chunks[f], cut);
                        REQUIRE(coo.npixels == want[f].indices.size());
                        REQUIRE(coo.last_nabove == want[f].last_nabove);
                        REQUIRE(std::memcmp(&coo.last_cut, &want[f].last_cut, sizeof(double)) == 0);
                        for (std::size_t k = 0; k < coo.npixels; ++k)
                            REQUIRE(coo.row[k] * nj + coo.col[k] == want[f].indices[k]);
                    }
                }
        }
    }
}

TEST_CASE("the CSC powder integrates the whole frame whatever top pixels lists, and the lists equal Chunk2Sparse's",
          "[top_pixels]") {
    const std::size_t ni = 40, nj = 50, npix = ni * nj;
    const std::vector<std::uint8_t> mask = test::random_mask(npix, 3);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(30, npix, 1.5, 9).input());
    for (PixelType t : {PixelType::u16, PixelType::i32, PixelType::f32}) {
        std::vector<std::vector<std::uint8_t>> chunks;
        for (std::uint32_t s = 0; s < 4; ++s)
            chunks.push_back(encode_chunk(test::random_pixels_for(t, npix, 7 + s), pixel_size(t)));
        const std::vector<ByteView> views(chunks.begin(), chunks.end());
        Chunk2SparseCSC all(mask, ni, nj, t, m), top(mask, ni, nj, t, m);
        Chunk2Sparse lists(mask, ni, nj, t);
        top.set_top_pixels(25, std::vector<double>{3, 20});
        lists.set_top_pixels(25, std::vector<double>{3, 20});
        const IntegratedBatch a = all.multi(views, 1.0);
        const std::vector<std::uint8_t> powder_all(static_cast<const std::uint8_t*>(a.powder.data),
                                                   static_cast<const std::uint8_t*>(a.powder.data) + 4 * 30 * 8);
        const IntegratedBatch b = top.multi(views, 1.0);
        REQUIRE(std::memcmp(b.powder.data, powder_all.data(), powder_all.size()) == 0);
        const SparseBatch l = lists.multi(views, 1.0);
        for (std::size_t f = 0; f < 4; ++f) {
            REQUIRE(b.sparse.frame(f).npixels <= 25);
            REQUIRE(b.sparse.frame(f).npixels == l.frame(f).npixels);
            REQUIRE(b.sparse.last_cut[f] == l.last_cut[f]);
            REQUIRE(b.sparse.last_nabove[f] == l.last_nabove[f]);
            REQUIRE(std::memcmp(b.sparse.frame(f).indices, l.frame(f).indices, l.frame(f).npixels * 4) == 0);
        }
        const IntegratedFrame one = top(chunks[2], 1.0);
        REQUIRE(std::memcmp(one.powder.data, powder_all.data() + 2 * 30 * 8, 30 * 8) == 0);
        REQUIRE(one.sparse.last_cut == l.last_cut[2]);
    }
}

TEST_CASE("with OnError::report a bad frame has 0 pixels, the call's cut and last_nabove 0; the others keep top pixels",
          "[top_pixels][on_error]") {
    const std::size_t ni = 20, nj = 30, npix = ni * nj;
    const std::vector<std::uint8_t> mask(npix, 1);
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t s = 0; s < 3; ++s)
        chunks.push_back(encode_chunk(test::random_pixels<std::uint16_t>(npix, 40 + s), 2));
    std::vector<std::uint8_t> broken = chunks[1];
    broken.resize(broken.size() / 2);
    Chunk2SparseOptions o;
    o.on_error = OnError::report;
    o.howmany = 10;
    o.thresholds = std::vector<double>{};
    Chunk2Sparse c(mask, ni, nj, PixelType::u16, o);
    const SparseBatch good = c.multi({chunks[0], chunks[2]}, 4.0);
    const std::size_t n0 = good.npixels[0], n2 = good.npixels[1];
    const double c0 = good.last_cut[0], c2 = good.last_cut[1];
    const std::size_t above0 = good.last_nabove[0];
    const SparseBatch b = c.multi({chunks[0], broken, chunks[2]}, 4.0);
    REQUIRE(b.nbad == 1);
    REQUIRE(b.npixels[1] == 0);
    REQUIRE(b.last_cut[1] == 4.0);
    REQUIRE(b.last_nabove[1] == 0);
    REQUIRE(b.npixels[0] == n0);
    REQUIRE(b.npixels[2] == n2);
    REQUIRE(b.last_cut[0] == c0);
    REQUIRE(b.last_cut[2] == c2);
    REQUIRE(n0 == 10);
    REQUIRE(above0 > 10);
    REQUIRE(b.last_nabove[0] == above0);
}
