// An integration matrix stored as in powder.h5 (pyFAI, scipy): a group with data (float32),
// indices and indptr (int32 or uint32) and an attribute shape = (bins, pixels). The layout is
// read from the indptr length (bins + 1: CSR, pixels + 1: CSC).
#pragma once
#include <string>

#include "bslz4/integration_matrix.hpp"

namespace bslz4::tool {

// spec: "FILE.h5:GROUP"
IntegrationMatrix read_matrix_file(const std::string& spec);

}  // namespace bslz4::tool
