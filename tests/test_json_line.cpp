// json_string, the string literals of `bslz4 sparse --json`: JSON's escapes, well-formed UTF-8
// passed through, every other byte written as Python's surrogateescape writes it (\udcXY), so
// that the line is valid UTF-8 and a file name's bytes come back exactly from it.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "cli/json_line.hpp"

using bslz4::tool::json_string;
using bslz4::tool::JsonLine;

namespace {

// The code point of the UTF-8 sequence at s[i] (its length in *length), decoded by its bits and
// then judged (shortest form, not a surrogate, at most U+10FFFF): a reading of the standard
// independent of the library's table of lead and second bytes.
std::optional<std::uint32_t> utf8_code_point(const std::string& s, std::size_t i, std::size_t* length) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char lead = byte(i);
    std::size_t n = 0;
    while (n < 8 && (lead & (0x80u >> n))) ++n;
    if (n == 0) {
        *length = 1;
        return lead;
    }
    if (n == 1 || n > 4 || i + n > s.size()) return std::nullopt;
    std::uint32_t cp = lead & (0x7Fu >> n);
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xC0u) != 0x80u) return std::nullopt;
        cp = (cp << 6) | (byte(i + k) & 0x3Fu);
    }
    const std::uint32_t shortest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < shortest[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
    *length = n;
    return cp;
}

bool valid_utf8(const std::string& s) {
    for (std::size_t i = 0, n = 0; i < s.size(); i += n)
        if (!utf8_code_point(s, i, &n)) return false;
    return true;
}

void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

// What Python's json.loads(literal).encode("utf-8", "surrogateescape") gives: the JSON escapes
// decoded, surrogate pairs joined, a lone U+DC80..U+DCFF as its byte; nullopt where Python
// would fail (a bad escape, any other lone surrogate, a raw control character).
std::optional<std::string> surrogateescape_bytes(const std::string& literal) {
    if (literal.size() < 2 || literal.front() != '"' || literal.back() != '"') return std::nullopt;
    const std::string s = literal.substr(1, literal.size() - 2);
    std::string out;
    const auto hex4 = [&](std::size_t at) -> std::optional<std::uint32_t> {
        if (at + 4 > s.size()) return std::nullopt;
        std::uint32_t v = 0;
        for (std::size_t k = at; k < at + 4; ++k) {
            const char c = s[k];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) return std::nullopt;
            v = v * 16 + static_cast<std::uint32_t>(d);
        }
        return v;
    };
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == '"') return std::nullopt;
        if (c != '\\') {
            out += s[i++];
            continue;
        }
        if (i + 1 >= s.size()) return std::nullopt;
        const char e = s[i + 1];
        const std::string simple = "\"\\/bfnrt", meaning = "\"\\/\b\f\n\r\t";
        if (simple.find(e) != std::string::npos) {
            out += meaning[simple.find(e)];
            i += 2;
            continue;
        }
        if (e != 'u') return std::nullopt;
        const auto unit = hex4(i + 2);
        if (!unit) return std::nullopt;
        i += 6;
        if (*unit >= 0xD800 && *unit <= 0xDBFF && i + 1 < s.size() && s[i] == '\\' && s[i + 1] == 'u') {
            const auto low = hex4(i + 2);
            if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
                append_utf8(out, 0x10000 + ((*unit - 0xD800) << 10) + (*low - 0xDC00));
                i += 6;
                continue;
            }
        }
        if (*unit >= 0xDC80 && *unit <= 0xDCFF)
            out += static_cast<char>(*unit - 0xDC00);
        else if (*unit >= 0xD800 && *unit <= 0xDFFF)
            return std::nullopt;
        else
            append_utf8(out, *unit);
    }
    return out;
}

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

TEST_CASE("json_string escapes quotes, backslashes and control characters as JSON requires", "[json]") {
    CHECK(json_string("a\"b\\c\n\r\t\x01\x1f\x7f") == quoted("a\\\"b\\\\c\\n\\r\\t\\u0001\\u001f\x7f"));
    CHECK(json_string(std::string("nul\0here", 8)) == quoted("nul\\u0000here"));
    CHECK(json_string("") == quoted(""));
}

TEST_CASE("json_string passes well-formed UTF-8 of 2, 3 and 4 bytes through unchanged", "[json]") {
    for (const std::string s : {"\xc2\x80", "\xc3\xa9", "\xdf\xbf", "\xe0\xa0\x80", "\xe2\x82\xac", "\xed\x9f\xbf",
                                "\xee\x80\x80", "\xef\xbf\xbf", "\xf0\x90\x80\x80", "\xf0\x9f\x98\x80", "\xf4\x8f\xbf\xbf",
                                "scan_\xc3\xa9t\xc3\xa9_\xe6\x95\xb0\xe6\x8d\xae_\xf0\x9f\x94\xac.h5"}) {
        INFO(s);
        CHECK(json_string(s) == quoted(s));
    }
}

