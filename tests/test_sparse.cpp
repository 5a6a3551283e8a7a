// Chunk2Sparse against the plainest possible oracle: threshold the decoded frame pixel by
// pixel, comparing in long double (exact for every type here, 64-bit integers included).
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "bslz4/bslz4.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {

const PixelType kAllTypes[] = {PixelType::u8,  PixelType::u16, PixelType::u32, PixelType::u64, PixelType::i8,
                               PixelType::i16, PixelType::i32, PixelType::i64, PixelType::f32, PixelType::f64};

template <class T>
void dense_oracle(const std::vector<std::uint8_t>& raw, const std::vector<std::uint8_t>& mask, double cut,
                  std::vector<std::uint32_t>& idx, std::vector<T>& val) {
    const T* v = reinterpret_cast<const T*>(raw.data());
    for (std::size_t i = 0; i < mask.size(); ++i) {
        const long double x = static_cast<long double>(v[i]);
        if (mask[i] && !std::isnan(x) && x > static_cast<long double>(cut)) {
            idx.push_back(static_cast<std::uint32_t>(i));
            val.push_back(v[i]);
        }
    }
}

template <class T>
void check_frame(const SparseFrame& got, const std::vector<std::uint8_t>& raw, const std::vector<std::uint8_t>& mask,
                 double cut) {
    std::vector<std::uint32_t> idx;
    std::vector<T> val;
    dense_oracle<T>(raw, mask, cut, idx, val);
    REQUIRE(got.npixels == idx.size());
    REQUIRE(std::vector<std::uint32_t>(got.indices, got.indices + got.npixels) == idx);
    const T* gv = got.values_as<T>();
    for (std::size_t k = 0; k < idx.size(); ++k) REQUIRE(std::memcmp(&gv[k], &val[k], sizeof(T)) == 0);
}

std::vector<double> cuts_for(PixelType t) {
    std::vector<double> cuts = {0.0, 5.0, 10.5, -1.0, -3.7, 1e30, -1e30, std::numeric_limits<double>::infinity(),
                                -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};
    if (t == PixelType::u64) cuts.push_back(18446744073709549568.0);  // just below 2^64
    if (t == PixelType::i64) cuts.push_back(-9223372036854775808.0);
    return cuts;
}

}  // namespace

TEST_CASE("sparse lists equal a dense threshold for every type, mask and cut", "[sparse]") {
    for (PixelType t : kAllTypes)
        for (auto shape : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 7}, {3, 3}, {5, 13}, {33, 257}, {100, 101}}) {
            const std::size_t ni = shape.first, nj = shape.second, n = ni * nj;
            const auto raw = visit_pixel_type(t, [&](auto z) { return test::random_pixels<decltype(z)>(n, 5 + n); });
            const auto chunk = encode_chunk(raw, pixel_size(t));
            for (bool masked : {false, true}) {
                const auto mask = masked ? test::random_mask(n, 17) : std::vector<std::uint8_t>(n, 1);
                Chunk2Sparse sparse(mask, ni, nj, t, {Codec::lz4, 2});
                for (double cut : cuts_for(t)) {
                    INFO(pixel_type_name(t) << " " << ni << "x" << nj << " cut " << cut << " masked " << masked);
                    visit_pixel_type(t, [&](auto z) {
                        using T = decltype(z);
                        check_frame<T>(sparse(chunk, cut), raw, mask, cut);
                        const std::vector<ByteView> frames = {raw};
                        check_frame<T>(sparse.from_frames(frames, cut).frame(0), raw, mask, cut);
                    });
                }
            }
        }
}

TEST_CASE("multi gives each frame's list in its own row, the same for any thread count", "[sparse]") {
    const std::size_t ni = 40, nj = 70, n = ni * nj;
    const auto mask = test::random_mask(n, 3);
    std::vector<std::vector<std::uint8_t>> raws, chunks;
    for (std::uint32_t f = 0; f < 37; ++f) {
        raws.push_back(test::random_pixels<std::int16_t>(n, f));
        chunks.push_back(encode_chunk(raws.back(), 2, {Codec::lz4, 512, 3}));
    }
    const std::vector<ByteView> views(chunks.begin(), chunks.end());
    for (unsigned threads : {1u, 3u, 8u}) {
        Chunk2Sparse sparse(mask, ni, nj, PixelType::i16, {Codec::lz4, threads});
        const SparseBatch b = sparse.multi(views, 7.0);
        REQUIRE(b.nframes == 37);
        REQUIRE(b.row_length == n);
        for (std::size_t f = 0; f < b.nframes; ++f) check_frame<std::int16_t>(b.frame(f), raws[f], mask, 7.0);
    }
}

