// The C handle of an IntegrationMatrix, for the CSC classes' create functions.
#pragma once
#include <utility>

#include "bslz4/bslz4.h"
#include "bslz4/integration_matrix.hpp"
#include "c_handle_class.hpp"

struct bslz4_matrix : bslz4::c_api::Tagged<bslz4::c_api::HandleClass::matrix> {
    explicit bslz4_matrix(bslz4::IntegrationMatrix m) : matrix(std::move(m)) {}
    bslz4::IntegrationMatrix matrix;
};

namespace bslz4::c_api {
// The matrix of a handle; a bad_argument Error for NULL or a handle of another class.
const IntegrationMatrix& matrix_of(const bslz4_matrix* matrix);
}  // namespace bslz4::c_api
