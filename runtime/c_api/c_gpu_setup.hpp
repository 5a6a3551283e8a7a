// What every GPU handle's create does first: a usable GPU (else BSLZ4_E_NO_GPU with the
// driver's reason), and bslz4_options in the GPU classes' terms.
#pragma once
#include "bslz4/bslz4.h"
#include "bslz4/cuda/chunk2sparse.hpp"

namespace bslz4::c_api {

void require_gpu();
cuda::Chunk2SparseOptions gpu_options(const bslz4_options* options);

}  // namespace bslz4::c_api
