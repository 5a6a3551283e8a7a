// The LZ4 format's rules as the CPU decoder keeps them (the list at the top of
// runtime/cpu/lz4_block.cpp): blocks liblz4's LZ4_decompress_safe accepts but the format
// forbids are refused with a message naming the fault, every block an encoder writes decodes as
// liblz4 decodes it, and nothing is read or written outside the block and its output.
#include <lz4.h>
#include <lz4hc.h>

#include <catch2/catch.hpp>
#include <memory>
#include <random>

#include "block_codec.hpp"
#include "bslz4/bslz4.hpp"
#include "lz4_block_writer.hpp"
#include "test_support.hpp"

using namespace bslz4;
using bslz4::test::block_around;
using bslz4::test::finish_block;
using bslz4::test::Lz4BlockWriter;
using bslz4::test::noise_bytes;

namespace {

// What our decoder says about the block: "" when it decodes, else its message. The block and
// the output are copied into allocations of exactly their size, so that ASan sees any read or
// write past them.
std::string verdict(const std::vector<std::uint8_t>& block, std::size_t expected, std::vector<std::uint8_t>* out = nullptr) {
    std::unique_ptr<std::uint8_t[]> in(new std::uint8_t[block.size() + 1]), dst(new std::uint8_t[expected + 1]);
    if (!block.empty()) std::memcpy(in.get(), block.data(), block.size());
    try {
        detail::decompress_lz4(ByteView(in.get(), block.size()), dst.get(), expected);
    } catch (const Error& e) {
        return e.what();
    }
    if (out) out->assign(dst.get(), dst.get() + expected);
    return "";
}

bool liblz4_accepts(const std::vector<std::uint8_t>& block, std::size_t expected, std::vector<std::uint8_t>* out = nullptr) {
    std::vector<std::uint8_t> dst(expected + 64);
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(block.data()), reinterpret_cast<char*>(dst.data()),
                                        static_cast<int>(block.size()), static_cast<int>(expected));
    if (out) out->assign(dst.begin(), dst.begin() + static_cast<std::ptrdiff_t>(expected));
    return got == static_cast<int>(expected);
}

std::string offset0_message(std::size_t at) { return "LZ4 match offset 0 at input byte " + std::to_string(at); }

// A one-block u8 chunk of `decoded` bytes around an LZ4 block.
std::vector<std::uint8_t> chunk_of_block(const std::vector<std::uint8_t>& block, std::size_t decoded) {
    std::vector<std::uint8_t> c(12 + 4 + block.size());
    test::put_be64(c, 0, decoded);
    test::put_be32(c, 8, static_cast<std::uint32_t>(decoded));
    test::put_be32(c, 12, static_cast<std::uint32_t>(block.size()));
    std::copy(block.begin(), block.end(), c.begin() + 16);
    return c;
}

// The block of `expected` bytes of the shape liblz4 takes its short-sequence path on: 14
// literals and a match of 18 at distance 8, twice, then `last` literals (0 to 4).
std::vector<std::uint8_t> short_path_block(std::size_t last) {
    Lz4BlockWriter w;
    w.sequence(noise_bytes(14, 7), 8, 18);
    w.sequence(noise_bytes(14, 8), 8, 18 - last);
    return w.last(noise_bytes(last, 9));
}

}  // namespace

TEST_CASE("an LZ4 match offset of 0 at the start of a block is refused, naming its input byte", "[lz4]") {
    for (std::size_t literals : {0, 1, 8}) {
        for (std::size_t match : {4, 18, 19, 300}) {
            INFO(literals << " literals, match " << match);
            auto w = block_around(0, literals, 0, match);
            const std::size_t at = w.offset_at();
            const auto block = finish_block(w, 8192);
            CHECK(liblz4_accepts(block, 8192));  // why our own decoder: liblz4 takes it
            CHECK(verdict(block, 8192) == offset0_message(at));
        }
    }
}

