// An integration matrix stored as in powder.h5 (pyFAI, scipy): a group with data (float32),
// indices and indptr (int32 or uint32) and an attribute shape = (bins, pixels). The layout is
// read from the indptr length (bins + 1: CSR, pixels + 1: CSC).
//
// Without the shape attribute (a pyFAI engine saved as its three arrays), the shape is inferred:
// with the frame's pixel count known, indptr of pixels + 1 entries is CSC (bins = the largest
// index + 1) and anything else CSR (bins = indptr entries - 1); without it, the layout whose
// indptr runs over the smaller dimension is taken (CSR when indptr has fewer entries than the
// largest index + 2: an azimuthal integration has fewer bins than pixels), and pixels (CSR) or
// bins (CSC) = the largest index + 1.
#pragma once
#include <cstddef>
#include <string>

#include "bslz4/integration_matrix.hpp"

namespace bslz4::tool {

struct MatrixSpec {
    std::string file, group;  // group starts with '/'
};

// "FILE.h5:GROUP" -> its parts; anything else is an Error saying FILE.h5:GROUP is expected.
MatrixSpec parse_matrix_spec(const std::string& spec);

// frame_pixels: the scan's ni * nj, 0 when unknown; when known, a matrix of another pixel count
// is an Error naming the file and group. Every error names the file and the group.
IntegrationMatrix read_matrix_file(const std::string& spec, std::size_t frame_pixels = 0);

}  // namespace bslz4::tool
