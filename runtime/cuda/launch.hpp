// cuLaunchKernel with a packed argument array built from the call's own arguments, so a
// launch reads like a function call and its types are checked against nothing but the ABI.
#pragma once
#include <cuda.h>

#include "cuda_error.hpp"
#include "driver_api.hpp"

namespace bslz4::cuda::detail {

struct Grid {
    unsigned x = 1, y = 1;
    unsigned threads = 32;
    unsigned shared_bytes = 0;
};

template <class... Args>
void launch(CUfunction f, const char* name, Grid g, CUstream stream, Args... args) {
    void* packed[] = {static_cast<void*>(&args)...};
    check(driver().cuLaunchKernel(f, g.x, g.y, 1, g.threads, 1, 1, g.shared_bytes, stream, packed, nullptr), name);
}

}  // namespace bslz4::cuda::detail
