// What a call wants back: the lists on the host (the default; in the caller's rows when it gives
// them), and optionally the dense frames or the powders in device arrays (decompress, integrate)
// instead of on the host.
#pragma once
#include "bslz4/cuda/device_array.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4::cuda::detail {

struct CallOutputs {
    bool lists = true;
    DeviceArray* dense = nullptr;
    DeviceArray* powders = nullptr;
    const ListRows* rows = nullptr;  // the lists' rows; null: the collector's own
};

}  // namespace bslz4::cuda::detail
