#include "edf_mask.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "bslz4/error.hpp"

namespace bslz4::tool {

namespace {

// A header is at most this long (fabio writes 512 to a few kB): past it, not an EDF header.
constexpr std::size_t kLongestHeader = std::size_t{1} << 20;

struct EdfType {
    std::size_t bytes;
    bool is_float, is_signed;
};

// fabio's names for the types (and the older short ones).
const std::map<std::string, EdfType>& edf_types() {
    static const std::map<std::string, EdfType> types = {
        {"UnsignedByte", {1, false, false}},    {"SignedByte", {1, false, true}},     {"UnsignedShort", {2, false, false}},
        {"SignedShort", {2, false, true}},      {"UnsignedInteger", {4, false, false}}, {"SignedInteger", {4, false, true}},
        {"UnsignedLong", {4, false, false}},    {"SignedLong", {4, false, true}},     {"Unsigned64", {8, false, false}},
        {"Signed64", {8, false, true}},         {"FloatValue", {4, true, true}},      {"DoubleValue", {8, true, true}},
        {"UnsignedInt", {4, false, false}},     {"SignedInt", {4, false, true}},      {"Float", {4, true, true}},
        {"Double", {8, true, true}}};
    return types;
}

std::string trimmed(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r\n"), b = s.find_last_not_of(" \t\r\n");
    return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

struct Header {
    std::map<std::string, std::string> keys;
    std::size_t bytes = 0;  // the header's length, the image's first byte
};

// The header from '{' to the '}' and the newline after it; none (bytes 0) when it is not one.
Header read_header(std::FILE* f) {
    Header h;
    std::string text;
    int c = std::fgetc(f);
    if (c != '{') return h;
    text.push_back('{');
    while ((c = std::fgetc(f)) != EOF && c != '}') {
        text.push_back(static_cast<char>(c));
        if (text.size() > kLongestHeader) return h;
    }
    if (c != '}') return h;
    c = std::fgetc(f);  // the newline after the brace ends the header (when there is one)
    if (c == '\r') c = std::fgetc(f);
    if (c != '\n' && c != EOF) std::ungetc(c, f);
    h.bytes = static_cast<std::size_t>(std::ftell(f));
    std::size_t at = 1;
    while (at < text.size()) {
        const std::size_t end = std::min(text.find(';', at), text.size());
        const std::string item = text.substr(at, end - at);
        const std::size_t eq = item.find('=');
        if (eq != std::string::npos) h.keys[trimmed(item.substr(0, eq))] = trimmed(item.substr(eq + 1));
        at = end + 1;
    }
    return h;
}

std::size_t count_of(const Header& h, const char* key, const std::string& path) {
    const auto it = h.keys.find(key);
    if (it == h.keys.end()) throw Error(ErrorCode::bad_argument, path + ": EDF header has no " + key);
    char* end = nullptr;
    const unsigned long long v = std::strtoull(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end || v == 0 || v > (1ull << 32))
        throw Error(ErrorCode::bad_argument, path + ": EDF header's " + key + " = " + it->second + " is not a size");
    return static_cast<std::size_t>(v);
}

// Pixel i of the raw image (its bytes in file order) is nonzero.
bool nonzero(const std::uint8_t* p, const EdfType& t, bool swap) {
    std::uint8_t b[8];
    for (std::size_t k = 0; k < t.bytes; ++k) b[k] = p[swap ? t.bytes - 1 - k : k];
    if (t.is_float) {
        if (t.bytes == 4) {
            float v;
            std::memcpy(&v, b, 4);
            return v != 0.0f;  // NaN too
        }
        double v;
        std::memcpy(&v, b, 8);
        return v != 0.0;
    }
    for (std::size_t k = 0; k < t.bytes; ++k)
        if (b[k]) return true;
    return false;
}

}  // namespace

bool is_edf_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) return false;
    const Header h = read_header(f);
    std::fclose(f);
    return h.bytes > 0 && (h.keys.count("DataType") || h.keys.count("ByteOrder") || h.keys.count("HeaderID"));
}

std::vector<std::uint8_t> read_edf_nonzero(const std::string& path, std::size_t ni, std::size_t nj) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw Error(ErrorCode::io, path + ": cannot open: " + std::strerror(errno));
    struct Closer {
        std::FILE* f;
        ~Closer() { std::fclose(f); }
    } closer{f};
    const Header h = read_header(f);
    if (h.bytes == 0) throw Error(ErrorCode::bad_argument, path + ": not an EDF image (no header in braces)");
    const auto type_it = h.keys.find("DataType");
    if (type_it == h.keys.end() || !edf_types().count(type_it->second))
        throw Error(ErrorCode::bad_argument, path + ": EDF DataType " +
                                                 (type_it == h.keys.end() ? std::string("missing") : "'" + type_it->second + "'") +
                                                 " is not one this reads (fabio's integer and float types)");
    const EdfType t = edf_types().at(type_it->second);
    if (const auto c = h.keys.find("Compression"); c != h.keys.end() && c->second != "None" && c->second != "NONE" &&
                                                   !c->second.empty())
        throw Error(ErrorCode::bad_argument, path + ": a compressed EDF image (Compression = " + c->second +
                                                 "); save the mask uncompressed");
    const std::size_t dim1 = count_of(h, "Dim_1", path), dim2 = count_of(h, "Dim_2", path);
    if (dim1 != nj || dim2 != ni)
        throw Error(ErrorCode::bad_argument, path + ": the EDF mask is " + std::to_string(dim2) + " x " + std::to_string(dim1) +
                                                 " (Dim_2 x Dim_1), the frames " + std::to_string(ni) + " x " + std::to_string(nj));
    const std::size_t bytes = ni * nj * t.bytes;
    if (std::fseek(f, 0, SEEK_END) != 0) throw Error(ErrorCode::io, path + ": cannot seek");
    const long file_bytes = std::ftell(f);
    if (file_bytes < 0 || static_cast<std::size_t>(file_bytes) < h.bytes + bytes)
        throw Error(ErrorCode::truncated_chunk, path + ": the EDF image needs " + std::to_string(bytes) + " bytes after its " +
                                                    std::to_string(h.bytes) + "-byte header; the file has " +
                                                    std::to_string(file_bytes) + " in all (truncated)");
    std::vector<std::uint8_t> raw(bytes);
    if (std::fseek(f, static_cast<long>(h.bytes), SEEK_SET) != 0 || std::fread(raw.data(), 1, bytes, f) != bytes)
        throw Error(ErrorCode::io, path + ": cannot read the EDF image");
    const auto order = h.keys.find("ByteOrder");
    const bool big = order != h.keys.end() && order->second == "HighByteFirst";
    const bool host_big = [] {
        const std::uint16_t one = 1;
        std::uint8_t first;
        std::memcpy(&first, &one, 1);
        return first == 0;
    }();
    std::vector<std::uint8_t> out(ni * nj);
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = nonzero(raw.data() + i * t.bytes, t, big != host_big);
    return out;
}

}  // namespace bslz4::tool
