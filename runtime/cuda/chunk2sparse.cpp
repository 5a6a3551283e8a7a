// bslz4::cuda::Chunk2Sparse: the GPU engine (gpu_engine.hpp) without a matrix.
#include "bslz4/cuda/chunk2sparse.hpp"

#include "gpu_engine.hpp"

namespace bslz4::cuda {

using namespace detail;

Chunk2Sparse::Chunk2Sparse(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, Chunk2SparseOptions options)
    : state_(make_engine(mask, ni, nj, pixel_type, options)) {}
Chunk2Sparse::~Chunk2Sparse() = default;
Chunk2Sparse::Chunk2Sparse(Chunk2Sparse&&) noexcept = default;
Chunk2Sparse& Chunk2Sparse::operator=(Chunk2Sparse&&) noexcept = default;

SparseFrame Chunk2Sparse::operator()(ByteView chunk, double cut) {
    const auto only = [&](std::size_t) { return chunk; };
    return live_engine(state_).run(1, cut, ChunkSource(only), OnError::throw_first).frame(0);
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut) {
    GpuEngine& e = live_engine(state_);
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    return e.run(chunks.size(), cut, ChunkSource(of_vector), e.on_error());
}

SparseBatch Chunk2Sparse::multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into) {
    GpuEngine& e = live_engine(state_);
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    return e.run(chunks.size(), cut, ChunkSource(of_vector), e.on_error(), {}, nullptr, &into);
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    return live_engine(state_).run_buffer(base, offsets, lengths, cut);
}

SparseBatch Chunk2Sparse::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into) {
    return live_engine(state_).run_buffer(base, offsets, lengths, cut, &into);
}

DeviceArray Chunk2Sparse::decompress(const std::vector<ByteView>& chunks) {
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    return live_engine(state_).run_to_device(chunks.size(), true, ChunkSource(of_vector));
}

void Chunk2Sparse::set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    live_engine(state_).set_top_pixels(bslz4::detail::TopPixelsRule(howmany, std::move(thresholds)));
}

SparseBatch Chunk2Sparse::from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut) {
    return live_engine(state_).run_device(device_ptr, offsets, lengths, cut);
}

SparseBatch Chunk2Sparse::from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into) {
    return live_engine(state_).run_device(device_ptr, offsets, lengths, cut, &into);
}

DeviceArray Chunk2Sparse::decompress_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                                 const std::vector<std::uint64_t>& lengths) {
    return live_engine(state_).run_device_to_device(device_ptr, offsets, lengths, true);
}

void Chunk2Sparse::reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks) {
    live_engine(state_).reserve(frames, chunk_bytes, chunks);
}

CooFrame Chunk2Sparse::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), live_engine(state_).nj()); }

std::size_t Chunk2Sparse::last_host() const { return live_engine(state_).host_frames(); }
std::size_t Chunk2Sparse::cap() const { return live_engine(state_).cap(); }
unsigned Chunk2Sparse::batch() const { return live_engine(state_).batch(); }
unsigned Chunk2Sparse::group() const { return live_engine(state_).group(); }
int Chunk2Sparse::device() const { return live_engine(state_).device(); }

double Chunk2Sparse::time_on_device(const std::vector<ByteView>& chunks, double cut, unsigned repeats) {
    return live_engine(state_).time_kernels(chunks, cut, repeats);
}

}  // namespace bslz4::cuda
