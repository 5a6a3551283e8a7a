#include "bslz4/chunk_header.hpp"

#include <string>
#include <vector>

#include "big_endian.hpp"
#include "bslz4/error.hpp"

namespace bslz4 {

namespace {
std::string str(std::uint64_t v) { return std::to_string(v); }
}  // namespace

std::size_t default_block_elems(std::size_t elem_size) {
    constexpr std::size_t kMinBlockElems = 128;
    std::size_t n = kDefaultBlockBytes / elem_size;
    n -= n % kBitshuffleGroup;
    return n < kMinBlockElems ? kMinBlockElems : n;
}

ChunkHeader parse_chunk_header(ByteView chunk, std::size_t elem_size) {
    if (elem_size == 0 || elem_size > 16)
        throw Error(ErrorCode::bad_argument, "element size " + str(elem_size) + " is not supported (1 to 16 bytes)");
    if (chunk.size == 0) throw Error(ErrorCode::truncated_chunk, "empty chunk (no bitshuffle header)");
    if (chunk.size < kChunkHeaderBytes)
        throw Error(ErrorCode::truncated_chunk,
                    "chunk of " + str(chunk.size) + " bytes is shorter than the 12-byte bitshuffle header");
    ChunkHeader h;
    h.elem_size = elem_size;
    h.decoded_bytes = detail::load_be64(chunk.data);
    h.block_bytes_field = detail::load_be32(chunk.data + 8);
    if (h.decoded_bytes % elem_size != 0)
        throw Error(ErrorCode::bad_header, "header's decoded size " + str(h.decoded_bytes) +
                                               " bytes is not a multiple of the element size " + str(elem_size));
    if (h.block_bytes_field == 0) {
        h.block_elems = default_block_elems(elem_size);
    } else {
        if (h.block_bytes_field % (kBitshuffleGroup * elem_size) != 0)
            throw Error(ErrorCode::bad_header, "header's block size " + str(h.block_bytes_field) +
                                                   " bytes is not a multiple of 8 x " + str(elem_size) +
                                                   "-byte elements");
        h.block_elems = h.block_bytes_field / elem_size;
    }
    return h;
}

// What a wrong decoded size can mean, for its message: the frame's pixels at another pixel
// size (the wrong pixel type), or another number of this type's pixels (the wrong frame or
// mask shape); both where both fit.
static std::string size_mistake(std::uint64_t decoded, std::uint64_t expected, std::size_t elem_size) {
    const std::uint64_t npix = expected / elem_size;
    std::vector<std::string> reads;
    if (npix && decoded % npix == 0) {
        const std::uint64_t bytes = decoded / npix;
        if (bytes == 1 || bytes == 2 || bytes == 4 || bytes == 8)
            reads.push_back("the frame's " + str(npix) + " pixels of " + str(bytes) + " bytes (is the pixel type, of " +
                            str(elem_size) + ", right?)");
    }
    if (decoded % elem_size == 0)
        reads.push_back(str(decoded / elem_size) + " pixels of " + str(elem_size) + " bytes, the frame (its mask) " +
                        str(npix) + " (is the frame's shape right?)");
    if (reads.empty()) return "";
    return " (it holds " + reads[0] + (reads.size() > 1 ? ", or " + reads[1] : std::string()) + ")";
}

BlockLayout block_starts(ByteView chunk, std::size_t elem_size, std::uint64_t expected_bytes) {
    BlockLayout layout;
    layout.header = parse_chunk_header(chunk, elem_size);
    const ChunkHeader& h = layout.header;
    if (expected_bytes != 0 && h.decoded_bytes != expected_bytes)
        throw Error(ErrorCode::wrong_decoded_size, "header's decoded size " + str(h.decoded_bytes) +
                                                       " bytes is not the frame size " + str(expected_bytes) +
                                                       " bytes" + size_mistake(h.decoded_bytes, expected_bytes, elem_size));
    // Every block takes at least its 4-byte length and one byte of data, so a header claiming
    // more blocks than the chunk can hold is refused before anything is allocated.
    const std::uint64_t n = h.decoded_bytes / elem_size;
    const std::uint64_t shuffled = n - n % kBitshuffleGroup;
    const std::uint64_t full_blocks = shuffled / h.block_elems;
    const std::uint64_t last = shuffled % h.block_elems;
    const std::uint64_t nblocks = full_blocks + (last ? 1 : 0);
    if (nblocks > (chunk.size - kChunkHeaderBytes) / (kBlockHeaderBytes + 1))
        throw Error(ErrorCode::bad_header, "header claims " + str(h.decoded_bytes) + " bytes in " + str(nblocks) +
                                               " blocks, more than a " + str(chunk.size) + "-byte chunk can hold");
    layout.starts.reserve(static_cast<std::size_t>(nblocks));
    layout.last_block_elems = static_cast<std::size_t>(last ? last : full_blocks ? h.block_elems : 0);
    std::uint64_t pos = kChunkHeaderBytes;
    for (std::uint64_t b = 0; b < nblocks; ++b) {
        if (chunk.size - pos < kBlockHeaderBytes)
            throw Error(ErrorCode::truncated_chunk, "chunk truncated: block " + str(b) + " of " + str(nblocks) +
                                                        " needs its 4-byte length at offset " + str(pos) +
                                                        ", chunk ends at " + str(chunk.size));
        const std::uint32_t len = detail::load_be32(chunk.data + pos);
        if (len > chunk.size - pos - kBlockHeaderBytes)
            throw Error(ErrorCode::bad_block_length,
                        "block " + str(b) + " of " + str(nblocks) + " at offset " + str(pos) + " claims " + str(len) +
                            " compressed bytes, past the end of the " + str(chunk.size) + "-byte chunk");
        layout.starts.push_back(pos);
        pos += kBlockHeaderBytes + len;
    }
    layout.tail_offset = pos;
    layout.tail_elems = static_cast<std::size_t>(n % kBitshuffleGroup);
    const std::uint64_t tail_bytes = layout.tail_elems * elem_size;
    const std::uint64_t left = chunk.size - pos;
    if (left < tail_bytes)
        throw Error(ErrorCode::truncated_chunk, "chunk truncated: the last " + str(layout.tail_elems) +
                                                    " raw elements need " + str(tail_bytes) + " bytes at offset " +
                                                    str(pos) + ", only " + str(left) + " left");
    if (left > tail_bytes)
        throw Error(ErrorCode::bad_block_length,
                    str(left - tail_bytes) + " bytes left over after the last block (chunk of " + str(chunk.size) +
                        " bytes, data ends at " + str(pos + tail_bytes) + ")");
    return layout;
}

}  // namespace bslz4
