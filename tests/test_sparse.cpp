// Chunk2Sparse against the plainest possible oracle: threshold the decoded frame pixel by
// pixel, comparing in long double (exact for every type here, 64-bit integers included).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "matrix_support.hpp"
#include "test_support.hpp"
#include "synthetic/synthetic_eiger.hpp"

using namespace bslz4;

namespace {

using test::kAllTypes;

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

// OnError::report: a bad frame costs that frame alone, in both classes and with both codecs.

namespace {

using Inputs = std::vector<std::vector<std::uint8_t>>;

// The sparse lists of either class's batch, and frame f's powder row (none for Chunk2Sparse).
const SparseBatch& lists_of(const SparseBatch& b) { return b; }
const SparseBatch& lists_of(const IntegratedBatch& b) { return b.sparse; }
std::vector<std::uint8_t> powder_row(const SparseBatch&, std::size_t) { return {}; }
std::vector<std::uint8_t> powder_row(const IntegratedBatch& b, std::size_t f) {
    const std::size_t bytes = b.powder.bins * accumulator_size(b.powder.acc);
    const auto* p = static_cast<const std::uint8_t*>(b.powder.data) + f * bytes;
    return {p, p + bytes};
}

// An owned copy of a batch (its views are overwritten by the decoder's next call): each frame's
// count, indices, values and powder row as bytes, and its status.
struct BatchCopy {
    std::vector<std::vector<std::uint8_t>> frames, powders;
    std::vector<std::size_t> npixels;
    std::vector<ErrorCode> codes;
    std::vector<FrameError> bad;
};

template <class Batch>
BatchCopy copy_of(const Batch& batch) {
    const SparseBatch& lists = lists_of(batch);
    BatchCopy out;
    for (std::size_t f = 0; f < lists.nframes; ++f) {
        const SparseFrame fr = lists.frame(f);
        const auto* i = reinterpret_cast<const std::uint8_t*>(fr.indices);
        const auto* v = static_cast<const std::uint8_t*>(fr.values);
        std::vector<std::uint8_t> bytes(i, i + fr.npixels * sizeof(std::uint32_t));
        bytes.insert(bytes.end(), v, v + fr.npixels * pixel_size(fr.pixel_type));
        out.frames.push_back(bytes);
        out.powders.push_back(powder_row(batch, f));
        out.npixels.push_back(fr.npixels);
        out.codes.push_back(lists.code(f));
    }
    out.bad.assign(lists.bad, lists.bad + lists.nbad);
    return out;
}

// The Error that call() throws.
template <class Call>
Error error_of(Call&& call) {
    try {
        call();
    } catch (const Error& e) {
        return e;
    }
    FAIL("no error");
    return Error(ErrorCode::ok, "");
}

struct BadBatchCase {
    static constexpr std::size_t ni = 24, nj = 40, nframes = 10;
    Codec codec;
    std::vector<std::uint8_t> mask = test::random_mask(ni * nj, 8);
    IntegrationMatrix matrix = normalise_matrix(test::random_csr(12, ni* nj, 1.5, 4).input());
    Inputs raws, chunks;

    explicit BadBatchCase(Codec c) : codec(c) {
        for (std::uint32_t f = 0; f < nframes; ++f) {
            raws.push_back(test::random_pixels<std::uint16_t>(ni * nj, 50 + f));
            chunks.push_back(encode_chunk(raws.back(), 2, {codec, 512, 3}));  // 4 blocks
        }
    }