TEST_CASE("an LZ4 match offset of 0 in the middle of a block is refused, wherever the decoder is in the block", "[lz4]") {
    // From far from both ends (the decoder's fast path) to the last bytes a match may start at.
    for (std::size_t expected : {8192, 992, 100}) {
        for (std::size_t pos = 48; pos + 12 + 4 + 5 <= expected; pos += pos < 200 || pos + 200 > expected ? 1 : 997) {
            for (std::size_t match : {4, 10, 19}) {
                auto w = block_around(pos, 3, 0, match);
                if (w.decoded() + 5 > expected) continue;
                INFO("block of " << expected << ", offset 0 at output byte " << pos << ", match " << match);
                const std::size_t at = w.offset_at();
                const auto block = finish_block(w, expected);
                REQUIRE(verdict(block, expected) == offset0_message(at));
            }
        }
    }
}

TEST_CASE("an LZ4 match offset of 0 after a long literal run is refused (1,024 literals and more)", "[lz4]") {
    for (std::size_t literals : {1024, 1025, 4000}) {
        auto w = block_around(0, literals, 0, 24);
        const std::size_t at = w.offset_at();
        const auto block = finish_block(w, 8192);
        CHECK(liblz4_accepts(block, 8192));
        CHECK(verdict(block, 8192) == offset0_message(at));
    }
}

TEST_CASE("a chunk whose block has an offset of 0 is refused by decode_chunk and Chunk2Sparse, naming the block", "[lz4]") {
    auto w = block_around(0, 1024, 0, 24);
    const std::size_t at = w.offset_at();
    const auto chunk = chunk_of_block(finish_block(w, 8192), 8192);
    REQUIRE_THROWS_WITH(decode_chunk(chunk, 1), Catch::Contains("block 0 of 1") && Catch::Contains(offset0_message(at)));
    Chunk2Sparse sparse(std::vector<std::uint8_t>(8192, 1), 64, 128, PixelType::u8);
    REQUIRE_THROWS_WITH(sparse(chunk, 0.0), Catch::Contains("block 0 of 1") && Catch::Contains(offset0_message(at)));
}

TEST_CASE("a match ending fewer than 5 bytes before the block's end is refused, also where liblz4 accepts it", "[lz4]") {
    for (std::size_t last = 0; last < 5; ++last) {
        INFO(last << " last literals");
        const auto block = short_path_block(last);
        CHECK(liblz4_accepts(block, 64));
        CHECK(verdict(block, 64) == "LZ4 match at output byte 46 ends " + std::to_string(last) +
                                        " bytes before the end of the 64-byte block (the format wants the last 5 bytes to "
                                        "be literals)");
    }
    // The same rule far from the short path: a long match into the last 4 bytes.
    auto w = block_around(480, 4, 8, 8192 - 480 - 4 - 3);
    const auto block = w.last(noise_bytes(3, 1));
    CHECK_FALSE(liblz4_accepts(block, 8192));
    CHECK_THAT(verdict(block, 8192), Catch::Contains("ends 3 bytes before the end of the 8192-byte block"));
}

TEST_CASE("5 last literals after a match are accepted, as liblz4 decodes them", "[lz4]") {
    const auto block = short_path_block(5);
    std::vector<std::uint8_t> ours, theirs;
    REQUIRE(verdict(block, 64, &ours).empty());
    REQUIRE(liblz4_accepts(block, 64, &theirs));
    CHECK(ours == theirs);
}

TEST_CASE("a match starting fewer than 12 bytes before the block's end is refused, as liblz4 refuses it", "[lz4]") {
    Lz4BlockWriter w;
    w.sequence(noise_bytes(29, 1), 8, 4);  // starts at 29 of 40: 11 bytes before the end
    const auto block = w.last(noise_bytes(7, 2));
    CHECK_FALSE(liblz4_accepts(block, 40));
    CHECK(verdict(block, 40) ==
          "LZ4 match at output byte 29 starts 11 bytes before the end of the 40-byte block (the format wants at least 12)");
    Lz4BlockWriter ok;  // 12 bytes before the end: accepted
    ok.sequence(noise_bytes(28, 1), 8, 7);
    const auto good = ok.last(noise_bytes(5, 2));
    std::vector<std::uint8_t> ours, theirs;
    REQUIRE(verdict(good, 40, &ours).empty());
    REQUIRE(liblz4_accepts(good, 40, &theirs));
    CHECK(ours == theirs);
}

