// The cut as the kernels compare it: the same pixels listed as the CPU's exact comparison of
// each value with the double cut, for every pixel type.
#pragma once
#include "bslz4/pixel_type.hpp"
#include "kernel_abi.h"

namespace bslz4::cuda::detail {

bslz4_abi::Cut make_cut(PixelType type, double cut);

}  // namespace bslz4::cuda::detail
