#include "frame_faults.hpp"

#include <vector>

#include "bslz4/chunk_header.hpp"
#include "bslz4/decode.hpp"

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

ErrorCode fault_code(std::uint32_t status) {
    switch (status & 0xFF) {
        case abi::kChunkShort:
        case abi::kTailShort: return ErrorCode::truncated_chunk;
        case abi::kSizeMismatch: return ErrorCode::wrong_decoded_size;
        case abi::kBlockSize: return ErrorCode::bad_argument;  // a valid chunk the GPU does not decode
        case abi::kBlockPastEnd:
        case abi::kLeftover: return ErrorCode::bad_block_length;
        case abi::kBlockTooLong:
        case abi::kLz4Truncated:
        case abi::kLz4BadOffset:
        case abi::kLz4TooMany:
        case abi::kLz4TooFew:
        case abi::kLz4EndOfBlock: return ErrorCode::bad_lz4_sequence;
    }
    return ErrorCode::gpu_fault;
}

std::string frame_message(std::size_t frame, const Verdict& v) { return "frame " + std::to_string(frame) + ": " + v.message; }

Verdict FrameFaults::cpu_verdict(ByteView chunk) const {
    try {
        block_starts(chunk, format_.bpp, format_.frame_bytes());
        std::vector<std::uint8_t> scratch(format_.frame_bytes());
        decode_chunk_into(chunk, format_.bpp, codec_, scratch.data(), scratch.size());
    } catch (const Error& e) {
        return {e.code(), e.what()};
    }
    return {};
}

Verdict FrameFaults::describe(std::uint32_t status, ByteView chunk) const {
    // The CPU decoder names the fault exactly; the GPU's code is the fallback.
    Verdict cpu = cpu_verdict(chunk);
    if (!cpu.ok()) return cpu;
    // What the host refuses before upload, when the chunk was not screened (read on the device).
    Verdict host = before_upload(chunk);
    if (!host.ok()) return host;
    const std::uint32_t block = status >> 8;
    return {ErrorCode::gpu_fault, (block ? "block " + std::to_string(block - 1) + ": " : std::string()) +
                                      fault_name(status & 0xFF) + " (found by the GPU; the CPU decoder accepts this chunk)"};
}

void FrameFaults::refuse(std::size_t first, std::size_t bad, const Verdict& why, ChunkSource chunks) const {
    for (std::size_t f = first; f < bad; ++f) {
        const Verdict earlier = cpu_verdict(chunks(f));
        if (!earlier.ok()) throw Error(earlier.code, frame_message(f, earlier));
    }
    throw Error(why.code, frame_message(bad, why));
}

Verdict FrameFaults::before_upload(ByteView c) const {
    std::uint32_t field = 0;
    if (c.size >= kChunkHeaderBytes)
        field = (std::uint32_t{c.data[8]} << 24) | (std::uint32_t{c.data[9]} << 16) | (std::uint32_t{c.data[10]} << 8) |
                c.data[11];
    const bool other_blocks = field != 0 && field != abi::kBlockBytes;
    const bool too_long = codec_ == Codec::lz4 && c.size > format_.max_chunk_bytes;
    if (!other_blocks && !too_long) return {};
    Verdict why = cpu_verdict(c);
    if (why.ok() && other_blocks)
        why = {fault_code(abi::kBlockSize), "block size " + std::to_string(field) +
                                                " bytes; the GPU decodes 8192-byte blocks only: use bslz4::Chunk2Sparse (CPU)"};
    // Never reached while the CPU refuses every chunk longer than its frame's bound.
    if (why.ok())
        why = {ErrorCode::gpu_fault, "chunk of " + std::to_string(c.size) + " bytes, longer than any chunk of one frame (" +
                                         std::to_string(format_.max_chunk_bytes) + " bytes)"};
    return why;
}

void FrameFaults::check_before_upload(std::size_t first, std::size_t count, ChunkSource chunks) const {
    for (std::size_t k = 0; k < count; ++k) {
        const Verdict v = before_upload(chunks(first + k));
        if (!v.ok()) refuse(first, first + k, v, chunks);
    }
}

}  // namespace bslz4::cuda::detail
