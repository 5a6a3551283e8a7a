// Where things lie in a valid chunk, for the tests that damage one at chosen places (a block's
// length field, the raw tail, an LZ4 match's offset), and the GPU options that report bad frames.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"

namespace bslz4::test {

inline std::uint32_t load_be32(const std::vector<std::uint8_t>& c, std::size_t at) {
    return (std::uint32_t{c[at]} << 24) | (std::uint32_t{c[at + 1]} << 16) | (std::uint32_t{c[at + 2]} << 8) | c[at + 3];
}

// Where things are in a valid chunk: each block's length field, the raw tail, and every LZ4
// match's 2-byte offset with the bytes its block has decoded before it.
struct ChunkMap {
    struct Match {
        std::size_t at, op;
    };
    std::vector<std::size_t> starts;
    std::size_t tail = 0;
    std::vector<std::vector<Match>> matches;
    std::size_t block_end(std::size_t b) const { return b + 1 < starts.size() ? starts[b + 1] : tail; }
};

inline ChunkMap map_chunk(const std::vector<std::uint8_t>& c, std::size_t bpp) {
    const BlockLayout layout = block_starts(c, bpp);
    ChunkMap m{{}, static_cast<std::size_t>(layout.tail_offset), {}};
    m.starts.assign(layout.starts.begin(), layout.starts.end());
    for (std::size_t start : m.starts) {
        std::vector<ChunkMap::Match> found;
        std::size_t ip = start + 4, op = 0;
        const std::size_t end = ip + load_be32(c, start);
        auto extend = [&](std::size_t& n) {
            if (n != 15) return;
            for (std::uint8_t b = 255; b == 255; n += b) b = c[ip++];
        };
        while (ip < end) {
            const std::uint8_t token = c[ip++];
            std::size_t lit = token >> 4;
            extend(lit);
            ip += lit;
            op += lit;
            if (ip >= end) break;
            found.push_back({ip, op});
            ip += 2;
            std::size_t match = token & 15;
            extend(match);
            op += match + 4;
        }
        m.matches.push_back(found);
    }
    return m;
}

// The options with OnError::report: bad frames reported, not thrown.
inline cuda::Chunk2SparseOptions reporting(cuda::Chunk2SparseOptions o) {
    o.on_error = OnError::report;
    return o;
}

}  // namespace bslz4::test
