#include "json_line.hpp"

#include <cmath>
#include <cstdio>

namespace bslz4::tool {

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (const char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char u[8];
                    std::snprintf(u, sizeof u, "\\u%04x", c);
                    out += u;
                } else {
                    out += ch;
                }
        }
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
