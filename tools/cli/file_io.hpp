// Whole-file reads and writes for the tools; failures are bslz4::Error naming the file.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4::tool {

std::vector<std::uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, ByteView bytes);

}  // namespace bslz4::tool
