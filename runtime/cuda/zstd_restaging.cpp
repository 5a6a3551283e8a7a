#include "zstd_restaging.hpp"

#include <algorithm>
#include <cstring>

#include "big_endian.hpp"
#include "block_codec.hpp"
#include "bslz4/chunk_header.hpp"
#include "bslz4/error.hpp"
#include "chunk_decoder.hpp"

namespace bslz4::cuda::detail {

namespace {

// Blocks a thread decompresses at a time: 256 kB of output, so one frame is shared out too.
constexpr std::size_t kBlocksPerPiece = 32;

// LZ4's literal length: 15 in the token, then 255s and a last byte for the rest.
constexpr std::size_t kRunMask = 15;
std::size_t literal_length_bytes(std::size_t n) { return n < kRunMask ? 0 : (n - kRunMask) / 255 + 1; }
// An LZ4 block of n literal bytes: its token, length bytes and the literals.
std::size_t literal_block_bytes(std::size_t n) { return 1 + literal_length_bytes(n) + n; }

// Writes the token and length bytes of a block of n literals; returns where the literals go.
std::uint8_t* put_literal_length(std::uint8_t* p, std::size_t n) {
    if (n < kRunMask) {
        *p++ = static_cast<std::uint8_t>(n << 4);
        return p;
    }
    *p++ = static_cast<std::uint8_t>(kRunMask << 4);
    std::size_t rest = n - kRunMask;
    for (; rest >= 255; rest -= 255) *p++ = 255;
    *p++ = static_cast<std::uint8_t>(rest);
    return p;
}

}  // namespace

ZstdRestaging::ZstdRestaging(const FrameFormat& format, const FrameFaults& faults, bslz4::detail::ThreadPool& threads)
    : format_(format), faults_(faults), threads_(threads) {
    const abi::FrameGeometry& g = format_.geometry;
    chunk_bytes_ = kChunkHeaderBytes + std::size_t{g.tail_elems} * format_.bpp;
    for (std::size_t b = 0; b < g.n_blocks; ++b)
        chunk_bytes_ += kBlockHeaderBytes + literal_block_bytes(std::size_t{b + 1 == g.n_blocks ? g.last_block_elems : g.block_elems} * format_.bpp);
}

bool ZstdRestaging::lay_out(std::size_t k, ByteView chunk, std::uint8_t* out) {
    const abi::FrameGeometry& g = format_.geometry;
    try {
        // The CPU decoder's checks of the header, the block lengths and each block's bound.
        const bslz4::detail::ChunkDecoder decoder(chunk, format_.bpp, Codec::zstd, format_.frame_bytes());
        const BlockLayout& layout = decoder.layout();
        if (layout.n_blocks() != g.n_blocks || (g.n_blocks > 1 && layout.header.block_elems != g.block_elems)) {
            // Refused before upload already (other than 8 kB blocks); never restaged by another layout.
            const Verdict v = faults_.before_upload(chunk);
            frame_faults_[k] = v.ok() ? Verdict{ErrorCode::gpu_fault, "blocks other than the GPU's 8192-byte blocks"} : v;
            return false;
        }
        std::memcpy(out, chunk.data, kChunkHeaderBytes);
        std::uint8_t* p = out + kChunkHeaderBytes;
        for (std::size_t b = 0; b < g.n_blocks; ++b) {
            const std::size_t bytes = layout.block_elems(b) * format_.bpp;
            bslz4::detail::store_be32(p, static_cast<std::uint32_t>(literal_block_bytes(bytes)));
            p = put_literal_length(p + kBlockHeaderBytes, bytes) + bytes;
        }
        if (layout.tail_elems) std::memcpy(p, chunk.data + layout.tail_offset, layout.tail_elems * format_.bpp);
        starts_[k].assign(layout.starts.begin(), layout.starts.end());
        return true;
    } catch (const Error& e) {
        frame_faults_[k] = {e.code(), e.what()};
        return false;
    }
}

void ZstdRestaging::decompress(const Piece& p, ChunkSource chunks, std::size_t first, std::uint8_t* to,
                               const std::uint64_t* offs, Verdict& fault) const {
    const abi::FrameGeometry& g = format_.geometry;
    const ByteView chunk = chunks(first + p.k);
    const std::size_t full = literal_block_bytes(std::size_t{g.block_elems} * format_.bpp);
    try {
        for (std::size_t b = p.b0; b < p.b1; ++b) {
            const std::size_t bytes = std::size_t{b + 1 == g.n_blocks ? g.last_block_elems : g.block_elems} * format_.bpp;
            const std::uint64_t at = starts_[p.k][b];
            const ByteView src(chunk.data + at + kBlockHeaderBytes, bslz4::detail::load_be32(chunk.data + at));
            // Every block before b is a full one: b's literals start at a fixed place.
            std::uint8_t* literals = to + offs[p.k] + kChunkHeaderBytes + b * (kBlockHeaderBytes + full) + kBlockHeaderBytes +
                                     1 + literal_length_bytes(bytes);
            bslz4::detail::decompress_block(Codec::zstd, src, literals, bytes);
        }
    } catch (const Error& e) {
        fault = {e.code(), e.what()};
    }
}

void ZstdRestaging::restage(std::size_t first, std::size_t count, ChunkSource chunks, std::uint8_t* to,
                            const std::uint64_t* offs, std::uint64_t* lens) {
    const std::size_t n_blocks = format_.geometry.n_blocks;
    if (starts_.size() < count) starts_.resize(count);
    frame_faults_.assign(count, Verdict{});
    refused_.clear();
    laid_.assign(count, 0);
    threads_.run(count, [&](std::size_t k, unsigned) { laid_[k] = lay_out(k, chunks(first + k), to + offs[k]); });
    pieces_.clear();
    for (std::size_t k = 0; k < count; ++k)
        if (laid_[k])
            for (std::size_t b = 0; b < n_blocks; b += kBlocksPerPiece) pieces_.push_back({k, b, std::min(n_blocks, b + kBlocksPerPiece)});
    piece_faults_.assign(pieces_.size(), Verdict{});
    if (!pieces_.empty())
        threads_.run(pieces_.size(), [&](std::size_t t, unsigned) { decompress(pieces_[t], chunks, first, to, offs, piece_faults_[t]); });
    for (std::size_t t = 0; t < pieces_.size(); ++t)
        if (!piece_faults_[t].ok() && frame_faults_[pieces_[t].k].ok()) frame_faults_[pieces_[t].k] = piece_faults_[t];
    for (std::size_t k = 0; k < count; ++k) {
        if (frame_faults_[k].ok()) {
            lens[k] = chunk_bytes_;
            continue;
        }
        lens[k] = 0;
        // A block's fault alone is not the CPU's message (which names the block, and the first
        // fault in the chunk's order): the CPU decoder's verdict on the whole chunk is.
        Verdict v = faults_.cpu_verdict(chunks(first + k));
        refused_.push_back({first + k, v.ok() ? frame_faults_[k] : v});
    }
}

}  // namespace bslz4::cuda::detail
