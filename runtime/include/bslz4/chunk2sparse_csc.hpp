// Chunk2SparseCSC on the CPU: Chunk2Sparse, and every frame also integrated, powder = matrix @
// frame (the mask folded into the matrix: masked pixels contribute nothing). Same call API as
// the GPU class; each call returns the sparse lists and the powders.
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

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/integration_matrix.hpp"
#include "bslz4/powder.hpp"

namespace bslz4 {

struct IntegratedFrame {
    SparseFrame sparse;
    Powder powder;  // one frame
};

struct IntegratedBatch {
    SparseBatch sparse;
    Powder powder;  // nframes x bins
};

struct IntegratedCoo {
    CooFrame coo;
    Accumulator acc = Accumulator::f64;
    double powder_scale = 1;
    std::vector<std::uint8_t> powder_bytes;  // bins sums of acc's type
    Powder powder() const { return {1, powder_bytes.size() / accumulator_size(acc), acc, powder_bytes.data(), powder_scale}; }
};

// An owned copy of one integrated frame (coo of both CSC classes).
BSLZ4_API IntegratedCoo make_coo(const IntegratedFrame& frame, std::size_t nj);

namespace detail {
class Integrator;
}

class BSLZ4_API Chunk2SparseCSC {
public:
    // matrix: normalise_matrix's result (acc f64 or f32), or fixed_point_matrix's (acc i64,
    // integer pixel types). Its pixels must be ni*nj.
    Chunk2SparseCSC(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type, const IntegrationMatrix& matrix,
                    Accumulator acc = Accumulator::f64, Chunk2SparseOptions options = {});
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
    IntegratedBatch from_frames(const std::vector<ByteView>& frames, double cut);

    // As Chunk2Sparse::set_top_pixels; the powder always integrates the whole frame.
    void set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds = std::nullopt);

    std::size_t bins() const;
    Accumulator acc() const;

private:
    std::unique_ptr<detail::Integrator> state_;
};

}  // namespace bslz4
