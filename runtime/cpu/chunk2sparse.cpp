// Chunk2Sparse on the CPU: the sparse engine with no per-block work.
#include "bslz4/chunk2sparse.hpp"

#include "argument_checks.hpp"
#include "sparse_engine.hpp"

namespace bslz4 {

Chunk2Sparse::Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, Chunk2SparseOptions options)
    : state_(std::make_unique<detail::SparseEngine>(mask, ni, nj, pixel_type, options)) {}
Chunk2Sparse::~Chunk2Sparse() = default;
Chunk2Sparse::Chunk2Sparse(Chunk2Sparse&&) noexcept = default;
Chunk2Sparse& Chunk2Sparse::operator=(Chunk2Sparse&&) noexcept = default;

std::size_t Chunk2Sparse::ni() const { return state_->ni; }
std::size_t Chunk2Sparse::nj() const { return state_->nj; }
PixelType Chunk2Sparse::pixel_type() const { return state_->type; }
unsigned Chunk2Sparse::threads() const { return state_->pool.size(); }

SparseFrame Chunk2Sparse::operator()(ByteView chunk, double cut) {
    detail::SparseEngine& s = *state_;
    std::uint8_t* v = s.values.reserve(s.npix * s.bpp);
    auto* idx = reinterpret_cast<std::uint32_t*>(s.indices.reserve(s.npix * sizeof(std::uint32_t)));
    std::size_t n;
    try {
        n = s.list_chunk(chunk, cut, v, idx, 0);
    } catch (const std::exception& e) {
        throw detail::frame_error(0, e);
    }
    return {n, v, idx, s.type};
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut) {
    return state_->run_batch(chunks.size(), state_->options.on_error,
                             [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
                                 return state_->list_chunk(chunks[f], cut, v, idx, w);
                             });
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    detail::check_buffer_counts(offsets, lengths);
    return state_->run_batch(
        offsets.size(), state_->options.on_error, [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
            return state_->list_chunk(detail::chunk_in_buffer(base, offsets[f], lengths[f]), cut, v, idx, w);
        });
}

SparseBatch Chunk2Sparse::from_frames(const std::vector<ByteView>& frames, double cut) {
    return state_->run_batch(frames.size(), state_->options.on_error,
                             [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
                                 return state_->list_dense(frames[f], cut, v, idx, w);
                             });
}

CooFrame Chunk2Sparse::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), state_->nj); }

}  // namespace bslz4
