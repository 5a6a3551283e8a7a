// Chunk2Sparse on the CPU: bitshuffle chunks of (ni, nj) frames -> the pixels above a cut
// that the mask allows. Same call API as the GPU class (bslz4::cuda::Chunk2Sparse).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "bslz4/byte_view.hpp"
#include "bslz4/codec.hpp"
#include "bslz4/frame_status.hpp"
#include "bslz4/pixel_type.hpp"
#include "bslz4/sparse_result.hpp"

namespace bslz4 {

namespace detail {
class SparseEngine;
}

struct Chunk2SparseOptions {
    Codec codec = Codec::lz4;
    unsigned threads = 0;  // frames decoded at once by multi / from_buffer; 0: all cores
    // A bad frame in multi / from_buffer / from_frames: throw (default) or report it in the
    // batch and return the others. operator() and coo always throw.
    OnError on_error = OnError::throw_first;
};

class Chunk2Sparse {
public:
    // mask: ni*nj bytes, nonzero = use this pixel.
    Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type,
                 Chunk2SparseOptions options = {});
    ~Chunk2Sparse();
    Chunk2Sparse(Chunk2Sparse&&) noexcept;
    Chunk2Sparse& operator=(Chunk2Sparse&&) noexcept;

    // A pixel is listed when mask != 0 and value > cut (exactly; NaN never).
    // Single frames: a bad chunk always throws, its message starting "frame 0: ".
    SparseFrame operator()(ByteView chunk, double cut);
    // Batches: a bad frame throws, or is reported in the batch (options.on_error).
    SparseBatch multi(const std::vector<ByteView>& chunks, double cut);
    SparseBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut);
    CooFrame coo(ByteView chunk, double cut);
    // Dense frames (ni*nj pixels each) instead of chunks.
    SparseBatch from_frames(const std::vector<ByteView>& frames, double cut);

    std::size_t ni() const;
    std::size_t nj() const;
    PixelType pixel_type() const;
    unsigned threads() const;

private:
    std::unique_ptr<detail::SparseEngine> state_;
};

}  // namespace bslz4
