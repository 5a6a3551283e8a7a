// LZ4 blocks: our own decoder, the walk that names why a block was refused, and the encoder
// (liblz4's).
//
// The rules a block must keep, decided the same way here and on the GPU (lz4_parse_block in
// kernels/lz4_sequences.cuh):
//  1. Every sequence lies inside the block, and the block ends right after the literals of its
//     last sequence, which has no match.
//  2. A match offset is at least 1 (the format: an offset of 0 is a corrupted block) and at most
//     the bytes decoded so far in the block.
//  3. A match starts at least 12 bytes before the end of the block's decoded bytes (the format's
//     last-match rule).
//  4. A match ends at least 5 bytes before that end: the last 5 bytes are literals.
//  5. The block decodes to exactly the bytes expected.
// A block of literals only may have any length, as the format allows (encoders write one for any
// input under 13 bytes); the last token's match half is not looked at (liblz4 ignores it too, but
// in a block of 0 bytes, which no chunk has). Every encoder we know of keeps all five rules:
// liblz4's LZ4_compress_*, which bitshuffle and hdf5plugin call, never starts a match in the last
// 12 bytes nor ends one in the last 5.
//
// Why not liblz4's LZ4_decompress_safe: (1.9.4) it accepts an offset of 0, copying whatever the
// output buffer held there, and a last match ending 0 to 4 bytes before the end when that
// sequence takes its short-sequence path (it refuses the same block on its other paths). A second
// walk of every sequence after it, to refuse those, cost a third of its time on Eiger frames;
// checks in a decoder's own loop cost next to nothing. The blocks of 4 synthetic Eiger 4M u16
// frames, best of 75 runs: on an AMD EPYC core, liblz4 3.42 ms, liblz4 + a second walk 4.62 ms,
// this decoder 3.52 ms (the reference chunks: 0.88 and 0.84 ms); on the H200 host's CPU, 5.49,
// 7.10 and 4.73 ms.
#include <lz4.h>

#include <cstring>

#include "block_codec.hpp"
#include "bslz4/error.hpp"

