// The compressors a bitshuffle chunk's blocks may use (HDF5 filter 32008: lz4 or zstd).
#pragma once
#include "bslz4/export.h"
#include <string>

namespace bslz4 {

enum class Codec { lz4, zstd };

BSLZ4_API const char* codec_name(Codec c);
// Parses "lz4" or "zstd"; throws Error otherwise.
BSLZ4_API Codec parse_codec(const std::string& name);

}  // namespace bslz4