TEST_CASE("a block that ends with a match, without last literals, is refused", "[lz4]") {
    Lz4BlockWriter w;
    w.sequence(noise_bytes(50, 1), 8, 50);
    CHECK_THAT(verdict(w.bytes(), 100), Catch::Contains("ends 0 bytes before the end of the 100-byte block"));
    CHECK_THAT(verdict(w.bytes(), 200), Catch::Contains("LZ4 block decodes to 100 bytes, fewer than the 200 expected"));
    CHECK_FALSE(liblz4_accepts(w.bytes(), 100));
}

TEST_CASE("a block of literals only is accepted at any length, as encoders write short inputs", "[lz4]") {
    for (std::size_t n = 1; n <= 40; ++n) {
        INFO(n << " bytes");
        const auto raw = noise_bytes(n, static_cast<std::uint32_t>(n));
        const auto block = Lz4BlockWriter().last(raw);
        std::vector<std::uint8_t> ours;
        REQUIRE(verdict(block, n, &ours).empty());
        CHECK(ours == raw);
        CHECK(liblz4_accepts(block, n));
    }
    CHECK(verdict({0x00}, 0).empty());  // the format's empty block: one token, nothing else
}

TEST_CASE("every block liblz4's encoders write decodes to the bytes liblz4 decodes", "[lz4]") {
    std::mt19937_64 rng(16);
    for (int trial = 0; trial < 3000; ++trial) {
        const std::size_t n = 1 + rng() % (trial % 4 == 0 ? 9000 : 400);
        std::vector<std::uint8_t> raw(n);
        const unsigned kind = rng() % 4, period = 1 + rng() % 20;
        for (std::size_t i = 0; i < n; ++i) {
            if (kind == 0) raw[i] = static_cast<std::uint8_t>(rng());                          // noise: literals
            else if (kind == 1) raw[i] = rng() % 8 == 0 ? static_cast<std::uint8_t>(rng()) : 0;  // sparse
            else if (kind == 2) raw[i] = static_cast<std::uint8_t>(i % period);               // short periods
            else raw[i] = rng() % 64 == 0 ? static_cast<std::uint8_t>(rng() % 4) : (i ? raw[i - 1] : 0);  // runs
        }
        std::vector<std::uint8_t> block(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n))));
        const int got = trial % 2 ? LZ4_compress_default(reinterpret_cast<const char*>(raw.data()),
                                                         reinterpret_cast<char*>(block.data()), static_cast<int>(n),
                                                         static_cast<int>(block.size()))
                                  : LZ4_compress_HC(reinterpret_cast<const char*>(raw.data()),
                                                    reinterpret_cast<char*>(block.data()), static_cast<int>(n),
                                                    static_cast<int>(block.size()), 1 + trial % 12);
        REQUIRE(got > 0);
        block.resize(static_cast<std::size_t>(got));
        std::vector<std::uint8_t> ours;
        INFO("trial " << trial << ", " << n << " bytes of kind " << kind);
        REQUIRE(verdict(block, n, &ours) == "");
        REQUIRE(ours == raw);
    }
}

