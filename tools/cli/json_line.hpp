// One JSON object on one line, for the summaries scripts read (bslz4 sparse --json): keys in
// the order added, strings escaped as JSON requires, numbers that are not finite written as
// null. The line is always valid UTF-8 whatever bytes a string holds (a file name need not be
// UTF-8): see json_string.
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

// text as a JSON string literal: well-formed UTF-8 passes through; each byte that is not part
// of a well-formed sequence (a stray or missing continuation byte, an overlong form, an encoded
// surrogate, past U+10FFFF) is written as \udcXY for the byte 0xXY, Python's surrogateescape,
// so json.loads(line)[key].encode("utf-8", "surrogateescape") gives back the bytes exactly.
std::string json_string(const std::string& text);

}  // namespace bslz4::tool
