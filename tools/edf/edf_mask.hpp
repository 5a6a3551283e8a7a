// Masks stored as EDF images (ESRF data format: pyFAI's, fabio's and ImageD11's masks, such as
// the maskfile of ImageD11's segmenter): a text header in braces ("Key = value ;" lines, padded
// to a multiple of 512 bytes) and the raw image after it. Read with every size the header gives
// checked against the file before anything is allocated; compressed EDF is refused.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace bslz4::tool {

// Whether the file starts as an EDF header does.
bool is_edf_file(const std::string& path);

// 1 where the first image's pixel is nonzero (any integer or float type; NaN is nonzero), for an
// image of ni x nj pixels (Dim_2 x Dim_1). Anything else is an Error naming the file and what is wrong.
std::vector<std::uint8_t> read_edf_nonzero(const std::string& path, std::size_t ni, std::size_t nj);

}  // namespace bslz4::tool
