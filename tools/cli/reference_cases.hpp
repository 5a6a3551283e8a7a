// The reference chunks written outside this project (../shared/testdata, or the subset in
// tests/data): the table cases.tsv and the files it names.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "bslz4/codec.hpp"
#include "bslz4/pixel_type.hpp"

namespace bslz4::tool {

struct ReferenceCase {
    std::string name;
    PixelType type = PixelType::u8;
    std::size_t elem_size = 0, ni = 0, nj = 0;
    Codec codec = Codec::lz4;
    std::size_t block_bytes = 0, chunk_bytes = 0;
    std::string sha256;
    bool has_raw = false;
    std::string chunk_path, raw_path;
};

// Reads DIR/cases.tsv; throws bslz4::Error if it is missing or malformed.
std::vector<ReferenceCase> read_reference_cases(const std::string& dir);

// $BSLZ4_TESTDATA, else the shared reference data beside the source tree.
std::string default_testdata_dir();

}  // namespace bslz4::tool
