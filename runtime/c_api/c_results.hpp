// The C++ classes' results lent to C as bslz4_frame / bslz4_batch / bslz4_coo / bslz4_powder
// views. What C needs that the C++ views do not hold (status values as int, bad frames with C
// strings, coo copies) is kept in the handle's LentResults until its next call.
#pragma once
#include <vector>

#include "bslz4/bslz4.h"
#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::c_api {

struct LentResults {
    std::vector<int> status;
    std::vector<bslz4_bad_frame> bad;
    CooFrame coo;
    IntegratedCoo integrated_coo;
};

void lend(const SparseFrame& frame, LentResults& held, bslz4_frame* out, bslz4_powder* powder);
void lend(const IntegratedFrame& frame, LentResults& held, bslz4_frame* out, bslz4_powder* powder);
void lend(const SparseBatch& batch, LentResults& held, bslz4_batch* out, bslz4_powder* powder);
void lend(const IntegratedBatch& batch, LentResults& held, bslz4_batch* out, bslz4_powder* powder);
void lend(CooFrame&& coo, LentResults& held, bslz4_coo* out, bslz4_powder* powder);
void lend(IntegratedCoo&& coo, LentResults& held, bslz4_coo* out, bslz4_powder* powder);

}  // namespace bslz4::c_api
