// cuLaunchKernel with the kernel's one argument: its struct of kernel_abi.h, filled by name,
// which the kernel takes by value (the driver copies it at the launch).
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

template <class Args>
void launch(CUfunction f, const char* name, Grid g, CUstream stream, Args args) {
    void* packed[] = {static_cast<void*>(&args)};
    check(driver().cuLaunchKernel(f, g.x, g.y, 1, g.threads, 1, 1, g.shared_bytes, stream, packed, nullptr), name);
}

}  // namespace bslz4::cuda::detail
