#include "cli/json_line.hpp"

#include <cmath>
#include <cstdio>

namespace bslz4::tool {

namespace {

// The length of the well-formed UTF-8 sequence starting p[0, n), or 0 where none starts there:
// RFC 3629's table, so overlong forms (C0, C1, E0 80..9F, F0 80..8F), surrogates (ED A0..BF),
// code points past U+10FFFF (F4 90.., F5..FF) and sequences cut short are not UTF-8.
std::size_t utf8_sequence_length(const unsigned char* p, std::size_t n) {
    const unsigned char lead = p[0];
    if (lead < 0x80) return 1;
    std::size_t length = 0;
    unsigned char second_low = 0x80, second_high = 0xBF;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3;
        if (lead == 0xE0) second_low = 0xA0;
        if (lead == 0xED) second_high = 0x9F;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4;
        if (lead == 0xF0) second_low = 0x90;
        if (lead == 0xF4) second_high = 0x8F;
    } else {
        return 0;
    }
    if (n < length || p[1] < second_low || p[1] > second_high) return 0;
    for (std::size_t k = 2; k < length; ++k)
        if (p[k] < 0x80 || p[k] > 0xBF) return 0;
    return length;
}

void append_u_escape(std::string& out, unsigned unit) {
    char u[8];
    std::snprintf(u, sizeof u, "\\u%04x", unit);
    out += u;
}

}  // namespace

std::string json_string(const std::string& text) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size();) {
        const unsigned char c = bytes[i];
        const std::size_t length = utf8_sequence_length(bytes + i, text.size() - i);
        if (length == 0) {
            // Python's surrogateescape: the byte as the lone surrogate U+DC00 + byte, which
            // json.loads(line)[key].encode("utf-8", "surrogateescape") turns back into it.
            append_u_escape(out, 0xDC00u | c);
            ++i;
            continue;
        }
        if (length > 1) {
            out.append(text, i, length);
            i += length;
            continue;
        }
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20)
                    append_u_escape(out, c);
                else
                    out += static_cast<char>(c);
        }
        ++i;
    }
    return out + "\"";
}

void JsonLine::key(const std::string& k) {
    if (!body_.empty()) body_ += ", ";
    body_ += json_string(k) + ": ";
}

JsonLine& JsonLine::add(const std::string& k, const std::string& value) {
    key(k);
    body_ += json_string(value);
    return *this;
}

JsonLine& JsonLine::add(const std::string& k, double value) {
    key(k);
    if (!std::isfinite(value)) {
        body_ += "null";
        return *this;
    }
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    body_ += text;
    return *this;
}

JsonLine& JsonLine::add(const std::string& k, std::size_t value) {
    key(k);
    body_ += std::to_string(value);
    return *this;
}

JsonLine& JsonLine::add(const std::string& k, bool value) {
    key(k);
    body_ += value ? "true" : "false";
    return *this;
}

}  // namespace bslz4::tool
