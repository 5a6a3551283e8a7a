// Every malformed chunk is refused with its own message: never a crash, a short frame or a
// read or write out of bounds (this suite also runs under ASan/UBSan).
#include <lz4.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "bslz4/bslz4.hpp"
#include "error_codes.hpp"
#include "test_support.hpp"
#include "uncoded_throws.hpp"

using namespace bslz4;
using bslz4::test::code_thrown_by;
using bslz4::test::put_be32;
using bslz4::test::put_be64;

// Sanitizers' allocators end the process rather than return null from a failed malloc.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define BSLZ4_TEST_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define BSLZ4_TEST_SANITIZED 1
#endif
#endif
#ifndef BSLZ4_TEST_SANITIZED
#define BSLZ4_TEST_SANITIZED 0
#endif

namespace {

// A hand-made one-block u8 chunk: header (64 bytes, 64-byte blocks) + one block.
std::vector<std::uint8_t> one_block_chunk(const std::vector<std::uint8_t>& block, std::uint64_t decoded = 64) {
    std::vector<std::uint8_t> c(12 + 4 + block.size());
    put_be64(c, 0, decoded);
    put_be32(c, 8, 64);
    put_be32(c, 12, static_cast<std::uint32_t>(block.size()));
    std::copy(block.begin(), block.end(), c.begin() + 16);
    return c;
}

std::vector<std::uint8_t> lz4_of(std::size_t zeros) {
    std::vector<std::uint8_t> src(zeros, 0), dst(LZ4_compressBound(static_cast<int>(zeros)));
    const int n = LZ4_compress_default(reinterpret_cast<const char*>(src.data()), reinterpret_cast<char*>(dst.data()),
                                       static_cast<int>(zeros), static_cast<int>(dst.size()));
    dst.resize(static_cast<std::size_t>(n));
    return dst;
}

std::vector<std::uint8_t> good_chunk(Codec codec = Codec::lz4) {
    const auto raw = bslz4::test::random_pixels<std::uint16_t>(1000, 3);
    return encode_chunk(raw, 2, {codec, 256, 3});
}

// Runs f in a child process allowed only 1 GiB more address space than it starts with (so
// ASan's reserved shadow does not count); returns f's exit code, or 100 + the signal that killed
// it. An allocation sized by a lying header fails there at once instead of taking gigabytes.
template <class F>
int with_1gib_more_address_space(F&& f) {
    const pid_t pid = fork();
    if (pid == 0) {
        std::size_t pages = 0;
        std::ifstream("/proc/self/statm") >> pages;
        const rlim_t limit = pages * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (rlim_t{1} << 30);
        const rlimit r{limit, limit};
        if (setrlimit(RLIMIT_AS, &r) != 0) _exit(99);
        int code = 98;
        try {
            code = f();
        } catch (const std::bad_alloc&) {
            code = 97;
        } catch (const Error& e) {
            code = e.code() == ErrorCode::out_of_memory ? 97 : 96;
        } catch (...) {
            code = 96;
        }
        _exit(code);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

}  // namespace

TEST_CASE("an empty chunk is an error naming the missing header", "[errors]") {
    REQUIRE_THROWS_WITH(decode_chunk(ByteView(), 2), Catch::Contains("empty chunk"));
}

TEST_CASE("a chunk shorter than the 12-byte header is an error", "[errors]") {
    std::vector<std::uint8_t> c(11, 0);
    REQUIRE_THROWS_WITH(decode_chunk(c, 1), Catch::Contains("shorter than the 12-byte bitshuffle header"));
}

TEST_CASE("a decoded size that is not a whole number of elements is an error", "[errors]") {
    auto c = good_chunk();
    put_be64(c, 0, 2001);
    REQUIRE_THROWS_WITH(decode_chunk(c, 2), Catch::Contains("not a multiple of the element size 2"));
}

TEST_CASE("a decoded size other than the frame size is an error, not a short frame", "[errors]") {
    const auto c = good_chunk();
    std::vector<std::uint8_t> mask(30 * 40, 1);
    Chunk2Sparse s(mask, 30, 40, PixelType::u16);
    REQUIRE_THROWS_WITH(s(c, 0), Catch::Contains("frame 0") && Catch::Contains("is not the frame size 2400 bytes"));
}

TEST_CASE("a wrong decoded size names what it fits: the frame's pixels at another pixel size, or other pixels of this one",
          "[errors]") {
    const auto c = good_chunk();  // 2000 bytes of 2-byte pixels
    // as u8 pixels of its 20 x 50 frame: the pixels are 2 bytes (the u16 they are), or there are twice as many
    Chunk2Sparse as_u8(std::vector<std::uint8_t>(1000, 1), 20, 50, PixelType::u8);
    REQUIRE_THROWS_WITH(as_u8(c, 0), Catch::Contains("(it holds the frame's 1000 pixels of 2 bytes (is the pixel type, of 1, "
                                                     "right?), or 2000 pixels of 1 bytes, the frame (its mask) 1000"));
    // as u16 of half the frame: 500 pixels of 4 bytes, or 1000 of 2
    Chunk2Sparse half(std::vector<std::uint8_t>(500, 1), 20, 25, PixelType::u16);
    REQUIRE_THROWS_WITH(half(c, 0), Catch::Contains("the frame's 500 pixels of 4 bytes (is the pixel type, of 2, right?)") &&
                                        Catch::Contains("or 1000 pixels of 2 bytes, the frame (its mask) 500 (is the frame's shape right?)"));
    // 2000 bytes as u32 of 30 x 30: no whole pixels of any size for 900, and 500 of 4 bytes
    Chunk2Sparse odd(std::vector<std::uint8_t>(900, 1), 30, 30, PixelType::u32);
    REQUIRE_THROWS_WITH(odd(c, 0), Catch::Contains("(it holds 500 pixels of 4 bytes, the frame (its mask) 900 (is the frame's shape right?))"));
    std::vector<std::uint8_t> out(1999);
    REQUIRE_THROWS_WITH(decode_chunk_into(c, 2, Codec::lz4, out.data(), out.size()), Catch::Contains("output holds 1999"));
}

TEST_CASE("a block size that is not a multiple of 8 elements is an error", "[errors]") {
    auto c = good_chunk();
    put_be32(c, 8, 100);
    REQUIRE_THROWS_WITH(decode_chunk(c, 2), Catch::Contains("block size 100 bytes is not a multiple of 8 x 2-byte"));
}

TEST_CASE("a block length running past the end of the chunk is an error", "[errors]") {
    auto c = good_chunk();
    put_be32(c, 12, 1u << 30);
    REQUIRE_THROWS_WITH(decode_chunk(c, 2), Catch::Contains("block 0 of") && Catch::Contains("past the end"));
}

TEST_CASE("a truncated chunk is an error, whatever byte it stops at", "[errors]") {
    const auto c = good_chunk();
    for (std::size_t len = 12; len < c.size(); ++len) {
        const ByteView cut(c.data(), len);
        INFO("truncated to " << len << " of " << c.size());
        const ErrorCode code = code_thrown_by([&] { decode_chunk(cut, 2); });
        REQUIRE((code == ErrorCode::truncated_chunk || code == ErrorCode::bad_block_length ||
                 code == ErrorCode::bad_header));
    }
}

TEST_CASE("a header claiming more blocks than the chunk can hold is refused before allocating", "[errors]") {
    auto c = good_chunk();
    put_be64(c, 0, std::uint64_t{1} << 62);
    REQUIRE_THROWS_WITH(decode_chunk(c, 2), Catch::Contains("more than a") && Catch::Contains("chunk can hold"));
}

TEST_CASE("an LZ4 block that decodes to too few bytes is an error", "[errors]") {
    const std::vector<std::uint8_t> block = {0x10, 'a'};  // one literal
    REQUIRE_THROWS_WITH(decode_chunk(one_block_chunk(block), 1),
                        Catch::Contains("block 0 of 1") && Catch::Contains("fewer than the 64 expected"));
}

TEST_CASE("an LZ4 block that decodes to too many bytes is an error", "[errors]") {
    REQUIRE_THROWS_WITH(decode_chunk(one_block_chunk(lz4_of(128)), 1), Catch::Contains("more than the 64 bytes expected"));
}

TEST_CASE("an LZ4 match offset before the start of the block is an error", "[errors]") {
    const std::vector<std::uint8_t> block = {0x10, 'a', 0x05, 0x00, 0x30, 'x', 'y', 'z'};
    REQUIRE_THROWS_WITH(decode_chunk(one_block_chunk(block), 1), Catch::Contains("points before the start of the block"));
}

TEST_CASE("an LZ4 block cut inside a sequence is an error", "[errors]") {
    const std::vector<std::uint8_t> block = {0xF0, 0xFF};  // literal length continues past the end
    REQUIRE_THROWS_WITH(decode_chunk(one_block_chunk(block), 1), Catch::Contains("LZ4 block truncated"));
}

TEST_CASE("bytes left over after the last block are an error", "[errors]") {
    auto c = good_chunk();
    c.push_back(0);
    c.push_back(0);
    REQUIRE_THROWS_WITH(decode_chunk(c, 2), Catch::Contains("2 bytes left over after the last block"));
}

TEST_CASE("a zstd frame that fails to decode is an error", "[errors]") {
    auto c = good_chunk(Codec::zstd);
    c[16 + 5] ^= 0xFF;  // inside the first block's frame header
    c[16 + 6] ^= 0xFF;
    REQUIRE_THROWS_WITH(decode_chunk(c, 2, Codec::zstd), Catch::Contains("block 0") && Catch::Contains("zstd"));
    REQUIRE_THROWS_WITH(decode_chunk(good_chunk(Codec::lz4), 2, Codec::zstd), Catch::Contains("zstd frame fails"));
}

TEST_CASE("an element size outside 1 to 16 bytes is an error", "[errors]") {
    const auto c = good_chunk();
    REQUIRE_THROWS_WITH(decode_chunk(c, 0), Catch::Contains("element size 0"));
    REQUIRE_THROWS_WITH(decode_chunk(c, 17), Catch::Contains("element size 17"));
}

TEST_CASE("random corruption of a chunk gives a frame or an error with a chunk fault's code, never a crash",
          "[errors][fuzz]") {
    std::mt19937 rng(99);
    for (Codec codec : {Codec::lz4, Codec::zstd}) {
        const auto good = good_chunk(codec);
        for (int trial = 0; trial < 3000; ++trial) {
            auto c = good;
            const int flips = 1 + static_cast<int>(rng() % 4);
            for (int f = 0; f < flips; ++f) c[rng() % c.size()] = static_cast<std::uint8_t>(rng());
            try {
                const auto out = decode_chunk(c, 2, codec);
                REQUIRE(out.size() % 2 == 0);
            } catch (const Error& e) {
                INFO(e.what());
                REQUIRE(is_chunk_fault(e.code()));
            }
        }
    }
}

TEST_CASE("a chunk of 0 decoded bytes (12 zero bytes) decodes to an empty frame, copying nothing", "[errors]") {
    const std::vector<std::uint8_t> c(12, 0);
    for (std::size_t es : {1u, 2u, 4u, 8u}) {
        REQUIRE(decode_chunk(c, es).empty());
        REQUIRE(decode_chunk(c, es, Codec::zstd).empty());
        decode_chunk_into(c, es, Codec::lz4, nullptr, 0);
    }
}

TEST_CASE("a valid chunk whose header says 4 GiB blocks decodes within its frame's memory", "[errors][memory]") {
    const std::size_t ni = 64, nj = 48;
    const auto raw = bslz4::test::random_pixels<std::uint16_t>(ni * nj, 11);
    // One block of all 3072 elements, as with any block size past the frame's 6144 bytes.
    auto chunk = encode_chunk(raw, 2, {Codec::lz4, 8192, 3});
    put_be32(chunk, 8, 0xFFFFFFF0u);
    REQUIRE(block_starts(chunk, 2).header.block_elems == 0x7FFFFFF8u);
    // 0: right; 1: wrong; 97: an allocation of gigabytes failed (96: another exception).
    REQUIRE(with_1gib_more_address_space([&] { return decode_chunk(chunk, 2) == raw ? 0 : 1; }) == 0);
    REQUIRE(with_1gib_more_address_space([&] {
                const std::vector<std::uint8_t> mask(ni * nj, 1);
                Chunk2Sparse plain(mask, ni, nj, PixelType::u16, {Codec::lz4, 4});
                const SparseBatch got = plain.multi(std::vector<ByteView>(8, ByteView(chunk)), 0.0);
                const auto* v = reinterpret_cast<const std::uint16_t*>(raw.data());
                std::size_t above = 0;
                for (std::size_t i = 0; i < ni * nj; ++i) above += v[i] > 0;
                return got.npixels[7] == above ? 0 : 1;
            }) == 0);
}

TEST_CASE("encoding with a block size past the frame allocates for the frame, not the block size", "[errors][memory]") {
    const auto raw = bslz4::test::random_pixels<std::uint16_t>(64 * 48, 12);
    // 0: the chunk decodes to the frame; 97: an allocation of gigabytes failed.
    REQUIRE(with_1gib_more_address_space([&] {
                const auto chunk = encode_chunk(raw, 2, {Codec::lz4, 0xFFFFFFF0u, 3});
                return decode_chunk(chunk, 2) == raw && block_starts(chunk, 2).n_blocks() == 1 ? 0 : 1;
            }) == 0);
}

TEST_CASE("a zstd frame whose header records 4 GiB is refused before anything is allocated", "[errors][memory]") {
    // The chunk says 0xFFFFFFF8 bytes in one block; the 12-byte zstd frame records that content
    // size (single segment, 4-byte size) but holds one empty raw block.
    const std::vector<std::uint8_t> frame = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0xF8, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00};
    std::vector<std::uint8_t> c(16 + frame.size());
    put_be64(c, 0, 0xFFFFFFF8u);
    put_be32(c, 8, 0xFFFFFFF8u);
    put_be32(c, 12, static_cast<std::uint32_t>(frame.size()));
    std::copy(frame.begin(), frame.end(), c.begin() + 16);
    const int code = with_1gib_more_address_space([&] {
        try {
            decode_chunk(c, 1, Codec::zstd);
        } catch (const Error& e) {
            return std::strstr(e.what(), "a zstd block of 12 bytes cannot decode to the 4294967288 bytes") ? 0 : 2;
        }
        return 1;
    });
    REQUIRE(code == 0);
}

TEST_CASE("a zstd frame recording more bytes than its block holds is named as such", "[errors]") {
    auto c = encode_chunk(std::vector<std::uint8_t>(4096, 7), 1, {Codec::zstd, 4096, 3});
    put_be64(c, 0, 2048);  // one block of 2048 bytes; its frame records 4096
    put_be32(c, 8, 2048);
    REQUIRE_THROWS_WITH(decode_chunk(c, 1, Codec::zstd),
                        Catch::Contains("block 0 of 1") && Catch::Contains("zstd frame records 4096 bytes of content, not the block's 2048"));
}

// Error codes: each family of refusal gives its own code, whichever call meets it.

TEST_CASE("a chunk that ends before its header, a block's length or its raw tail is ErrorCode::truncated_chunk",
          "[errors][codes]") {
    REQUIRE(code_thrown_by([] { decode_chunk(ByteView(), 2); }) == ErrorCode::truncated_chunk);
    REQUIRE(code_thrown_by([] { decode_chunk(std::vector<std::uint8_t>(11, 0), 1); }) == ErrorCode::truncated_chunk);
    const auto c = good_chunk();
    const BlockLayout layout = block_starts(c, 2);
    REQUIRE(layout.n_blocks() > 2);
    const ByteView before_length(c.data(), static_cast<std::size_t>(layout.starts[2]));
    REQUIRE_THROWS_WITH(decode_chunk(before_length, 2), Catch::Contains("needs its 4-byte length"));
    REQUIRE(code_thrown_by([&] { decode_chunk(before_length, 2); }) == ErrorCode::truncated_chunk);
    auto with_tail = encode_chunk(test::random_pixels<std::uint16_t>(1003, 4), 2, {Codec::lz4, 256, 3});
    with_tail.pop_back();
    REQUIRE_THROWS_WITH(decode_chunk(with_tail, 2), Catch::Contains("the last 3 raw elements need"));
    REQUIRE(code_thrown_by([&] { decode_chunk(with_tail, 2); }) == ErrorCode::truncated_chunk);
}

TEST_CASE("a header whose sizes cannot be right is ErrorCode::bad_header", "[errors][codes]") {
    auto c = good_chunk();
    put_be64(c, 0, 2001);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2); }) == ErrorCode::bad_header);
    c = good_chunk();
    put_be32(c, 8, 100);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2); }) == ErrorCode::bad_header);
    c = good_chunk();
    put_be64(c, 0, std::uint64_t{1} << 62);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2); }) == ErrorCode::bad_header);
}

