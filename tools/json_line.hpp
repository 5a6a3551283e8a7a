// One JSON object on one line, for the summaries scripts read (bslz4 sparse --json): keys in
// the order added, strings escaped as JSON requires (UTF-8 passes through), numbers that are
// not finite written as null.
#pragma once
#include <cstddef>
#include <string>

namespace bslz4::tool {

class JsonLine {
public:
    JsonLine& add(const std::string& key, const std::string& value);
    JsonLine& add(const std::string& key, const char* value) { return add(key, std::string(value)); }
    JsonLine& add(const std::string& key, double value);
    JsonLine& add(const std::string& key, std::size_t value);
    JsonLine& add(const std::string& key, bool value);
    // The object, without a newline.
    std::string str() const { return "{" + body_ + "}"; }

private:
    void key(const std::string& k);
    std::string body_;
};

std::string json_string(const std::string& text);

}  // namespace bslz4::tool