TEST_CASE("on corrupted blocks the decoder agrees with liblz4 but for the rules liblz4 lets through, and names every fault",
          "[lz4]") {
    std::mt19937_64 rng(1016);
    std::size_t both_accept = 0, both_refuse = 0, only_liblz4 = 0;
    for (int trial = 0; trial < 40000; ++trial) {
        const std::size_t n = 1 + rng() % (trial % 8 == 0 ? 8192 : 300);
        std::vector<std::uint8_t> raw(n);
        const unsigned period = 1 + rng() % 12;
        for (std::size_t i = 0; i < n; ++i)
            raw[i] = rng() % 6 == 0 ? static_cast<std::uint8_t>(rng()) : static_cast<std::uint8_t>(i % period);
        std::vector<std::uint8_t> block(static_cast<std::size_t>(LZ4_compressBound(static_cast<int>(n))));
        block.resize(static_cast<std::size_t>(LZ4_compress_default(reinterpret_cast<const char*>(raw.data()),
                                                                   reinterpret_cast<char*>(block.data()),
                                                                   static_cast<int>(n), static_cast<int>(block.size()))));
        std::size_t expected = n;
        for (unsigned k = 1 + rng() % 3; k > 0 && !block.empty(); --k) {
            const std::size_t at = rng() % block.size();
            switch (rng() % 8) {
                case 0: block[at] ^= static_cast<std::uint8_t>(1u << (rng() % 8)); break;
                case 1: block[at] = static_cast<std::uint8_t>(rng()); break;
                case 2: if (at + 1 < block.size()) block[at] = block[at + 1] = 0; break;  // an offset of 0, often
                case 3: block.resize(at); break;
                case 4: block.push_back(static_cast<std::uint8_t>(rng())); break;
                case 5: expected = expected + rng() % 9 - 4; break;
                case 6: block[block.size() - 1 - rng() % std::min<std::size_t>(block.size(), 12)] = static_cast<std::uint8_t>(rng()); break;
                default: block.erase(block.begin() + static_cast<std::ptrdiff_t>(at)); break;
            }
        }
        if (expected > n + 4) expected = 0;  // wrapped below 0
        std::vector<std::uint8_t> ours, theirs;
        const std::string why = verdict(block, expected, &ours);
        const bool lib = liblz4_accepts(block, expected, &theirs);
        INFO("trial " << trial << ": " << why);
        if (why.empty()) {
            REQUIRE(lib);
            REQUIRE(ours == theirs);
            ++both_accept;
            continue;
        }
        REQUIRE(why.find("finds no fault") == std::string::npos);
        if (lib) {  // only the rules liblz4 does not keep
            const bool offset0 = why.find("LZ4 match offset 0 at input byte") != std::string::npos;
            const bool last5 = why.find("bytes to be literals") != std::string::npos;
            REQUIRE((offset0 || last5));
            ++only_liblz4;
        } else {
            ++both_refuse;
        }
    }
    CHECK(both_accept > 1000);
    CHECK(both_refuse > 1000);
    CHECK(only_liblz4 > 100);
}

TEST_CASE("an LZ4 failure on a block that starts like a zstd frame says to decode it with the zstd codec", "[lz4]") {
    const auto raw = test::random_pixels<std::uint16_t>(20000, 4);
    const auto chunk = encode_chunk(raw, 2, {Codec::zstd, 8192, 3});
    REQUIRE_THROWS_WITH(decode_chunk(chunk, 2, Codec::lz4), Catch::Contains("(this block starts like a zstd frame: decode it with the zstd codec)"));
    // Not on other LZ4 failures: block 0 starting with a match at offset 0.
    auto lz4 = encode_chunk(raw, 2, {Codec::lz4, 8192, 3});
    lz4[16] = lz4[17] = lz4[18] = 0;
    REQUIRE_THROWS_WITH(decode_chunk(lz4, 2, Codec::lz4), !Catch::Contains("zstd"));
    // The other way round, and a zstd block too small to be the LZ4 block the header implies.
    REQUIRE_THROWS_WITH(decode_chunk(encode_chunk(raw, 2, {Codec::lz4, 8192, 3}), 2, Codec::zstd),
                        Catch::Contains("decode it with the lz4 codec"));
    const std::vector<std::uint8_t> zeros(40000, 0);
    REQUIRE_THROWS_WITH(decode_chunk(encode_chunk(zeros, 2, {Codec::zstd, 8192, 3}), 2, Codec::lz4),
                        Catch::Contains("cannot decode") && Catch::Contains("decode it with the zstd codec"));
}

TEST_CASE("the wrong-codec hint names the other codec only when the block's first bytes point to it", "[lz4]") {
    const std::vector<std::uint8_t> zstd_like = {0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x00}, lz4_like = {0x80, 1, 2, 3, 4, 5, 6, 7, 8};
    CHECK(detail::wrong_codec_hint(Codec::lz4, zstd_like) == " (this block starts like a zstd frame: decode it with the zstd codec)");
    CHECK(detail::wrong_codec_hint(Codec::lz4, lz4_like).empty());
    CHECK(detail::wrong_codec_hint(Codec::zstd, lz4_like) == " (this block does not start like a zstd frame: decode it with the lz4 codec)");
    CHECK(detail::wrong_codec_hint(Codec::zstd, zstd_like).empty());
    CHECK(detail::wrong_codec_hint(Codec::lz4, std::vector<std::uint8_t>{0x28, 0xB5}).empty());  // too short to tell
}
