#include "frame_faults.hpp"

#include <vector>

#include "bslz4/chunk_header.hpp"
#include "bslz4/decode.hpp"
#include "bslz4/error.hpp"

namespace bslz4::cuda::detail {

namespace {

std::string fault_name(std::uint32_t code) {
    switch (code) {
        case abi::kChunkShort: return "chunk shorter than the 12-byte header";
        case abi::kSizeMismatch: return "decoded size is not the frame size";
        case abi::kBlockSize: return "block size is not 8192 bytes";
        case abi::kBlockPastEnd: return "a block runs past the end of the chunk";
        case abi::kTailShort: return "the raw tail is cut off";
        case abi::kLeftover: return "bytes left over after the last block";
        case abi::kBlockTooLong: return "compressed block longer than any LZ4 block of 8192 bytes";
        case abi::kLz4Truncated: return "LZ4 block truncated inside a sequence";
        case abi::kLz4BadOffset: return "LZ4 match offset before the start of the block";
        case abi::kLz4TooMany: return "LZ4 block decodes to more than 8192 bytes";
        case abi::kLz4TooFew: return "LZ4 block decodes to too few bytes";
        case abi::kLz4EndOfBlock: return "LZ4 match in the block's last 12 bytes, or ending in its last 5";
    }
    return "fault code " + std::to_string(code);
}

}  // namespace

std::string FrameFaults::cpu_rejection(ByteView chunk) const {
    try {
        block_starts(chunk, format_.bpp, format_.frame_bytes());
        std::vector<std::uint8_t> scratch(format_.frame_bytes());
        decode_chunk_into(chunk, format_.bpp, Codec::lz4, scratch.data(), scratch.size());
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

std::string FrameFaults::describe(std::uint32_t status, ByteView chunk) const {
    // The CPU decoder names the fault exactly; the GPU's code is the fallback.
    std::string cpu = cpu_rejection(chunk);
    if (!cpu.empty()) return cpu;
    const std::uint32_t block = status >> 8;
    return (block ? "block " + std::to_string(block - 1) + ": " : std::string()) + fault_name(status & 0xFF) +
           " (found by the GPU; the CPU decoder accepts this chunk)";
}

void FrameFaults::refuse(std::size_t first, std::size_t bad, const std::string& why, ChunkSource chunks) const {
    for (std::size_t f = first; f < bad; ++f) {
        const std::string earlier = cpu_rejection(chunks(f));
        if (!earlier.empty()) throw Error("frame " + std::to_string(f) + ": " + earlier);
    }
    throw Error("frame " + std::to_string(bad) + ": " + why);
}

void FrameFaults::check_before_upload(std::size_t first, std::size_t count, ChunkSource chunks) const {
    for (std::size_t k = 0; k < count; ++k) {
        const ByteView c = chunks(first + k);
        std::uint32_t field = 0;
        if (c.size >= kChunkHeaderBytes)
            field = (std::uint32_t{c.data[8]} << 24) | (std::uint32_t{c.data[9]} << 16) | (std::uint32_t{c.data[10]} << 8) |
                    c.data[11];
        const bool other_blocks = field != 0 && field != abi::kBlockBytes;
        if (!other_blocks && c.size <= format_.max_chunk_bytes) continue;
        std::string why = cpu_rejection(c);
        if (why.empty() && other_blocks)
            why = "block size " + std::to_string(field) +
                  " bytes; the GPU decodes 8192-byte blocks only: use bslz4::Chunk2Sparse (CPU)";
        if (why.empty())
            why = "chunk of " + std::to_string(c.size) + " bytes, longer than any chunk of one frame (" +
                  std::to_string(format_.max_chunk_bytes) + " bytes)";
        refuse(first, first + k, why, chunks);
    }
}

}  // namespace bslz4::cuda::detail
