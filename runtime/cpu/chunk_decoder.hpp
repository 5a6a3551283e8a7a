// Decodes a validated chunk one block at a time, so a caller can consume each block while it
// is still in L1 (the sparse path) or write it straight into a dense frame.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/chunk_header.hpp"
#include "bslz4/codec.hpp"
#include "plane_collect.hpp"

namespace bslz4::detail {

// Per-thread work space: the decompressed planes of one block (with kPlaneSlack bytes after
// them, which the plane collect may read) and the unshuffle rows.
struct BlockScratch {
    std::vector<std::uint8_t> planes;
    std::vector<std::uint8_t> rows;
    void reserve(std::size_t block_bytes) {
        if (planes.size() < block_bytes + kPlaneSlack) planes.resize(block_bytes + kPlaneSlack);
        if (rows.size() < block_bytes) rows.resize(block_bytes);
    }
};

class ChunkDecoder {
public:
    ChunkDecoder(ByteView chunk, std::size_t elem_size, Codec codec, std::uint64_t expected_bytes = 0);

    const BlockLayout& layout() const { return layout_; }
    std::size_t n_elems() const { return layout_.header.n_elems(); }
    // First element of block b.
    std::size_t block_first(std::size_t b) const { return b * layout_.header.block_elems; }

    // Decodes block b (layout().block_elems(b) elements) into dst. Errors name the block.
    void decode_block(std::size_t b, BlockScratch& scratch, std::uint8_t* dst) const;
    // Decompresses block b into scratch.planes, left bit-shuffled; returns scratch.planes.data().
    const std::uint8_t* decode_planes(std::size_t b, BlockScratch& scratch) const;
    // The raw last (n mod 8) elements, copied to dst.
    void copy_tail(std::uint8_t* dst) const;

    // The most bytes for_each_block hands its sink at once, the size its buffer needs: the
    // largest block or the tail, bounded by the frame (not by the header's block size).
    std::size_t buffer_bytes() const;

    // Calls sink(first_element, pixels, count) for every block and the tail, in order.
    template <class Sink>
    void for_each_block(BlockScratch& scratch, std::uint8_t* buffer, Sink&& sink) const {
        for (std::size_t b = 0; b < layout_.n_blocks(); ++b) {
            decode_block(b, scratch, buffer);
            sink(block_first(b), buffer, layout_.block_elems(b));
        }
        if (layout_.tail_elems) {
            copy_tail(buffer);
            sink(n_elems() - layout_.tail_elems, buffer, layout_.tail_elems);
        }
    }

private:
    ByteView chunk_;
    Codec codec_;
    BlockLayout layout_;
};

}  // namespace bslz4::detail
