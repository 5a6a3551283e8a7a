// bslz4::cuda::Chunk2Sparse: the GPU engine (gpu_engine.hpp) without a matrix.
#include "bslz4/cuda/chunk2sparse.hpp"

#include "buffer_ranges.hpp"
#include "gpu_engine.hpp"

namespace bslz4::cuda {

using namespace detail;

Chunk2Sparse::Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, Chunk2SparseOptions options) {
    if (ni == 0 || nj == 0) throw Error("frame shape " + std::to_string(ni) + " x " + std::to_string(nj) + " is empty");
    if (mask.size != ni * nj)
        throw Error("mask has " + std::to_string(mask.size) + " bytes, the frame " + std::to_string(ni) + " x " +
                    std::to_string(nj) + " needs " + std::to_string(ni * nj));
    const std::string why = unavailable_reason();
    if (!why.empty()) throw Error(why);
    state_ = std::make_unique<GpuEngine>(mask, ni, nj, pixel_type, options);
}
Chunk2Sparse::~Chunk2Sparse() = default;
Chunk2Sparse::Chunk2Sparse(Chunk2Sparse&&) noexcept = default;
Chunk2Sparse& Chunk2Sparse::operator=(Chunk2Sparse&&) noexcept = default;

SparseFrame Chunk2Sparse::operator()(ByteView chunk, double cut) {
    return state_->run(1, cut, [&](std::size_t) { return chunk; }).frame(0);
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut) {
    return state_->run(chunks.size(), cut, [&](std::size_t f) { return chunks[f]; });
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    bslz4::detail::check_buffer_ranges(base, offsets, lengths);
    return state_->run(offsets.size(), cut, [&](std::size_t f) { return ByteView(base.data + offsets[f], lengths[f]); });
}

CooFrame Chunk2Sparse::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), state_->nj); }

std::size_t Chunk2Sparse::last_host() const { return state_->host_frames; }
std::size_t Chunk2Sparse::cap() const { return state_->cap; }
unsigned Chunk2Sparse::batch() const { return state_->batch; }
unsigned Chunk2Sparse::group() const { return state_->group; }
int Chunk2Sparse::device() const { return state_->ctx.ordinal(); }

double Chunk2Sparse::time_on_device(const std::vector<ByteView>& chunks, double cut, unsigned repeats) {
    GpuEngine& s = *state_;
    if (chunks.empty() || chunks.size() > s.group)
        throw Error("time_on_device takes 1 to group() = " + std::to_string(s.group) + " chunks");
    ScopedContext scope(s.ctx);
    Slot& slot = s.slots[0];
    const abi::Cut c = make_cut(s.type, cut);
    auto chunk_of = [&](std::size_t f) { return chunks[f]; };
    try {
        s.pack(slot, 0, chunks.size(), chunk_of);
        s.kernels(slot, chunks.size(), c, true);  // warm-up, and a check that the chunks are good
        check(driver().cuStreamSynchronize(slot.stream.get()), "cuStreamSynchronize");
        Event start = make_event(true), stop = make_event(true);
        check(driver().cuEventRecord(start.get(), slot.stream.get()), "cuEventRecord");
        for (unsigned r = 0; r < repeats; ++r) s.kernels(slot, chunks.size(), c, true);
        check(driver().cuEventRecord(stop.get(), slot.stream.get()), "cuEventRecord");
        check(driver().cuEventSynchronize(stop.get()), "cuEventSynchronize");
        float ms = 0;
        check(driver().cuEventElapsedTime(&ms, start.get(), stop.get()), "cuEventElapsedTime");
        return ms / 1e3;
    } catch (...) {
        s.abandon();
        throw;
    }
}

}  // namespace bslz4::cuda
