// One compressed block of a chunk <-> its bit-shuffled bytes, for either codec. Decoding
// throws Error saying what was wrong with the block (the caller adds which block and frame).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"

namespace bslz4::detail {

// The most bytes src can decode to, read from its own bytes: a bound for LZ4 (each input
// byte adds at most 255 output bytes), the frame's content size for zstd when it records one.
std::uint64_t max_decoded_bytes(Codec codec, ByteView src);

// Decodes src into exactly `expected` bytes at dst.
void decompress_block(Codec codec, ByteView src, std::uint8_t* dst, std::size_t expected);

// The two codecs behind decompress_block / compress_block.
std::uint64_t max_decoded_lz4(ByteView src);
std::uint64_t max_decoded_zstd(ByteView src);
void decompress_lz4(ByteView src, std::uint8_t* dst, std::size_t expected);
void decompress_zstd(ByteView src, std::uint8_t* dst, std::size_t expected);
void compress_lz4(const std::uint8_t* src, std::size_t n, std::vector<std::uint8_t>& out);
void compress_zstd(const std::uint8_t* src, std::size_t n, int level, std::vector<std::uint8_t>& out);

// Appends the compressed block to out (without the 4-byte length).
void compress_block(Codec codec, const std::uint8_t* src, std::size_t n, int level, std::vector<std::uint8_t>& out);

// When a block refused as `codec` looks like the other codec's (a zstd frame's magic number
// first, or its absence), " (... decode it with the X codec)" for the message, in no one
// interface's words (the CLI's --codec, Python's codec=, C++'s Codec); else "".
std::string wrong_codec_hint(Codec codec, ByteView src);

// Why decompress_lz4 refused a block: walks its sequences with every bound and rule checked (the
// list in lz4_block.cpp) and names the first fault (truncated sequence, offset 0 or before the
// start, a match in the block's last 12 or 5 bytes, output too long or too short).
std::string explain_lz4_failure(ByteView src, std::size_t expected);

}  // namespace bslz4::detail