    template <class Decoder>
    Decoder make(OnError on_error) const {
        const Chunk2SparseOptions options{codec, 3, on_error};
        if constexpr (std::is_same<Decoder, Chunk2Sparse>::value)
            return Chunk2Sparse(mask, ni, nj, PixelType::u16, options);
        else
            return Chunk2SparseCSC(mask, ni, nj, PixelType::u16, matrix, Accumulator::f64, options);
    }
};

// Bad frames first, inside and last, each with its own fault and the code it must give.
struct Damage {
    std::size_t frame;
    ErrorCode code;
};

Inputs damaged_chunks(const Inputs& good, Codec codec, std::vector<Damage>& damage) {
    Inputs bad = good;
    bad[0].resize(bad[0].size() - 3);  // the last block runs past the end
    const BlockLayout layout = block_starts(bad[5], 2);
    for (std::uint64_t k = layout.starts[1] + 4; k < layout.starts[2]; ++k) bad[5][k] = 0xFF;  // block 1 is garbage
    test::put_be64(bad[9], 0, 2 * BadBatchCase::ni * BadBatchCase::nj - 2);                    // another frame's size
    damage = {{0, ErrorCode::bad_block_length},
              {5, codec == Codec::lz4 ? ErrorCode::bad_lz4_sequence : ErrorCode::bad_zstd_frame},
              {9, ErrorCode::wrong_decoded_size}};
    return bad;
}

Inputs damaged_frames(const Inputs& good, std::vector<Damage>& damage) {
    Inputs bad = good;
    for (std::size_t f : {0, 5, 9}) bad[f].resize(bad[f].size() - 2 * f - 1);
    damage = {{0, ErrorCode::bad_argument}, {5, ErrorCode::bad_argument}, {9, ErrorCode::bad_argument}};
    return bad;
}

// call(decoder, inputs) -> BatchCopy, through a decoder made with OnError::report, against the
// same call on the good inputs through one made with throw_first: good frames equal, bad frames
// empty with a zero powder row, the code expected and the message throw_first gives for a batch
// in which that frame alone is bad; and throw_first on the bad inputs throws the first bad frame.
template <class Decoder, class Call>
void check_report(const BadBatchCase& t, const Inputs& good, const Inputs& bad, const std::vector<Damage>& damage,
                  Call&& call) {
    Decoder throwing = t.make<Decoder>(OnError::throw_first);
    Decoder reporting = t.make<Decoder>(OnError::report);
    const BatchCopy want = call(throwing, good);
    const BatchCopy got = call(reporting, bad);
    REQUIRE(got.frames.size() == BadBatchCase::nframes);
    REQUIRE(got.bad.size() == damage.size());
    for (std::size_t k = 0; k < damage.size(); ++k) {
        const std::size_t f = damage[k].frame;
        INFO("bad frame " << f);
        Inputs alone = good;
        alone[f] = bad[f];
        const Error thrown = error_of([&] { call(throwing, alone); });
        REQUIRE(std::string(thrown.what()).rfind("frame " + std::to_string(f) + ": ", 0) == 0);
        REQUIRE(thrown.code() == damage[k].code);
        REQUIRE(got.bad[k].frame == f);
        REQUIRE(got.bad[k].code == damage[k].code);
        REQUIRE(got.bad[k].message == thrown.what());
        REQUIRE(got.codes[f] == damage[k].code);
        REQUIRE(got.npixels[f] == 0);
        REQUIRE(got.powders[f] == std::vector<std::uint8_t>(want.powders[f].size(), 0));
    }
    for (std::size_t f = 0; f < BadBatchCase::nframes; ++f) {
        if (std::any_of(damage.begin(), damage.end(), [&](const Damage& d) { return d.frame == f; })) continue;
        INFO("good frame " << f);
        REQUIRE(got.codes[f] == ErrorCode::ok);
        REQUIRE(got.npixels[f] == want.npixels[f]);
        REQUIRE(got.frames[f] == want.frames[f]);
        REQUIRE(got.powders[f] == want.powders[f]);
    }
    const Error first = error_of([&] { call(throwing, bad); });
    REQUIRE(std::string(first.what()).rfind("frame " + std::to_string(damage[0].frame) + ": ", 0) == 0);
    REQUIRE(first.code() == damage[0].code);
    // The next call on the reporting object starts clean.
    const BatchCopy again = call(reporting, good);
    REQUIRE(again.bad.empty());
    REQUIRE(again.codes == std::vector<ErrorCode>(BadBatchCase::nframes, ErrorCode::ok));
    REQUIRE(again.frames == want.frames);
}

}  // namespace

TEMPLATE_TEST_CASE(
    "with OnError::report multi and from_buffer return the good frames as without it, and each bad frame's code and "
    "message",
    "[sparse][on_error]", Chunk2Sparse, Chunk2SparseCSC) {
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        INFO(codec_name(codec));
        const BadBatchCase t(codec);
        std::vector<Damage> damage;
        const Inputs bad = damaged_chunks(t.chunks, codec, damage);
        check_report<TestType>(t, t.chunks, bad, damage, [](TestType& d, const Inputs& chunks) {
            return copy_of(d.multi(std::vector<ByteView>(chunks.begin(), chunks.end()), 9.0));
        });
        check_report<TestType>(t, t.chunks, bad, damage, [](TestType& d, const Inputs& chunks) {
            std::vector<std::uint8_t> base(3, 0xEE);
            std::vector<std::uint64_t> offsets, lengths;
            for (const auto& c : chunks) {
                offsets.push_back(base.size());
                lengths.push_back(c.size());
                base.insert(base.end(), c.begin(), c.end());
            }
            return copy_of(d.from_buffer(base, offsets, lengths, 9.0));
        });
    }
}

