// The GPU lists handle's struct: its own functions' (c_gpu_chunk2sparse.cpp), and
// bslz4_gpu_chunk2sparse_csc_from_lists's, which takes its engine.
#pragma once
#include "bslz4/bslz4.h"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "c_sparse_calls.hpp"

struct bslz4_gpu_chunk2sparse
    : bslz4::c_api::Handle<bslz4::cuda::Chunk2Sparse, false, bslz4::c_api::HandleClass::gpu_chunk2sparse> {
    using Handle::Handle;
};