TEST_CASE("from_buffer reads each chunk at its offset in one buffer", "[sparse]") {
    const std::size_t ni = 16, nj = 16, n = ni * nj;
    const std::vector<std::uint8_t> mask(n, 1);
    std::vector<std::uint8_t> base(5, 0xEE);
    std::vector<std::uint64_t> offsets, lengths;
    std::vector<std::vector<std::uint8_t>> raws;
    for (std::uint32_t f = 0; f < 5; ++f) {
        raws.push_back(test::random_pixels<float>(n, 100 + f));
        const auto c = encode_chunk(raws.back(), 4);
        offsets.push_back(base.size());
        lengths.push_back(c.size());
        base.insert(base.end(), c.begin(), c.end());
        base.push_back(0xEE);
    }
    Chunk2Sparse sparse(mask, ni, nj, PixelType::f32);
    const SparseBatch b = sparse.from_buffer(base, offsets, lengths, 1.5);
    for (std::size_t f = 0; f < 5; ++f) check_frame<float>(b.frame(f), raws[f], mask, 1.5);
    lengths[3] = base.size();
    REQUIRE_THROWS_WITH(sparse.from_buffer(base, offsets, lengths, 1.5), Catch::Contains("frame 3") && Catch::Contains("outside"));
}

TEST_CASE("a corrupt chunk in a batch is an error naming that frame, and the object still works", "[sparse]") {
    const std::size_t ni = 20, nj = 30, n = ni * nj;
    const std::vector<std::uint8_t> mask(n, 1);
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < 12; ++f) chunks.push_back(encode_chunk(test::random_pixels<std::uint32_t>(n, f), 4));
    auto bad = chunks;
    bad[7].resize(bad[7].size() - 3);
    bad[9][20] ^= 0x55;
    Chunk2Sparse sparse(mask, ni, nj, PixelType::u32, {Codec::lz4, 4});
    REQUIRE_THROWS_WITH(sparse.multi(std::vector<ByteView>(bad.begin(), bad.end()), 3.0), Catch::StartsWith("frame 7:"));
    const SparseBatch ok = sparse.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), 3.0);
    REQUIRE(ok.nframes == 12);
}

TEST_CASE("coo gives rows and columns of its own that outlive the next call", "[sparse]") {
    const std::size_t ni = 9, nj = 11, n = ni * nj;
    const auto raw = test::random_pixels<std::uint8_t>(n, 42);
    const std::vector<std::uint8_t> mask(n, 1);
    Chunk2Sparse sparse(mask, ni, nj, PixelType::u8);
    const CooFrame coo = sparse.coo(encode_chunk(raw, 1), 20.0);
    sparse(encode_chunk(std::vector<std::uint8_t>(n, 200), 1), 0.0);  // overwrites the views
    std::size_t k = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (raw[i] > 20) {
            REQUIRE(k < coo.npixels);
            CHECK(coo.row[k] == i / nj);
            CHECK(coo.col[k] == i % nj);
            CHECK(coo.values_as<std::uint8_t>()[k] == raw[i]);
            ++k;
        }
    REQUIRE(k == coo.npixels);
    REQUIRE_THROWS_WITH(coo.values_as<std::uint16_t>(), Catch::Contains("values are u8"));
}

TEST_CASE("a mask of the wrong size and an empty shape are refused", "[sparse]") {
    const std::vector<std::uint8_t> mask(10, 1);
    REQUIRE_THROWS_WITH(Chunk2Sparse(mask, 3, 4, PixelType::u16), Catch::Contains("mask has 10 bytes"));
    REQUIRE_THROWS_WITH(Chunk2Sparse(ByteView(), 0, 4, PixelType::u16), Catch::Contains("empty"));
}

TEST_CASE("a synthetic Eiger frame round trips and lists its spots", "[sparse]") {
    const std::size_t ni = 600, nj = 1100;
    const auto raw = synthetic_eiger_frame(ni, nj, PixelType::u16, 3);
    const auto mask = synthetic_eiger_mask(ni, nj);
    const auto chunk = encode_chunk(raw, 2);
    REQUIRE(decode_chunk(chunk, 2) == raw);
    REQUIRE(synthetic_eiger_frame(ni, nj, PixelType::u16, 3) == raw);  // fixed seed
    Chunk2Sparse sparse(mask, ni, nj, PixelType::u16);
    const SparseFrame f = sparse(chunk, 10.0);
    CHECK(f.npixels > 50);
    check_frame<std::uint16_t>(f, raw, mask, 10.0);
}