TEST_CASE("json_string writes each byte outside well-formed UTF-8 as \\udcXY", "[json]") {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"\x80", "\\udc80"},                                        // a continuation byte alone
        {"\xbf\xbf", "\\udcbf\\udcbf"},
        {"\xfe", "\\udcfe"},                                        // bytes UTF-8 never has
        {"\xff", "\\udcff"},
        {"\xc0\xaf", "\\udcc0\\udcaf"},                             // overlong '/'
        {"\xc1\xbf", "\\udcc1\\udcbf"},                             // overlong U+007F
        {"\xe0\x80\xaf", "\\udce0\\udc80\\udcaf"},                  // overlong '/' in 3 bytes
        {"\xe0\x9f\xbf", "\\udce0\\udc9f\\udcbf"},                  // overlong U+07FF
        {"\xf0\x80\x80\xaf", "\\udcf0\\udc80\\udc80\\udcaf"},       // overlong '/' in 4 bytes
        {"\xf0\x8f\xbf\xbf", "\\udcf0\\udc8f\\udcbf\\udcbf"},       // overlong U+FFFF
        {"\xed\xa0\x80", "\\udced\\udca0\\udc80"},                  // the surrogate U+D800 encoded
        {"\xed\xbf\xbf", "\\udced\\udcbf\\udcbf"},                  // U+DFFF
        {"\xed\xa0\xbd\xed\xb8\x80", "\\udced\\udca0\\udcbd\\udced\\udcb8\\udc80"},  // CESU-8's pair
        {"\xf4\x90\x80\x80", "\\udcf4\\udc90\\udc80\\udc80"},       // U+110000, past Unicode
        {"\xf5\x80\x80\x80", "\\udcf5\\udc80\\udc80\\udc80"},
        {"\xc3", "\\udcc3"},                                        // cut short at the end
        {"\xe2\x82", "\\udce2\\udc82"},
        {"\xf0\x9f\x98", "\\udcf0\\udc9f\\udc98"},
        {"\xe2\x82" "A\xc3\xa9", "\\udce2\\udc82A\xc3\xa9"},        // cut short by the next character
        {"scan_\xe9t\xe9.h5", "scan_\\udce9t\\udce9.h5"},           // a Latin-1 file name
    };
    for (const auto& [in, escaped] : cases) {
        INFO(in);
        CHECK(json_string(in) == quoted(escaped));
        CHECK(surrogateescape_bytes(json_string(in)) == in);
    }
}

TEST_CASE("every string of 1 and 2 bytes, and 20,000 random ones, come back byte for byte from valid UTF-8",
          "[json]") {
    std::vector<std::string> inputs;
    for (int a = 0; a < 256; ++a) {
        inputs.emplace_back(1, static_cast<char>(a));
        for (int b = 0; b < 256; ++b) inputs.push_back({static_cast<char>(a), static_cast<char>(b)});
    }
    // Random strings weighted to the bytes that decide: leads, the edges of second-byte ranges,
    // continuation bytes, ASCII, quotes and controls.
    const char edges[] = "\x00\x1f\x22\x5c\x41\x7f\x80\x8f\x90\x9f\xa0\xbf\xc0\xc1\xc2\xdf\xe0\xe1\xec\xed\xee\xef"
                         "\xf0\xf1\xf3\xf4\xf5\xfe\xff";
    const std::string alphabet(edges, sizeof edges - 1);  // the NUL first, not the terminator
    std::mt19937 random(25);
    for (int k = 0; k < 20000; ++k) {
        std::string s(random() % 17, '\0');
        for (char& c : s)
            c = random() % 4 ? alphabet[random() % alphabet.size()] : static_cast<char>(random() % 256);
        inputs.push_back(s);
    }
    std::size_t failures = 0;
    for (const std::string& in : inputs) {
        const std::string out = json_string(in);
        const bool ok = valid_utf8(out) && surrogateescape_bytes(out) == in;
        if (!ok && ++failures <= 5) FAIL_CHECK("json_string of " << Catch::Detail::stringify(in) << " is " << out);
    }
    CHECK(failures == 0);
    CHECK(inputs.size() == 256 + 65536 + 20000);
}

TEST_CASE("a JsonLine holding a file name that is not UTF-8 is valid UTF-8 and gives the name back", "[json]") {
    const std::string name = "/data/id11/scan_\xe9t\xe9_\xff.h5";
    const std::string line = JsonLine().add("kind", "scan").add("input", name).add("frames", std::size_t{3}).str();
    CHECK(line == "{\"kind\": \"scan\", \"input\": \"/data/id11/scan_\\udce9t\\udce9_\\udcff.h5\", \"frames\": 3}");
    CHECK(valid_utf8(line));
    const std::size_t at = line.find("\"/data");
    CHECK(surrogateescape_bytes(line.substr(at, line.find(".h5\"") + 4 - at)) == name);
}