TEST_CASE("a block length past the chunk's end, or bytes after the last block, is ErrorCode::bad_block_length",
          "[errors][codes]") {
    auto c = good_chunk();
    put_be32(c, 12, 1u << 30);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2); }) == ErrorCode::bad_block_length);
    c = good_chunk();
    c.push_back(0);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2); }) == ErrorCode::bad_block_length);
}

TEST_CASE("an LZ4 block breaking the format is ErrorCode::bad_lz4_sequence, through every call", "[errors][codes]") {
    const std::vector<std::vector<std::uint8_t>> blocks = {
        {0x10, 'a'},                                   // too few bytes
        lz4_of(128),                                   // too many
        {0x10, 'a', 0x05, 0x00, 0x30, 'x', 'y', 'z'},  // offset before the block
        {0x10, 'a', 0x00, 0x00, 0x30, 'x', 'y', 'z'},  // offset 0
        {0xF0, 0xFF},                                  // cut inside a length
    };
    for (const auto& block : blocks) {
        const auto c = one_block_chunk(block);
        REQUIRE(code_thrown_by([&] { decode_chunk(c, 1); }) == ErrorCode::bad_lz4_sequence);
        Chunk2Sparse sparse(std::vector<std::uint8_t>(64, 1), 8, 8, PixelType::u8);
        REQUIRE(code_thrown_by([&] { sparse(c, 0); }) == ErrorCode::bad_lz4_sequence);
        REQUIRE(code_thrown_by([&] { sparse.multi({c, c}, 0); }) == ErrorCode::bad_lz4_sequence);
    }
    // Refused by the header check, before decoding: 2 bytes cannot make 4096.
    std::vector<std::uint8_t> c(12 + 4 + 2);
    put_be64(c, 0, 4096);
    put_be32(c, 8, 4096);
    put_be32(c, 12, 2);
    c[16] = 0x10;
    c[17] = 'a';
    REQUIRE_THROWS_WITH(decode_chunk(c, 1), Catch::Contains("cannot decode to the 4096 bytes"));
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 1); }) == ErrorCode::bad_lz4_sequence);
}

