/* An integration matrix whose bin r sums row r of an ni x nj frame (weights 1): powders any
 * test can compute by hand. */
#ifndef BSLZ4_TEST_ROW_SUM_MATRIX_H
#define BSLZ4_TEST_ROW_SUM_MATRIX_H
#include <stddef.h>

#include "bslz4/bslz4.h"

/* The C API's status of bslz4_matrix_normalise, or BSLZ4_E_OUT_OF_MEMORY. */
int row_sum_matrix(size_t ni, size_t nj, bslz4_matrix** matrix);

#endif