namespace bslz4::detail {

namespace {
// LZ4 block format: a token's high nibble is the literal count, low nibble the match length
// minus kMinMatch; 15 in either means more length bytes follow (255 = keep reading).
constexpr unsigned kRunMask = 15;
constexpr std::uint64_t kMinMatch = 4;
constexpr std::uint64_t kMatchStartLimit = 12;  // rule 3
constexpr std::uint64_t kLastLiterals = 5;      // rule 4

std::string str(std::uint64_t v) { return std::to_string(v); }

// The decoder's copies run up to this many bytes past the bytes they must write, where the
// output has room for it: whole 8- and 16-byte moves instead of a byte loop.
constexpr std::size_t kCopySlack = 32;

void copy8(std::uint8_t* d, const std::uint8_t* s) { std::memcpy(d, s, 8); }
void copy16(std::uint8_t* d, const std::uint8_t* s) { std::memcpy(d, s, 16); }

// Adds LZ4's length-extension bytes at ip to len; false if the input ends first.
bool extend_length(const std::uint8_t*& ip, const std::uint8_t* iend, std::size_t& len) {
    // Eight bytes at a time while they are all 255 (a zero run of a bit plane is thousands of
    // bytes: a 7.5 kB run is 30 of them), with room for the word and the byte after it.
    while (iend - ip > 8) {
        std::uint64_t w;
        std::memcpy(&w, ip, 8);
        if (w != ~std::uint64_t{0}) break;
        len += 8 * 255;
        ip += 8;
    }
    for (;;) {
        if (ip == iend) return false;
        const unsigned s = *ip++;
        len += s;
        if (s != 255) return true;
    }
}

// op[0, n) = the match at distance offset (1 <= offset <= bytes written before op), with at
// least n + kCopySlack - 1 bytes of room at op: writes up to 31 bytes past n.
[[gnu::always_inline]] inline void copy_match(std::uint8_t* op, std::size_t offset, std::size_t n) {
    const std::uint8_t* m = op - offset;
    std::uint8_t* const end = op + n;
    if (offset >= 16) {  // each 16-byte read lies in bytes already written
        copy16(op, m);
        if (n <= 16) return;
        for (op += 16, m += 16; op < end; op += 32, m += 32) {
            copy16(op, m);
            copy16(op + 16, m + 16);
        }
        return;
    }
    if (offset >= 8) {
        copy8(op, m);
        copy8(op + 8, m + 8);
        for (op += 16, m += 16; op < end; op += 16, m += 16) {
            copy8(op, m);
            copy8(op + 8, m + 8);
        }
        return;
    }
    // A period under 8: one 8-byte word of it, read as narrowly as the period allows (a wide read
    // of bytes that several recent stores wrote waits for them to reach the cache).
    std::uint64_t v;
    if (offset == 1) {
        v = 0x0101010101010101ull * m[0];
    } else if (offset == 2) {
        std::uint16_t h;
        std::memcpy(&h, m, 2);
        v = 0x0001000100010001ull * h;
    } else if (offset == 4) {
        std::uint32_t w;
        std::memcpy(&w, m, 4);
        v = 0x0000000100000001ull * w;
    } else {
        v = 0;
        for (std::size_t i = 0; i < offset; ++i) v |= std::uint64_t{m[i]} << (8 * i);
        for (std::size_t s = offset; s < 8; s *= 2) v |= v << (8 * s);
    }
    if ((offset & (offset - 1)) == 0) {  // 1, 2, 4: the word repeats itself, 32 bytes a store
        std::uint8_t w[32];
        for (unsigned i = 0; i < 32; i += 8) std::memcpy(w + i, &v, 8);
        for (; op < end; op += 32) std::memcpy(op, w, 32);
        return;
    }
    // 3, 5, 6, 7: after the first word, copy from a whole number of periods back, 8 or more.
    std::memcpy(op, &v, 8);
    const std::size_t back = offset == 3 ? 9 : 2 * offset;
    for (op += 8; op < end; op += 8) copy8(op, op - back);
}

// op[0, n) = the match at distance offset, for a match that ends fewer than kCopySlack bytes
// before oend: whole words up to kCopySlack before oend, then byte by byte.
[[gnu::noinline]] void copy_match_near_end(std::uint8_t* op, std::size_t offset, std::size_t n, const std::uint8_t* oend) {
    const std::size_t room = static_cast<std::size_t>(oend - op);
    std::size_t k = room > kCopySlack ? room - kCopySlack : 0;
    if (k) copy_match(op, offset, k);
    for (const std::uint8_t* m = op - offset; k < n; ++k) op[k] = m[k];
}

// Decodes the block [ip, ip + n) into exactly `expected` bytes at dst, keeping rules 1-5; false
// at the first fault (explain_lz4_failure names it). No read or write leaves the two ranges.
bool decode_lz4_block(const std::uint8_t* ip, std::size_t n, std::uint8_t* const dst, std::size_t expected) {
    const std::uint8_t* const iend = ip + n;
    std::uint8_t* op = dst;
    std::uint8_t* const oend = dst + expected;
    for (;;) {
        std::size_t offset, match;
        if (iend - ip >= 32 && oend - op >= 64 && *ip < 0xF0) {
            // Far from both ends (most sequences): the literals (at most 14) are one 16-byte
            // move, and a match starts at least 50 bytes before the end, so only the offset
            // and an extended match length need a check; a match of at most 18 bytes ends 32
            // bytes before the end and is a few word moves (16 + 2 bytes rather than 16 + 16:
            // a read of bytes the first store has just written would wait for it).
            const unsigned token = *ip;
            const std::size_t lit = token >> 4;
            copy16(op, ip + 1);
            ip += 1 + lit;
            op += lit;
            offset = ip[0] | (std::size_t{ip[1]} << 8);
            ip += 2;
            if (offset - 1 >= static_cast<std::size_t>(op - dst)) return false;  // 0 wraps around
            match = token & kRunMask;
            if (match != kRunMask) {
                match += kMinMatch;
                const std::uint8_t* m = op - offset;
                if (offset >= 16) {
                    copy16(op, m);
                    std::memcpy(op + 16, m + 16, 2);
                    op += match;
                    continue;
                }
                if (offset >= 8) {
                    copy8(op, m);
                    copy8(op + 8, m + 8);
                    copy8(op + 16, m + 16);
                    op += match;
                    continue;
                }
            } else {
                if (!extend_length(ip, iend, match)) return false;
                match += kMinMatch;
                if (match > static_cast<std::size_t>(oend - op) - kLastLiterals) return false;
            }
        } else {
            // Anywhere: every length checked against both ends.
            if (ip == iend) return false;
            const unsigned token = *ip++;
            std::size_t lit = token >> 4;
            if (lit == kRunMask && !extend_length(ip, iend, lit)) return false;
            if (lit + 16 <= static_cast<std::size_t>(iend - ip) && lit + 16 <= static_cast<std::size_t>(oend - op)) {
                for (std::size_t k = 0; k < lit; k += 16) copy16(op + k, ip + k);  // up to 15 bytes past lit
            } else {
                if (lit > static_cast<std::size_t>(iend - ip) || lit > static_cast<std::size_t>(oend - op)) return false;
                if (lit) std::memcpy(op, ip, lit);
            }
            ip += lit;
            op += lit;
            if (ip == iend) break;  // the last sequence: literals only
            if (iend - ip < 2) return false;
            offset = ip[0] | (std::size_t{ip[1]} << 8);
            ip += 2;
            if (offset - 1 >= static_cast<std::size_t>(op - dst)) return false;
            if (static_cast<std::size_t>(oend - op) < kMatchStartLimit) return false;
            match = token & kRunMask;
            if (match == kRunMask && !extend_length(ip, iend, match)) return false;
            match += kMinMatch;
            if (match > static_cast<std::size_t>(oend - op) - kLastLiterals) return false;
        }
        // Long matches go to the C library, whose copies use the widest stores the CPU has: a
        // run of one byte (offset 1 or 2 repeating one byte: the zero runs of bit planes) as a
        // memset, a match that does not overlap itself (in bit planes mostly a plane repeating
        // the one before, as detector gaps make the high planes) as a memcpy. Both write
        // exactly the match.
        if (match >= 64 && offset <= 2 && op[-1] == op[-static_cast<std::ptrdiff_t>(offset)])
            std::memset(op, op[-1], match);
        else if (match >= 64 && offset >= match)
            std::memcpy(op, op - offset, match);
        else if (static_cast<std::size_t>(oend - op) - match >= kCopySlack)
            copy_match(op, offset, match);
        else
            copy_match_near_end(op, offset, match, oend);
        op += match;
    }
    return op == oend;
}

}  // namespace

std::uint64_t max_decoded_lz4(ByteView src) {
    constexpr std::uint64_t kMaxRatio = 256, kSlack = 64;
    return std::uint64_t{src.size} * kMaxRatio + kSlack;
}

std::string explain_lz4_failure(ByteView src, std::size_t expected) {
    const std::uint8_t* ip = src.data;
    const std::uint8_t* const iend = src.data + src.size;
    std::uint64_t op = 0;
    auto read_length = [&](std::uint64_t& len, const char* what) -> std::string {
        if (len != kRunMask) return {};
        for (;;) {
            if (ip >= iend) return std::string("LZ4 block truncated inside a ") + what + " length at input byte " + str(ip - src.data);
            const std::uint8_t s = *ip++;
            len += s;
            if (s != 255) return {};
        }
    };
    if (src.size == 0) return "empty LZ4 block";
    while (ip < iend) {
        const std::uint8_t token = *ip++;
        std::uint64_t lit = token >> 4;
        if (auto e = read_length(lit, "literal"); !e.empty()) return e;
        if (lit > static_cast<std::uint64_t>(iend - ip))
            return "LZ4 block truncated: " + str(lit) + " literals at input byte " + str(ip - src.data) + " run past its end (" +
                   str(src.size) + " bytes)";
        if (op + lit > expected) return "LZ4 block decodes to more than the " + str(expected) + " bytes expected";
        ip += lit;
        op += lit;
        if (ip == iend) break;  // the last sequence has literals only
        if (iend - ip < 2) return "LZ4 block truncated inside a match offset at input byte " + str(ip - src.data);
        const std::uint64_t offset = ip[0] | (std::uint64_t{ip[1]} << 8);
        ip += 2;
        if (offset == 0) return "LZ4 match offset 0 at input byte " + str(ip - src.data - 2);
        if (offset > op)
            return "LZ4 match offset " + str(offset) + " at output byte " + str(op) + " points before the start of the block";
        if (expected - op < kMatchStartLimit)
            return "LZ4 match at output byte " + str(op) + " starts " + str(expected - op) + " bytes before the end of the " +
                   str(expected) + "-byte block (the format wants at least " + str(kMatchStartLimit) + ")";
        std::uint64_t match = token & kRunMask;
        if (auto e = read_length(match, "match"); !e.empty()) return e;
        match += kMinMatch;
        if (op + match > expected) return "LZ4 block decodes to more than the " + str(expected) + " bytes expected";
        if (expected - (op + match) < kLastLiterals)
            return "LZ4 match at output byte " + str(op) + " ends " + str(expected - (op + match)) + " bytes before the end of the " +
                   str(expected) + "-byte block (the format wants the last " + str(kLastLiterals) + " bytes to be literals)";
        op += match;
    }
    if (op < expected) return "LZ4 block decodes to " + str(op) + " bytes, fewer than the " + str(expected) + " expected";
    return "LZ4 block refused by the decoder, though a walk of its sequences finds no fault";
}

void decompress_lz4(ByteView src, std::uint8_t* dst, std::size_t expected) {
    if (decode_lz4_block(src.data, src.size, dst, expected)) return;
    throw Error(ErrorCode::bad_lz4_sequence, explain_lz4_failure(src, expected));
}

void compress_lz4(const std::uint8_t* src, std::size_t n, std::vector<std::uint8_t>& out) {
    if (n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE))
        throw Error(ErrorCode::bad_argument, "block too large for LZ4: " + str(n) + " bytes");
    const int bound = LZ4_compressBound(static_cast<int>(n));
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(bound));
    const int got = LZ4_compress_default(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out.data() + at),
                                         static_cast<int>(n), bound);
    if (got <= 0)
        throw Error(ErrorCode::bad_argument, "LZ4_compress_default failed on a block of " + str(n) + " bytes");
    out.resize(at + static_cast<std::size_t>(got));
}

}  // namespace bslz4::detail