TEST_CASE("a zstd frame that does not decode to its block is ErrorCode::bad_zstd_frame", "[errors][codes]") {
    auto c = good_chunk(Codec::zstd);
    c[16 + 5] ^= 0xFF;
    c[16 + 6] ^= 0xFF;
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 2, Codec::zstd); }) == ErrorCode::bad_zstd_frame);
    REQUIRE(code_thrown_by([&] { decode_chunk(good_chunk(Codec::lz4), 2, Codec::zstd); }) == ErrorCode::bad_zstd_frame);
    c = encode_chunk(std::vector<std::uint8_t>(4096, 7), 1, {Codec::zstd, 4096, 3});
    put_be64(c, 0, 2048);
    put_be32(c, 8, 2048);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 1, Codec::zstd); }) == ErrorCode::bad_zstd_frame);
    // The header check's refusal (a frame recording 4 GiB in 12 bytes), in a child process.
    const std::vector<std::uint8_t> frame = {0x28, 0xB5, 0x2F, 0xFD, 0xA0, 0xF8, 0xFF, 0xFF, 0xFF, 0x01, 0x00, 0x00};
    std::vector<std::uint8_t> big(16 + frame.size());
    put_be64(big, 0, 0xFFFFFFF8u);
    put_be32(big, 8, 0xFFFFFFF8u);
    put_be32(big, 12, static_cast<std::uint32_t>(frame.size()));
    std::copy(frame.begin(), frame.end(), big.begin() + 16);
    REQUIRE(with_1gib_more_address_space([&] {
                return code_thrown_by([&] { decode_chunk(big, 1, Codec::zstd); }) == ErrorCode::bad_zstd_frame ? 0 : 1;
            }) == 0);
}

