#include "cli/command_line.hpp"

#include <cerrno>
#include <cstdlib>

namespace bslz4::tool {

std::string Arguments::get(const std::string& name, const std::string& fallback) const {
    auto it = options.find(name);
    return it == options.end() ? fallback : it->second;
}

double Arguments::number(const std::string& name, double fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(it->second.c_str(), &end);
    if (it->second.empty() || *end != '\0' || errno == ERANGE)
        throw UsageError(name + " needs a number, got '" + it->second + "'");
    return v;
}

unsigned long long Arguments::count(const std::string& name, unsigned long long fallback) const {
    auto it = options.find(name);
    if (it == options.end()) return fallback;
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(it->second.c_str(), &end, 10);
    if (it->second.empty() || it->second[0] == '-' || *end != '\0' || errno == ERANGE)
        throw UsageError(name + " needs a whole number, got '" + it->second + "'");
    return v;
}

Arguments parse_arguments(const std::vector<std::string>& args, const std::set<std::string>& with_value,
                          const std::set<std::string>& flags) {
    Arguments out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string a = args[i];
        if (a == "--help" || a == "-h") {
            out.flags.insert("help");
            continue;
        }
        if (a.size() < 2 || a[0] != '-') {
            out.positional.push_back(a);
            continue;
        }
        std::string value;
        bool inline_value = false;
        if (auto eq = a.find('='); a.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = a.substr(eq + 1);
            a = a.substr(0, eq);
            inline_value = true;
        }
        if (with_value.count(a)) {
            if (!inline_value) {
                if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
                value = args[++i];
            }
            out.options[a] = value;
        } else if (flags.count(a) && !inline_value) {
            out.flags.insert(a);
        } else {
            throw UsageError("unknown option '" + args[i] + "'");
        }
    }
    return out;
}

}  // namespace bslz4::tool

#include "bslz4/pixel_type.hpp"

namespace bslz4::tool {

PixelType parse_type_argument(const std::string& text, const std::string& option) {
    static const struct {
        const char* numpy;
        PixelType type;
    } kNumpyNames[] = {{"uint8", PixelType::u8},   {"uint16", PixelType::u16}, {"uint32", PixelType::u32}, {"uint64", PixelType::u64},
                       {"int8", PixelType::i8},    {"int16", PixelType::i16},  {"int32", PixelType::i32},  {"int64", PixelType::i64},
                       {"float32", PixelType::f32}, {"float64", PixelType::f64}};
    for (const auto& n : kNumpyNames)
        if (text == n.numpy || text == pixel_type_name(n.type)) return n.type;
    std::string names;
    for (const auto& n : kNumpyNames) names += std::string(names.empty() ? "" : ", ") + pixel_type_name(n.type) + " or " + n.numpy;
    throw UsageError(option + " '" + text + "': unknown pixel type (expected " + names + ")");
}

std::size_t element_size(const Arguments& args) {
    const bool dtype = args.options.count("--dtype"), es = args.options.count("--elem-size");
    if (dtype == es) throw UsageError("give exactly one of --dtype T or --elem-size N");
    if (dtype) return pixel_size(parse_type_argument(args.get("--dtype"), "--dtype"));
    const auto n = args.count("--elem-size", 0);
    if (n < 1 || n > 16) throw UsageError("--elem-size must be 1 to 16 bytes, got " + args.get("--elem-size"));
    return static_cast<std::size_t>(n);
}

}  // namespace bslz4::tool
