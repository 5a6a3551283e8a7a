// Chunk2Sparse on the CPU: bitshuffle chunks of (ni, nj) frames -> the pixels above a cut
// that the mask allows. Same call API as the GPU class (bslz4::cuda::Chunk2Sparse).
//
// Threads: one object takes one call at a time. A call from a second thread while one runs
// throws Error (bad_argument: "... is in a call on another thread"), never a race on the object's
// buffers: a call's results are views of them, valid until the object's next call. The same
// thread may make calls from within a call. Objects are independent: one a thread run at once.
#pragma once
#include "bslz4/export.h"
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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

// The most threads a CPU class starts (Chunk2SparseOptions::threads; more is a bad_argument
// Error). Fixed, not a multiple of this host's CPUs, so that options valid on one node are valid
// on every node; 1024 is above the logical CPUs of the largest two-socket hosts (768), and each
// thread beyond the CPUs only shares them while it holds a stack and a block buffer.
constexpr unsigned kMaxThreads = 1024;

struct Chunk2SparseOptions {
    Codec codec = Codec::lz4;
    // Frames decoded at once by multi / from_buffer, at most kMaxThreads; 0: every CPU the
    // process may use (bslz4::usable_cpu_count).
    unsigned threads = 0;
    // A bad frame in multi / from_buffer / from_frames: throw (default) or report it in the
    // batch and return the others. operator() and coo always throw.
    OnError on_error = OnError::throw_first;
    // Top pixels, as set_top_pixels(howmany, thresholds) below.
    std::optional<std::size_t> howmany = std::nullopt;
    std::optional<std::vector<double>> thresholds = std::nullopt;
};

// What set_top_pixels checks of a threshold list (at most 16 values, sorted increasing, none
// NaN): an Error (bad_argument) naming the values, so a command line can refuse it up front.
BSLZ4_API void check_top_pixel_thresholds(const std::vector<double>& thresholds);

class BSLZ4_API Chunk2Sparse {
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
    // The same, the lists written into the caller's rows (ListRows, sparse_result.hpp) rather
    // than into this object's buffers: no copy to make of them afterwards.
    SparseBatch multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into);
    SparseBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                            const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into);
    CooFrame coo(ByteView chunk, double cut);
    // Dense frames (ni*nj pixels each) instead of chunks.
    SparseBatch from_frames(const std::vector<ByteView>& frames, double cut);

    // At most `howmany` pixels a frame (the seed's howmany / thresholds, ImageD11's top_pixels),
    // from the next call on. howmany nullopt, or a frame with at most howmany pixels above the
    // cut: every pixel above the cut (as without). Otherwise the frame keeps the pixels above the
    // first of `thresholds` that fewer than howmany pixels exceed (else above the last), then at
    // most the first howmany of those in pixel order (not the brightest). thresholds nullopt (not
    // given; note that a bare `{}` argument is nullopt too): max(cut, 1) * 2**i for i = 0..15;
    // an empty list given (std::vector<double>{}): simply the first howmany above the cut. At
    // most 16 values, sorted increasing, none NaN, else an Error (bad_argument) naming them.
    // Each frame's resulting cut and count before truncation: SparseFrame / SparseBatch
    // last_cut and last_nabove.
    void set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds = std::nullopt);

    std::size_t ni() const;
    std::size_t nj() const;
    PixelType pixel_type() const;
    unsigned threads() const;

private:
    std::unique_ptr<detail::SparseEngine> state_;
};

}  // namespace bslz4
