// Chunk2Sparse on the CPU: the sparse engine with no per-block work.
#include "bslz4/chunk2sparse.hpp"

#include "argument_checks.hpp"
#include "call_guard.hpp"
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
    const detail::CallGuard guard(s.caller);
    return s.one_frame(cut, [&](std::uint8_t* v, std::uint32_t* idx) { return s.list_chunk(chunk, cut, v, idx, 0); });
}

void Chunk2Sparse::set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    const detail::CallGuard guard(state_->caller);
    state_->top = detail::TopPixelsRule(howmany, std::move(thresholds));
}

namespace {

SparseBatch multi_into(detail::SparseEngine& s, const std::vector<ByteView>& chunks, double cut, const ListRows* into) {
    return s.run_batch(chunks.size(), cut, s.options.on_error, into,
                       [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
                           return s.list_chunk(chunks[f], cut, v, idx, w);
                       });
}

SparseBatch from_buffer_into(detail::SparseEngine& s, ByteView base, const std::vector<std::uint64_t>& offsets,
                             const std::vector<std::uint64_t>& lengths, double cut, const ListRows* into) {
    detail::check_buffer_counts(offsets, lengths);
    return s.run_batch(offsets.size(), cut, s.options.on_error, into,
                       [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
                           return s.list_chunk(detail::chunk_in_buffer(base, offsets[f], lengths[f]), cut, v, idx, w);
                       });
}

}  // namespace

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut) {
    const detail::CallGuard guard(state_->caller);
    return multi_into(*state_, chunks, cut, nullptr);
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into) {
    const detail::CallGuard guard(state_->caller);
    return multi_into(*state_, chunks, cut, &into);
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    const detail::CallGuard guard(state_->caller);
    return from_buffer_into(*state_, base, offsets, lengths, cut, nullptr);
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into) {
    const detail::CallGuard guard(state_->caller);
    return from_buffer_into(*state_, base, offsets, lengths, cut, &into);
}

SparseBatch Chunk2Sparse::from_frames(const std::vector<ByteView>& frames, double cut) {
    const detail::CallGuard guard(state_->caller);
    return state_->run_batch(frames.size(), cut, state_->options.on_error, nullptr,
                             [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
                                 return state_->list_dense(frames[f], cut, v, idx, w);
                             });
}

CooFrame Chunk2Sparse::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), state_->nj); }

}  // namespace bslz4