TEST_CASE("a chunk of another size than its frame or its output is ErrorCode::wrong_decoded_size", "[errors][codes]") {
    const auto c = good_chunk();
    Chunk2Sparse sparse(std::vector<std::uint8_t>(30 * 40, 1), 30, 40, PixelType::u16);
    REQUIRE(code_thrown_by([&] { sparse(c, 0); }) == ErrorCode::wrong_decoded_size);
    std::vector<std::uint8_t> out(1999);
    REQUIRE(code_thrown_by([&] { decode_chunk_into(c, 2, Codec::lz4, out.data(), out.size()); }) ==
            ErrorCode::wrong_decoded_size);
}

TEST_CASE("a wrong argument is ErrorCode::bad_argument", "[errors][codes]") {
    const auto c = good_chunk();
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 0); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { decode_chunk(c, 17); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { encode_chunk(std::vector<std::uint8_t>(10), 4); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] {
                encode_chunk(std::vector<std::uint8_t>(16), 2, {Codec::lz4, 100});
            }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { parse_pixel_type("u12"); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { parse_codec("lz5"); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { parse_accumulator("f16"); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { Chunk2Sparse(std::vector<std::uint8_t>(10, 1), 3, 4, PixelType::u16); }) ==
            ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([] { Chunk2Sparse(ByteView(), 0, 4, PixelType::u16); }) == ErrorCode::bad_argument);
    const std::size_t ni = 25, nj = 40;  // the 1000 pixels of good_chunk
    Chunk2Sparse sparse(std::vector<std::uint8_t>(ni * nj, 1), ni, nj, PixelType::u16,
                        {Codec::lz4, 2, OnError::report});
    REQUIRE(code_thrown_by([&] { sparse.from_buffer(c, {0, 0}, {c.size()}, 0); }) == ErrorCode::bad_argument);
    REQUIRE(sparse.from_frames({std::vector<std::uint8_t>(7)}, 0).code(0) == ErrorCode::bad_argument);
    REQUIRE(sparse.from_buffer(c, {1}, {c.size()}, 0).code(0) == ErrorCode::bad_argument);
    const SparseBatch b = sparse.multi({c}, 0);
    REQUIRE(code_thrown_by([&] { b.frame(1); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { b.code(1); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { b.frame(0).values_as<float>(); }) == ErrorCode::bad_argument);
    const Powder p{1, 1, Accumulator::f64, nullptr, 1};
    REQUIRE(code_thrown_by([&] { p.as<float>(); }) == ErrorCode::bad_argument);
    REQUIRE(code_thrown_by([&] { p.value(1, 0); }) == ErrorCode::bad_argument);
}

TEST_CASE("running out of host memory for a batch's lists is ErrorCode::out_of_memory, even with OnError::report",
          "[errors][codes][memory]") {
#if BSLZ4_TEST_SANITIZED
    WARN("not run under a sanitizer: its allocator ends the process where malloc would return null");
    return;
#endif
    // 64 frames of 4096 x 4096 u16 pixels need 6 GiB of lists: more than the child may take.
    // 0: out_of_memory; 1: another code; 2: no error.
    const int code = with_1gib_more_address_space([] {
        const std::size_t n = 4096;
        Chunk2Sparse sparse(std::vector<std::uint8_t>(n * n, 1), n, n, PixelType::u16,
                            {Codec::lz4, 1, OnError::report});
        const ErrorCode got = code_thrown_by([&] { sparse.multi(std::vector<ByteView>(64), 0); });
        return got == ErrorCode::out_of_memory ? 0 : got == ErrorCode::ok ? 2 : 1;
    });
    REQUIRE(code == 0);
}

TEST_CASE("every Error the library makes, CPU and GPU, names its code: none from a message alone, no std exceptions",
          "[errors][codes]") {
    namespace fs = std::filesystem;
    const fs::path root = test::source_copy();
    std::vector<std::string> found;
    std::size_t files = 0;
    for (const fs::path& dir : {root / "runtime" / "cpu", root / "runtime" / "cuda", root / "runtime" / "include" / "bslz4",
                                root / "runtime" / "include" / "bslz4" / "cuda"})
        for (const auto& entry : fs::directory_iterator(dir)) {
            const fs::path& p = entry.path();
            if (p.filename() == "error.hpp" || (p.extension() != ".cpp" && p.extension() != ".hpp")) continue;
            ++files;
            for (const std::string& f : test::errors_from_a_message_alone(p.string())) found.push_back(f);
            for (const std::string& f : test::std_throws(p.string())) found.push_back(f);
        }
    REQUIRE(files > 70);
    INFO(Catch::Detail::stringify(found));
    REQUIRE(found.empty());
}

TEST_CASE("each code has its own name, and an Error made from a message alone says unspecified", "[errors][codes]") {
    std::vector<std::string> names;
    for (int c = static_cast<int>(ErrorCode::ok); c <= static_cast<int>(ErrorCode::unspecified); ++c)
        names.push_back(error_code_name(static_cast<ErrorCode>(c)));
    REQUIRE(names == std::vector<std::string>{"ok", "truncated_chunk", "bad_header", "bad_block_length",
                                              "bad_lz4_sequence", "bad_zstd_frame", "wrong_decoded_size", "bad_matrix",
                                              "bad_argument", "out_of_memory", "gpu_fault", "io", "unspecified"});
    REQUIRE(Error("what").code() == ErrorCode::unspecified);
    REQUIRE(Error(ErrorCode::io, "what").code() == ErrorCode::io);
}
