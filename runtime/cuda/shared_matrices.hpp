// Masks and integration matrices on the device, uploaded once per process and device and
// shared by every object that uses the same one (found by content). release_shared() forgets
// them; objects alive keep theirs. Each holds its device's context so it can outlive them.
#pragma once
#include <cstddef>
#include <memory>

#include "bslz4/byte_view.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/powder.hpp"
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
    // The matrix by tiles of the frame (tile_matrix.hpp); entry_weight: float, or int64 for a
    // fixed-point matrix.
    DeviceBuffer tile_slot_first, slot_entry_first, entry_pixel, entry_weight, bin_slot_first, bin_slot;
    std::size_t bins = 0, tiles = 0, tiles_x = 0, slots = 0;
    // Fixed-point weights all -2^47 <= w < 2^47: the tile kernel stages an entry in 8
    // bytes, not 16 (integrate_tiles.cu's StagedEntry).
    bool packed_weights = false;
    explicit DeviceMatrix(int device) : ctx(device) {}
};

// A user's matrix as the GPU sums it for one mask, pixel type and accumulator: folded by the
// mask and in summed_matrix's form (fixed_point.hpp), on the device.
struct PreparedMatrix {
    std::shared_ptr<const DeviceMatrix> matrix;
    bool fixed_sums = false;   // int64 fixed-point sums
    double powder_scale = 1;   // of those sums (1 for float sums)
};

// The caller has the device's context current.
std::shared_ptr<const DeviceMask> shared_mask(int device, ByteView mask);
// The matrix `m` prepared for `mask` (nonzero = use), `type`, `acc` and frames of `rows` x
// `cols` pixels, found by the content of all five: the objects of a job, or of a campaign's
// scans, fold, convert and tile a matrix once, not once each (for an Eiger 4M matrix, about
// 0.1 s and 140 MB of fresh memory an object).
PreparedMatrix shared_prepared_matrix(int device, const IntegrationMatrix& m, ByteView mask, PixelType type,
                                      Accumulator acc, std::size_t rows, std::size_t cols);

}  // namespace bslz4::cuda::detail