TEMPLATE_TEST_CASE("with OnError::report from_frames reports a dense frame of the wrong size and returns the others",
                   "[sparse][on_error]", Chunk2Sparse, Chunk2SparseCSC) {
    const BadBatchCase t(Codec::lz4);
    std::vector<Damage> damage;
    const Inputs bad = damaged_frames(t.raws, damage);
    check_report<TestType>(t, t.raws, bad, damage, [](TestType& d, const Inputs& frames) {
        return copy_of(d.from_frames(std::vector<ByteView>(frames.begin(), frames.end()), 9.0));
    });
}

TEMPLATE_TEST_CASE(
    "with OnError::report a from_buffer chunk outside the buffer is that frame's bad_argument; counts that differ "
    "still throw",
    "[sparse][on_error]", Chunk2Sparse, Chunk2SparseCSC) {
    const BadBatchCase t(Codec::lz4);
    std::vector<std::uint8_t> base;
    std::vector<std::uint64_t> offsets, lengths;
    for (const auto& c : t.chunks) {
        offsets.push_back(base.size());
        lengths.push_back(c.size());
        base.insert(base.end(), c.begin(), c.end());
    }
    auto outside = lengths;
    outside[4] = base.size();
    TestType throwing = t.make<TestType>(OnError::throw_first);
    const Error thrown = error_of([&] { throwing.from_buffer(base, offsets, outside, 9.0); });
    REQUIRE_THAT(thrown.what(), Catch::StartsWith("frame 4: bytes") && Catch::Contains("lie outside the"));
    TestType reporting = t.make<TestType>(OnError::report);
    const auto batch = reporting.from_buffer(base, offsets, outside, 9.0);
    const SparseBatch& got = lists_of(batch);
    REQUIRE(got.nbad == 1);
    REQUIRE(got.bad[0].frame == 4);
    REQUIRE(got.bad[0].code == ErrorCode::bad_argument);
    REQUIRE(got.bad[0].message == thrown.what());
    REQUIRE(got.frame(3).npixels > 0);
    outside.pop_back();
    REQUIRE(test::code_thrown_by([&] { reporting.from_buffer(base, offsets, outside, 9.0); }) ==
            ErrorCode::bad_argument);
}

TEMPLATE_TEST_CASE("single-frame calls throw a bad chunk's Error whatever on_error says", "[sparse][on_error]",
                   Chunk2Sparse, Chunk2SparseCSC) {
    const BadBatchCase t(Codec::lz4);
    std::vector<Damage> damage;
    const Inputs bad = damaged_chunks(t.chunks, Codec::lz4, damage);
    TestType reporting = t.make<TestType>(OnError::report);
    for (const Damage& d : damage) {
        const Error e = error_of([&] { reporting(bad[d.frame], 9.0); });
        REQUIRE_THAT(e.what(), Catch::StartsWith("frame 0: "));
        REQUIRE(e.code() == d.code);
        REQUIRE(test::code_thrown_by([&] { reporting.coo(bad[d.frame], 9.0); }) == d.code);
    }
}
