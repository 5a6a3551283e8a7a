// A second decoder of bitshuffle chunks for the fuzz targets to hold the library against:
// written from the formats' descriptions (the bitshuffle chunk layout, the LZ4 block format),
// byte by byte and with every bound checked, slow and plain. It never shares code with the
// library's decoder; the bit transpose is the test suite's own bit-by-bit one.
//
// LZ4 rules applied (the block format's; liblz4 1.9.4's LZ4_decompress_safe enforces the same
// except where noted):
//   - a sequence is a token, literals (length 15 continued by bytes while they are 255), then,
//     unless the literals end the input, a 2-byte little-endian offset and a match of
//     4 + (token & 15) bytes (15 continued likewise);
//   - the last sequence is literals only and ends exactly at the end of the input;
//   - the offset is 1 .. (bytes decoded so far); 0 is refused (the format forbids it; liblz4
//     lets it through);
//   - a match starts at least 12 bytes before the end of the block (MFLIMIT) and ends at
//     least 5 bytes before it (LASTLITERALS: the last 5 bytes are literals; liblz4 lets a match
//     end closer when it takes its short-sequence path, see
//     seeds/decode_chunk/lz4_match_ends_in_last_5_bytes);
//   - the block decodes to exactly its size, no more, no less.
// liblz4's other limits (on where length bytes may end, on reading near the input's end)
// refuse nothing these rules accept: any block valid here is followed, after each length,
// by at least a token and 5 literals.
#pragma once
#include <zstd.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../bit_reference.hpp"

