#include "bslz4/encode.hpp"

#include <algorithm>
#include <string>

#include "big_endian.hpp"
#include "bitshuffle.hpp"
#include "block_codec.hpp"
#include "bslz4/chunk_header.hpp"
#include "bslz4/error.hpp"

namespace bslz4 {

namespace {
// Spare room a returned chunk may keep: more than a list chunk's whole size (the sparse
// writer's are 32 kB), so that those, coded and written at once, are never copied.
constexpr std::size_t kMostSpareBytes = std::size_t{1} << 20;
}  // namespace

std::vector<std::uint8_t> encode_chunk(ByteView raw, std::size_t elem_size, const EncodeOptions& options) {
    if (elem_size == 0 || elem_size > 16)
        throw Error(ErrorCode::bad_argument,
                    "element size " + std::to_string(elem_size) + " is not supported (1 to 16 bytes)");
    if (raw.size % elem_size != 0)
        throw Error(ErrorCode::bad_argument, "input of " + std::to_string(raw.size) +
                                                 " bytes is not a whole number of " + std::to_string(elem_size) +
                                                 "-byte elements");
    std::size_t block_elems = default_block_elems(elem_size);
    if (options.block_bytes != 0) {
        if (options.block_bytes % (kBitshuffleGroup * elem_size) != 0)
            throw Error(ErrorCode::bad_argument, "block size " + std::to_string(options.block_bytes) +
                                                     " bytes is not a multiple of 8 x " + std::to_string(elem_size) +
                                                     "-byte elements");
        block_elems = options.block_bytes / elem_size;
    }
    const std::uint64_t block_field = std::uint64_t{block_elems} * elem_size;
    if (block_field > 0xFFFFFFFFu) throw Error(ErrorCode::bad_argument, "block size does not fit the header's 32 bits");

    const std::size_t n = raw.size / elem_size;
    std::vector<std::uint8_t> out(kChunkHeaderBytes);
    // Room for every block at its codec's bound (both under n + n/128 + 128 bytes), so that
    // appending the blocks never moves what is already coded: a hint, not a limit.
    const std::size_t blocks = n / block_elems + 1;
    out.reserve(kChunkHeaderBytes + raw.size + raw.size / 128 + blocks * (kBlockHeaderBytes + 128));
    detail::store_be64(out.data(), raw.size);
    detail::store_be32(out.data() + 8, static_cast<std::uint32_t>(block_field));

    const std::size_t shuffled = n - n % kBitshuffleGroup;
    // A block is never larger than the frame, whatever block size was asked for.
    const std::size_t largest = std::min(block_elems, shuffled);
    std::vector<std::uint8_t> planes(largest * elem_size), scratch(largest * elem_size);
    for (std::size_t first = 0; first < shuffled; first += block_elems) {
        const std::size_t count = std::min(block_elems, shuffled - first);
        detail::bit_shuffle(raw.data + first * elem_size, planes.data(), count, elem_size, scratch.data());
        const std::size_t at = out.size();
        out.resize(at + kBlockHeaderBytes);
        detail::compress_block(options.codec, planes.data(), count * elem_size, options.zstd_level, out);
        detail::store_be32(out.data() + at, static_cast<std::uint32_t>(out.size() - at - kBlockHeaderBytes));
    }
    out.insert(out.end(), raw.data + shuffled * elem_size, raw.data + raw.size);
    // The room reserved is about the frame's size, and a chunk kept (a stack of frames) would
    // hold it: give back what is over a small chunk's size, a copy of the coded bytes.
    if (out.capacity() - out.size() > kMostSpareBytes) out.shrink_to_fit();
    return out;
}

}  // namespace bslz4
