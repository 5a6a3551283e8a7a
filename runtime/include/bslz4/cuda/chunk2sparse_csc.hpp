// Chunk2SparseCSC on the GPU: the GPU Chunk2Sparse, and every frame also integrated on the
// device, powder = matrix @ frame (CSR product, one thread block per bin, no atomics, each
// weight read once per pass over a batch). Same results as bslz4::Chunk2SparseCSC: the same
// int64 for a fixed-point matrix, f64 to about 1e-15 relative.
//
// Threads: one object takes one call at a time. A call from a second thread while one runs
// throws Error (bad_argument: "... is in a call on another thread"), never a race on the object's
// buffers: a call's results are views of them, valid until the object's next call. The same
// thread may make calls from within a call. Objects are independent: one a thread run at once.
#pragma once
#include "bslz4/export.h"
#include <memory>
#include <vector>

#include "bslz4/chunk2sparse_csc.hpp"
#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/device_array.hpp"

namespace bslz4::cuda {

class BSLZ4_API Chunk2SparseCSC {
public:
    Chunk2SparseCSC(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, const IntegrationMatrix& matrix,
                    Accumulator acc = Accumulator::f64, Chunk2SparseOptions options = {});
    // The object `lists` was, now integrating with `matrix` too: its context, kernels, buffers,
    // options and top-pixels rule taken over (and `lists` left moved-from), the matrix checked
    // and prepared as the constructor above does, with the same results. A program can so make
    // its objects (some 30 ms each, more for a GPU's first) while it still reads its matrix.
    // Refused (bad_argument) for a moved-from `lists`; on a refusal `lists` is left as it was.
    Chunk2SparseCSC(Chunk2Sparse&& lists, const IntegrationMatrix& matrix, Accumulator acc = Accumulator::f64);
    ~Chunk2SparseCSC();
    Chunk2SparseCSC(Chunk2SparseCSC&&) noexcept;
    Chunk2SparseCSC& operator=(Chunk2SparseCSC&&) noexcept;

    IntegratedFrame operator()(ByteView chunk, double cut);
    IntegratedBatch multi(const std::vector<ByteView>& chunks, double cut);
    IntegratedBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                const std::vector<std::uint64_t>& lengths, double cut);
    // The lists into the caller's rows, as Chunk2Sparse's (the powders stay this object's).
    IntegratedBatch multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into);
    IntegratedBatch from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into);
    IntegratedCoo coo(ByteView chunk, double cut);
    // Left on the GPU, in new arrays owned by the caller: powders (nframes, bins) of acc's type,
    // and dense frames (nframes, ni, nj).
    DeviceArray integrate(const std::vector<ByteView>& chunks);
    DeviceArray decompress(const std::vector<ByteView>& chunks);
    // As bslz4::cuda::Chunk2Sparse::from_device: chunks already in GPU memory.
    IntegratedBatch from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                const std::vector<std::uint64_t>& lengths, double cut);
    IntegratedBatch from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                const std::vector<std::uint64_t>& lengths, double cut, const ListRows& into);
    DeviceArray integrate_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                      const std::vector<std::uint64_t>& lengths);
    DeviceArray decompress_from_device(std::uint64_t device_ptr, const std::vector<std::uint64_t>& offsets,
                                       const std::vector<std::uint64_t>& lengths);
    // As bslz4::cuda::Chunk2Sparse::set_top_pixels; the powder always integrates the whole frame.
    void set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds = std::nullopt);
    // As bslz4::cuda::Chunk2Sparse::reserve, the powders' host array too.
    void reserve(std::size_t frames, std::size_t chunk_bytes, ChunkMemory chunks = ChunkMemory::pageable);

    std::size_t last_host() const;
    std::size_t cap() const;
    unsigned batch() const;
    unsigned group() const;
    std::size_t bins() const;
    Accumulator acc() const;
    // As bslz4::cuda::Chunk2Sparse::time_on_device, with the integration.
    double time_on_device(const std::vector<ByteView>& chunks, double cut, unsigned repeats);

private:
    std::unique_ptr<detail::GpuEngine> state_;
};

}  // namespace bslz4::cuda
