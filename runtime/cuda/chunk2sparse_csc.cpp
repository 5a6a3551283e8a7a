// bslz4::cuda::Chunk2SparseCSC: the GPU engine (gpu_engine.hpp) with a matrix.
#include "bslz4/cuda/chunk2sparse_csc.hpp"

#include "gpu_engine.hpp"

namespace bslz4::cuda {

using namespace detail;

Chunk2SparseCSC::Chunk2SparseCSC(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type,
                                 const IntegrationMatrix& matrix, Accumulator acc, Chunk2SparseOptions options)
    : state_(make_engine(mask, ni, nj, pixel_type, options)) {
    state_->add_matrix(matrix, acc);
}

Chunk2SparseCSC::Chunk2SparseCSC(Chunk2Sparse&& lists, const IntegrationMatrix& matrix, Accumulator acc) {
    live_engine(lists.state_).add_matrix(matrix, acc);  // a throw leaves the engine as it was, and lists keeps it
    state_ = std::move(lists.state_);
}
Chunk2SparseCSC::~Chunk2SparseCSC() = default;
Chunk2SparseCSC::Chunk2SparseCSC(Chunk2SparseCSC&&) noexcept = default;
Chunk2SparseCSC& Chunk2SparseCSC::operator=(Chunk2SparseCSC&&) noexcept = default;

IntegratedBatch Chunk2SparseCSC::multi(const std::vector<ByteView>& chunks, double cut) {
    GpuEngine& e = live_engine(state_);
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    const SparseBatch b = e.run(chunks.size(), cut, ChunkSource(of_vector), e.on_error());
    return {b, e.powders(chunks.size())};
}

IntegratedBatch Chunk2SparseCSC::multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into) {
    GpuEngine& e = live_engine(state_);
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    const SparseBatch b = e.run(chunks.size(), cut, ChunkSource(of_vector), e.on_error(), {}, nullptr, &into);
    return {b, e.powders(chunks.size())};
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut) {
    GpuEngine& e = live_engine(state_);
    const SparseBatch b = e.run_buffer(base, offsets, lengths, cut);
    return {b, e.powders(offsets.size())};
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut,
                                             const ListRows& into) {
    GpuEngine& e = live_engine(state_);
    const SparseBatch b = e.run_buffer(base, offsets, lengths, cut, &into);
    return {b, e.powders(offsets.size())};
}

IntegratedFrame Chunk2SparseCSC::operator()(ByteView chunk, double cut) {
    GpuEngine& e = live_engine(state_);
    // One frame always throws, whatever options.on_error says for batches.
    const auto only = [&](std::size_t) { return chunk; };
    const SparseBatch b = e.run(1, cut, ChunkSource(only), OnError::throw_first);
    return {b.frame(0), e.powders(1)};
}

IntegratedCoo Chunk2SparseCSC::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), live_engine(state_).nj()); }

DeviceArray Chunk2SparseCSC::integrate(const std::vector<ByteView>& chunks) {
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    return live_engine(state_).run_to_device(chunks.size(), false, ChunkSource(of_vector));
}

DeviceArray Chunk2SparseCSC::decompress(const std::vector<ByteView>& chunks) {
    const auto of_vector = [&](std::size_t f) { return chunks[f]; };
    return live_engine(state_).run_to_device(chunks.size(), true, ChunkSource(of_vector));
}

IntegratedBatch Chunk2SparseCSC::from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut) {
    GpuEngine& e = live_engine(state_);
    const SparseBatch b = e.run_device(device_ptr, offsets, lengths, cut);
    return {b, e.powders(offsets.size())};
}

IntegratedBatch Chunk2SparseCSC::from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut,
                                             const ListRows& into) {
    GpuEngine& e = live_engine(state_);
    const SparseBatch b = e.run_device(device_ptr, offsets, lengths, cut, &into);
    return {b, e.powders(offsets.size())};
}

DeviceArray Chunk2SparseCSC::integrate_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                                   const std::vector<std::uint64_t>& lengths) {
    return live_engine(state_).run_device_to_device(device_ptr, offsets, lengths, false);
}

DeviceArray Chunk2SparseCSC::decompress_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                                    const std::vector<std::uint64_t>& lengths) {
    return live_engine(state_).run_device_to_device(device_ptr, offsets, lengths, true);
}

void Chunk2SparseCSC::set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    live_engine(state_).set_top_pixels(bslz4::detail::TopPixelsRule(howmany, std::move(thresholds)));
}

void Chunk2SparseCSC::reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks) {
    live_engine(state_).reserve(frames, chunk_bytes, chunks);
}

std::size_t Chunk2SparseCSC::last_host() const { return live_engine(state_).host_frames(); }
std::size_t Chunk2SparseCSC::cap() const { return live_engine(state_).cap(); }
unsigned Chunk2SparseCSC::batch() const { return live_engine(state_).batch(); }
unsigned Chunk2SparseCSC::group() const { return live_engine(state_).group(); }
std::size_t Chunk2SparseCSC::bins() const { return live_engine(state_).bins(); }
Accumulator Chunk2SparseCSC::acc() const { return live_engine(state_).acc(); }

double Chunk2SparseCSC::time_on_device(const std::vector<ByteView>& chunks, double cut, unsigned repeats) {
    return live_engine(state_).time_kernels(chunks, cut, repeats);
}

}  // namespace bslz4::cuda