namespace bslz4::fuzz {

// Why the reference refused a chunk (none: decoded), for the failure messages.
enum class Refusal { none, layout, lz4_bounds, lz4_offset_zero, lz4_end_rules, lz4_size, zstd };

inline const char* refusal_name(Refusal r) {
    switch (r) {
        case Refusal::none: return "none";
        case Refusal::layout: return "layout";
        case Refusal::lz4_bounds: return "lz4 bounds";
        case Refusal::lz4_offset_zero: return "lz4 offset 0";
        case Refusal::lz4_end_rules: return "lz4 end-of-block rules";
        case Refusal::lz4_size: return "lz4 size";
        case Refusal::zstd: return "zstd";
    }
    return "?";
}

inline std::uint64_t read_be(const std::uint8_t* p, int bytes) {
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
    return v;
}

// Reads an LZ4 length continued by bytes while they are 255; false when the input ends first.
inline bool lz4_length(const std::uint8_t* src, std::size_t n, std::size_t& ip, std::size_t& len) {
    if (len != 15) return true;
    for (;;) {
        if (ip >= n) return false;
        const std::uint8_t b = src[ip++];
        len += b;
        if (b != 255) return true;
    }
}

// One LZ4 block into exactly cap bytes (out grows only with what is decoded, so a lying cap
// allocates nothing).
inline Refusal lz4_block(const std::uint8_t* src, std::size_t n, std::size_t cap, std::vector<std::uint8_t>& out) {
    constexpr std::size_t kMinMatch = 4, kMatchStartLimit = 12, kLastLiterals = 5;
    out.clear();
    if (n == 0) return Refusal::lz4_bounds;
    std::size_t ip = 0;
    for (;;) {
        if (ip == n) return Refusal::lz4_bounds;  // the input ended after a match
        const unsigned token = src[ip++];
        std::size_t lit = token >> 4;
        if (!lz4_length(src, n, ip, lit)) return Refusal::lz4_bounds;
        if (lit > n - ip) return Refusal::lz4_bounds;
        if (lit > cap - out.size()) return Refusal::lz4_size;
        out.insert(out.end(), src + ip, src + ip + lit);
        ip += lit;
        if (ip == n) break;
        if (out.size() + kMatchStartLimit > cap) return Refusal::lz4_end_rules;
        if (n - ip < 2) return Refusal::lz4_bounds;
        const std::size_t offset = src[ip] | (std::size_t{src[ip + 1]} << 8);
        ip += 2;
        if (offset == 0) return Refusal::lz4_offset_zero;
        if (offset > out.size()) return Refusal::lz4_bounds;
        std::size_t match = token & 15u;
        if (!lz4_length(src, n, ip, match)) return Refusal::lz4_bounds;
        match += kMinMatch;
        if (match > cap - out.size()) return Refusal::lz4_size;
        if (out.size() + match + kLastLiterals > cap) return Refusal::lz4_end_rules;
        const std::size_t from = out.size() - offset;
        for (std::size_t k = 0; k < match; ++k) out.push_back(out[from + k]);
    }
    return out.size() == cap ? Refusal::none : Refusal::lz4_size;
}

// One zstd block: what ZSTD_decompress makes of it, which must be exactly cap bytes. A block
// asking for more than 32768 bytes per input byte cannot be valid (a zstd block of at most
// 128 KiB takes at least 4 bytes), so it is refused before anything is allocated.
inline Refusal zstd_block(const std::uint8_t* src, std::size_t n, std::size_t cap, std::vector<std::uint8_t>& out) {
    constexpr std::uint64_t kMaxRatio = 32768;
    out.clear();
    if (cap > std::uint64_t{n} * kMaxRatio) return Refusal::zstd;
    out.resize(cap);
    const std::size_t got = ZSTD_decompress(out.data(), cap, src, n);
    if (ZSTD_isError(got) || got != cap) return Refusal::zstd;
    return Refusal::none;
}

struct RefChunk {
    Refusal refusal = Refusal::none;
    std::string why;
    std::vector<std::uint8_t> pixels;
};

struct RefLayout {
    std::uint64_t decoded_bytes = 0;
    std::size_t block_elems = 0;
    std::vector<std::size_t> block_at;     // each block's length field
    std::vector<std::size_t> block_elems_of;
    std::size_t tail_at = 0, tail_bytes = 0;
};

// The chunk's header (bitshuffle filter 32008): u64 BE decoded bytes, whole elements, and u32
// BE block bytes, a multiple of 8 elements (0: 8192 / elem_size rounded down to a multiple of
// 8, at least 128).
inline bool ref_header(const std::uint8_t* c, std::size_t size, std::size_t es, RefLayout& l, std::string& why) {
    if (size < 12) return why = "shorter than the header", false;
    l.decoded_bytes = read_be(c, 8);
    const std::uint64_t block_field = read_be(c + 8, 4);
    if (l.decoded_bytes % es) return why = "decoded size not whole elements", false;
    if (block_field == 0) {
        std::size_t b = 8192 / es;
        b -= b % 8;
        l.block_elems = b < 128 ? 128 : b;
    } else {
        if (block_field % (8 * es)) return why = "block size not a multiple of 8 elements", false;
        l.block_elems = static_cast<std::size_t>(block_field / es);
    }
    return true;
}

// The blocks after the header: per block of shuffled elements a u32 BE length and that many
// bytes, then the last n mod 8 elements raw. Every block takes its length field and at least
// one byte, so a header asking for more blocks than fit is refused before walking.
inline bool ref_layout(const std::uint8_t* c, std::size_t size, std::size_t es, RefLayout& l, std::string& why) {
    if (!ref_header(c, size, es, l, why)) return false;
    const std::uint64_t n = l.decoded_bytes / es;
    const std::uint64_t shuffled = n - n % 8;
    const std::uint64_t nblocks = shuffled / l.block_elems + (shuffled % l.block_elems != 0);
    if (nblocks > (size - 12) / 5) return why = "more blocks than the chunk holds", false;
    std::size_t pos = 12;
    for (std::uint64_t b = 0; b < nblocks; ++b) {
        if (size - pos < 4) return why = "block length past the end", false;
        const std::size_t len = static_cast<std::size_t>(read_be(c + pos, 4));
        if (len > size - pos - 4) return why = "block data past the end", false;
        l.block_at.push_back(pos);
        const std::uint64_t left = shuffled - b * l.block_elems;
        l.block_elems_of.push_back(static_cast<std::size_t>(left < l.block_elems ? left : l.block_elems));
        pos += 4 + len;
    }
    l.tail_at = pos;
    l.tail_bytes = static_cast<std::size_t>(n % 8) * es;
    if (size - pos != l.tail_bytes) return why = "raw tail is not the last n mod 8 elements", false;
    return true;
}

// Decodes the whole chunk; zstd selects the codec of every block.
inline RefChunk ref_decode_chunk(const std::uint8_t* c, std::size_t size, std::size_t es, bool zstd) {
    RefChunk r;
    RefLayout l;
    if (!ref_layout(c, size, es, l, r.why)) {
        r.refusal = Refusal::layout;
        return r;
    }
    std::vector<std::vector<std::uint8_t>> blocks(l.block_at.size());
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const std::size_t at = l.block_at[b];
        const std::size_t len = static_cast<std::size_t>(read_be(c + at, 4));
        const std::size_t bytes = l.block_elems_of[b] * es;
        r.refusal = zstd ? zstd_block(c + at + 4, len, bytes, blocks[b]) : lz4_block(c + at + 4, len, bytes, blocks[b]);
        if (r.refusal != Refusal::none) {
            r.why = "block " + std::to_string(b) + ": " + refusal_name(r.refusal);
            return r;
        }
    }
    for (std::size_t b = 0; b < blocks.size(); ++b) {
        const auto px = bslz4::test::reference_unshuffle(blocks[b], l.block_elems_of[b], es);
        r.pixels.insert(r.pixels.end(), px.begin(), px.end());
    }
    r.pixels.insert(r.pixels.end(), c + l.tail_at, c + l.tail_at + l.tail_bytes);
    return r;
}

}  // namespace bslz4::fuzz
