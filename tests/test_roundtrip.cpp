#include <catch2/catch.hpp>

#include "bslz4/bslz4.hpp"
#include "test_support.hpp"

using namespace bslz4;

namespace {
using test::kAllTypes;
}

TEST_CASE("encode then decode gives back every type, odd size and block size, with both codecs", "[roundtrip]") {
    for (Codec codec : {Codec::lz4, Codec::zstd})
        for (PixelType t : kAllTypes) {
            const std::size_t es = pixel_size(t);
            for (std::size_t n : {1u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 64u, 65u, 1000u, 4097u, 20001u})
                for (std::size_t block : {std::size_t{0}, 8 * es, 64 * es, 8192 / es * es, std::size_t{32768}}) {
                    const auto raw = visit_pixel_type(t, [&](auto z) {
                        return test::random_pixels<decltype(z)>(n, static_cast<std::uint32_t>(n * 31 + es));
                    });
                    const auto chunk = encode_chunk(raw, es, {codec, block, 3});
                    INFO(pixel_type_name(t) << " n " << n << " block " << block << " " << codec_name(codec));
                    REQUIRE(decode_chunk(chunk, es, codec) == raw);
                }
        }
}

TEST_CASE("element sizes without a pixel type (3, 5, 12, 16 bytes) round trip", "[roundtrip]") {
    for (std::size_t es : {3u, 5u, 6u, 12u, 16u})
        for (std::size_t n : {1u, 8u, 13u, 3000u}) {
            const auto raw = test::random_pixels<std::uint8_t>(n * es, static_cast<std::uint32_t>(es));
            const auto chunk = encode_chunk(raw, es);
            REQUIRE(decode_chunk(chunk, es) == raw);
        }
}

TEST_CASE("the encoder writes the header the format defines", "[roundtrip]") {
    const std::vector<std::uint8_t> raw(4 * 2049, 1);
    const auto chunk = encode_chunk(raw, 4);
    const BlockLayout layout = block_starts(chunk, 4);
    CHECK(layout.header.decoded_bytes == raw.size());
    CHECK(layout.header.block_bytes_field == 8192);  // bitshuffle's default, written explicitly
    CHECK(layout.n_blocks() == 1);  // 2048 shuffled elements in one block, then 1 raw element
    CHECK(layout.tail_elems == 1);
    CHECK(default_block_elems(1) == 8192);
    CHECK(default_block_elems(3) == 2728);
    CHECK(default_block_elems(16) == 512);
}

TEST_CASE("a block size the encoder cannot use is refused", "[roundtrip]") {
    const std::vector<std::uint8_t> raw(64, 0);
    REQUIRE_THROWS_WITH(encode_chunk(raw, 2, {Codec::lz4, 24, 3}), Catch::Contains("not a multiple of 8 x 2"));
    REQUIRE_THROWS_WITH(encode_chunk(ByteView(raw.data(), 63), 2), Catch::Contains("not a whole number"));
}

TEST_CASE("a chunk that codes a large frame small keeps no room of the frame's size", "[roundtrip]") {
    // A detector frame of zeros (8.9 MB of u16) codes to a few kB; a stack of such chunks held
    // room of the frame's size each, as the encoder reserves for the worst case.
    const std::vector<std::uint16_t> zeros(2162 * 2068, 0);
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        const auto chunk = encode_chunk(ByteView{reinterpret_cast<const std::uint8_t*>(zeros.data()), zeros.size() * 2}, 2, {codec, 0, 3});
        INFO(codec_name(codec) << ": " << chunk.size() << " bytes in " << chunk.capacity());
        REQUIRE(chunk.size() < 100000);
        REQUIRE(chunk.capacity() - chunk.size() <= (std::size_t{1} << 20));
    }
}
