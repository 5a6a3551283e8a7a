#include <lz4.h>

#include <climits>

#include "block_codec.hpp"
#include "bslz4/error.hpp"

namespace bslz4::detail {

namespace {
// LZ4 block format: a token's high nibble is the literal count, low nibble the match length
// minus kMinMatch; 15 in either means more length bytes follow (255 = keep reading).
constexpr unsigned kRunMask = 15;
constexpr std::uint64_t kMinMatch = 4;

std::string str(std::uint64_t v) { return std::to_string(v); }
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
        std::uint64_t match = token & kRunMask;
        if (auto e = read_length(match, "match"); !e.empty()) return e;
        match += kMinMatch;
        if (op + match > expected) return "LZ4 block decodes to more than the " + str(expected) + " bytes expected";
        op += match;
    }
    if (op < expected) return "LZ4 block decodes to " + str(op) + " bytes, fewer than the " + str(expected) + " expected";
    return "LZ4 block breaks the format's end-of-block rules (liblz4 refused it)";
}

void decompress_lz4(ByteView src, std::uint8_t* dst, std::size_t expected) {
    if (src.size > INT_MAX || expected > INT_MAX) throw Error("LZ4 block too large for liblz4");
    const int got = LZ4_decompress_safe(reinterpret_cast<const char*>(src.data), reinterpret_cast<char*>(dst),
                                        static_cast<int>(src.size), static_cast<int>(expected));
    if (got < 0) throw Error(explain_lz4_failure(src, expected));
    if (static_cast<std::size_t>(got) != expected)
        throw Error("LZ4 block decodes to " + str(static_cast<std::uint64_t>(got)) + " bytes, fewer than the " +
                    str(expected) + " expected");
}

void compress_lz4(const std::uint8_t* src, std::size_t n, std::vector<std::uint8_t>& out) {
    if (n > static_cast<std::size_t>(LZ4_MAX_INPUT_SIZE)) throw Error("block too large for LZ4: " + str(n) + " bytes");
    const int bound = LZ4_compressBound(static_cast<int>(n));
    const std::size_t at = out.size();
    out.resize(at + static_cast<std::size_t>(bound));
    const int got = LZ4_compress_default(reinterpret_cast<const char*>(src), reinterpret_cast<char*>(out.data() + at),
                                         static_cast<int>(n), bound);
    if (got <= 0) throw Error("LZ4_compress_default failed on a block of " + str(n) + " bytes");
    out.resize(at + static_cast<std::size_t>(got));
}

}  // namespace bslz4::detail
