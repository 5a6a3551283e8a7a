// zstd chunks made into lz4 chunks the GPU decodes (the seed's porting note: zstd on the CPU,
// the rest on the GPU). Each zstd block is decompressed on the host by the CPU decoder's zstd
// (block_codec.hpp), several threads to a group and to a frame, straight into pinned staging,
// where it becomes an LZ4 block of literals only (one sequence: a token, its literal length,
// the bytes); the chunk's header and raw tail are copied as they are. The upload, the block
// walk, the kernels (bit unshuffle, cut, lists, matrix product) and the collection then take
// it as any lz4 chunk. Every restaged chunk of a frame has the same layout and length, set by
// the frame alone: no header or length field of a chunk sizes anything.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "chunk_source.hpp"
#include "frame_faults.hpp"
#include "frame_format.hpp"
#include "thread_pool.hpp"

namespace bslz4::cuda::detail {

class ZstdRestaging {
public:
    ZstdRestaging(const FrameFormat& format, const FrameFaults& faults, bslz4::detail::ThreadPool& threads);

    // The length of every restaged chunk: the header, each block's length field, token, length
    // bytes and literals, and the raw tail. At most FrameFormat::max_chunk_bytes (literals only
    // are within LZ4's bound).
    std::size_t chunk_bytes() const { return chunk_bytes_; }

    // A frame the CPU decoder refuses, with its verdict.
    struct Refusal {
        std::size_t frame;
        Verdict verdict;
    };

    // Restages chunks first .. first + count (checked by FrameFaults::before_upload) into `to`,
    // chunk k at to + offs[k] with chunk_bytes() of room, and sets lens[k]. A chunk that does
    // not decode is staged empty (length 0), which the kernels skip, and listed in refused()
    // with the CPU decoder's verdict, in frame order.
    void restage(std::size_t first, std::size_t count, ChunkSource chunks, std::uint8_t* to, const std::uint64_t* offs,
                 std::uint64_t* lens);
    const std::vector<Refusal>& refused() const { return refused_; }

private:
    // Blocks b0 .. b1 of the group's chunk k, decompressed by one thread.
    struct Piece {
        std::size_t k, b0, b1;
    };
    // Checks chunk k's layout as the CPU decoder does and writes everything of its restaged
    // chunk but the literals; keeps where its blocks are. Returns whether it may be restaged.
    bool lay_out(std::size_t k, ByteView chunk, std::uint8_t* out);
    void decompress(const Piece& p, ChunkSource chunks, std::size_t first, std::uint8_t* to, const std::uint64_t* offs,
                    Verdict& fault) const;

    const FrameFormat& format_;
    const FrameFaults& faults_;
    bslz4::detail::ThreadPool& threads_;
    std::size_t chunk_bytes_;
    // Kept between calls: no allocation a call once the largest group has been seen.
    std::vector<std::vector<std::uint64_t>> starts_;  // each chunk's block offsets (its length fields)
    std::vector<char> laid_;                           // whether lay_out took each chunk
    std::vector<Verdict> frame_faults_;                // why a chunk was not restaged
    std::vector<Piece> pieces_;
    std::vector<Verdict> piece_faults_;
    std::vector<Refusal> refused_;
};

}  // namespace bslz4::cuda::detail
