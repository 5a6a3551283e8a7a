// Masks and integration matrices on the device, uploaded once per process and device and
// shared by every object that uses the same one (found by content). release_shared() forgets
// them; objects alive keep theirs. Each holds its device's context so it can outlive them.
#pragma once
#include <cstddef>
#include <memory>

#include "bslz4/byte_view.hpp"
#include "bslz4/integration_matrix.hpp"
#include "context.hpp"
#include "driver_objects.hpp"

namespace bslz4::cuda::detail {

struct DeviceMask {
    PrimaryContext ctx;
    DeviceBuffer bytes;
    explicit DeviceMask(int device) : ctx(device) {}
};

struct DeviceMatrix {
    PrimaryContext ctx;
    DeviceBuffer row_start, pixel, weight;  // weight: float, or int64 for a fixed-point matrix
    std::size_t bins = 0, nnz = 0;
    explicit DeviceMatrix(int device) : ctx(device) {}
};

// The caller has the device's context current.
std::shared_ptr<const DeviceMask> shared_mask(int device, ByteView mask);
std::shared_ptr<const DeviceMatrix> shared_matrix(int device, const IntegrationMatrix& folded);

}  // namespace bslz4::cuda::detail
