#include "group_slot.hpp"

#include <algorithm>

namespace bslz4::cuda::detail {

GroupSlot::GroupSlot(const FrameFormat& format, unsigned batch, unsigned group) {
    const abi::FrameGeometry& geometry = format.geometry;
    const std::size_t bpp = format.bpp;
    stream = make_stream();
    upload_stream = make_stream();
    uploaded = make_event();
    for (Event& e : part_uploaded) e = make_event();
    meta_host = TransferBuffer(group * ((2 + geometry.n_blocks + 1) * sizeof(std::uint64_t) + sizeof(std::uint32_t)), "frame offsets");
    chunk_offset = DeviceBuffer(group * 8, "chunk offsets");
    chunk_length = DeviceBuffer(group * 8, "chunk lengths");
    block_offset = DeviceBuffer(std::size_t{group} * geometry.n_blocks * 8, "block offsets");
    tail_offset = DeviceBuffer(group * 8, "tail offsets");
    status = DeviceBuffer(group * 4, "frame status");
    tile_count = DeviceBuffer(std::size_t{group} * geometry.n_tiles * 4, "tile counts");
    tile_offset = DeviceBuffer(std::size_t{group} * geometry.n_tiles * 4, "tile offsets");
    seq_first = DeviceBuffer((group + 1) * 8, "sequence slots");
    seq_first_host = TransferBuffer((group + 1) * 8, "sequence slots");
    seq_count = DeviceBuffer(std::size_t{group} * geometry.n_blocks * 4, "sequence counts");
    npixels = DeviceBuffer(group * 8, "pixel counts");
    frame_offset = DeviceBuffer(group * 8, "list offsets");
    offsets_host = TransferBuffer(group * 8, "list offsets");
    dense = DeviceBuffer(std::size_t{batch} * geometry.dense_stride * bpp, "dense frames");
    const std::size_t staged = std::size_t{batch} * geometry.n_tiles * abi::kStagedPerTile;
    stage_values = DeviceBuffer(staged * bpp, "staged values");
    stage_indices = DeviceBuffer(staged * 4, "staged indices");
    frame_level = DeviceBuffer(group * 4, "top-pixel levels");
    nabove = DeviceBuffer(group * 8, "top-pixel counts");
    frame_level_host = TransferBuffer(group * 4, "top-pixel levels");
    nabove_host = TransferBuffer(group * 8, "top-pixel counts");
    status_host = TransferBuffer(group * 4, "frame status");
    npixels_host = TransferBuffer(group * 8, "pixel counts");
}

void GroupSlot::add_powders(std::size_t partial_bytes) {
    partial = DeviceBuffer(partial_bytes, "partial sums by tile");
}

void grow_device(DeviceBuffer& buffer, std::size_t need, const char* what) {
    if (buffer.size() >= need) return;
    const std::size_t roomy = std::max<std::size_t>(need, buffer.size() * 5 / 4);
    buffer = DeviceBuffer();
    try {
        buffer = DeviceBuffer(roomy, what);
    } catch (const CudaError& e) {
        if (e.result() != CUDA_ERROR_OUT_OF_MEMORY || roomy == need) throw;
        buffer = DeviceBuffer(need, what);
    }
}

void grow_transfer(TransferBuffer& buffer, std::size_t need, const char* what) {
    if (buffer.size() >= need) return;
    const std::size_t grown = std::max<std::size_t>(need, buffer.size() * 5 / 4);
    buffer = TransferBuffer();
    buffer = TransferBuffer(grown, what);
}

}  // namespace bslz4::cuda::detail
