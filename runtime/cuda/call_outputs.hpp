// What a call wants back: the lists on the host (the default), and optionally the dense frames
// or the powders in device arrays (decompress, integrate) instead of on the host.
#pragma once
#include "bslz4/cuda/device_array.hpp"

namespace bslz4::cuda::detail {

struct CallOutputs {
    bool lists = true;
    DeviceArray* dense = nullptr;
    DeviceArray* powders = nullptr;
};

}  // namespace bslz4::cuda::detail
