// The C handle of an IntegrationMatrix, for the CSC classes' create functions.
#pragma once
#include "bslz4/bslz4.h"
#include "bslz4/integration_matrix.hpp"

struct bslz4_matrix {
    bslz4::IntegrationMatrix matrix;
};

namespace bslz4::c_api {
// The matrix of a handle; a bad_argument Error for NULL.
const IntegrationMatrix& matrix_of(const bslz4_matrix* matrix);
}  // namespace bslz4::c_api
