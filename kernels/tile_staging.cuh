// Where the decode kernel leaves the pixels it lists. A tile's listed pixels (above the cut,
// allowed by the mask) are known while the decode warp holds them in registers, so it writes
// up to kStagedPerTile of them, in pixel order, into the tile's staging slots, and the write
// kernel only copies them into the frame's list: the dense frame is neither written nor read
// again. A tile with more (a bright spot), or one not decoded 32 pixels a lane (a short last
// block, the raw tail), is listed by the write kernel from the dense frame, which the decode
// kernel then writes for that tile.
#pragma once
#include "kernel_abi.h"

namespace bslz4_kernels {

__device__ inline unsigned tile_elems(const bslz4_abi::FrameGeometry& g, uint32_t tile) {
    return tile + 1 == g.n_blocks ? g.last_block_elems : g.block_elems;
}

__device__ inline bool tile_is_staged(const bslz4_abi::FrameGeometry& g, uint32_t tile, uint32_t count) {
    return tile < g.n_blocks && tile_elems(g, tile) % 32 == 0 && count <= bslz4_abi::kStagedPerTile;
}

// The first staging slot of a tile of frame `local` of the batch.
__device__ inline uint64_t tile_stage_at(const bslz4_abi::FrameGeometry& g, uint32_t local, uint32_t tile) {
    return (uint64_t(local) * g.n_tiles + tile) * bslz4_abi::kStagedPerTile;
}

}  // namespace bslz4_kernels
