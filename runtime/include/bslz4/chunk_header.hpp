// The bitshuffle chunk layout (HDF5 filter 32008), parsed and validated before any byte is
// decoded, so that a lying header can never make the decoder allocate, read or write wrongly.
//
//   u64 BE decoded size in bytes | u32 BE block size in bytes (0: the default)
//   then per block: u32 BE compressed length | compressed block of bit-shuffled elements
//   then the last (n mod 8) elements, raw.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/byte_view.hpp"

namespace bslz4 {

constexpr std::size_t kChunkHeaderBytes = 12;   // u64 size + u32 block size
constexpr std::size_t kBlockHeaderBytes = 4;    // u32 compressed length
constexpr std::size_t kBitshuffleGroup = 8;     // elements are shuffled in groups of 8
constexpr std::size_t kDefaultBlockBytes = 8192;  // bitshuffle's target block size

struct ChunkHeader {
    std::uint64_t decoded_bytes = 0;
    std::uint32_t block_bytes_field = 0;  // as written in the header
    std::size_t elem_size = 0;
    std::size_t block_elems = 0;           // elements in a full block
    std::size_t n_elems() const { return static_cast<std::size_t>(decoded_bytes) / elem_size; }
};

struct BlockLayout {
    ChunkHeader header;
    // Byte offset (in the chunk) of each block's 4-byte length field; blocks are in order.
    std::vector<std::uint64_t> starts;
    // Elements in each block (all block_elems but possibly the last).
    std::size_t last_block_elems = 0;
    std::uint64_t tail_offset = 0;  // where the raw tail elements begin
    std::size_t tail_elems = 0;
    std::size_t n_blocks() const { return starts.size(); }
    std::size_t block_elems(std::size_t b) const {
        return b + 1 == starts.size() ? last_block_elems : header.block_elems;
    }
    // Elements in the largest block actually present: never more than the frame, however large
    // the header's block size (0 without blocks).
    std::size_t largest_block_elems() const {
        return starts.empty() ? 0 : starts.size() == 1 ? last_block_elems : header.block_elems;
    }
};

// bitshuffle's default block: 8192 bytes of elements, rounded down to a multiple of 8, >= 128.
BSLZ4_API std::size_t default_block_elems(std::size_t elem_size);

// Reads and checks the 12-byte header: size a multiple of elem_size, block size a multiple of
// 8 x elem_size. Throws Error saying what was wrong.
BSLZ4_API ChunkHeader parse_chunk_header(ByteView chunk, std::size_t elem_size);

// Walks every block header; checks each length lies inside the chunk and that exactly the raw
// tail is left at the end. expected_bytes (if nonzero) must equal the decoded size.
BSLZ4_API BlockLayout block_starts(ByteView chunk, std::size_t elem_size, std::uint64_t expected_bytes = 0);

}  // namespace bslz4
