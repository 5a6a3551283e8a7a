// Chunk2SparseCSC on the CPU. The matrix is held pixel-major (a column per pixel), so each
// decoded block, still in L1, is integrated as it is listed: acc[bin] += weight * pixel for
// the block's pixels, into the frame's own powder row (no sharing between threads). Unsigned
// pixels are summed from the block's nonzero pixels as the bit planes list them (a background
// frame is mostly zeros), never unshuffled; the others from the unshuffled block. What is
// summed is summed_matrix's choice (fixed_point.hpp): float weights in the accumulator's type,
// or int64 fixed-point sums (acc i64; acc f64 where they are exact, then rounded once).
#include "bslz4/chunk2sparse_csc.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "argument_checks.hpp"
#include "fixed_point.hpp"
#include "integrator_checks.hpp"
#include "sparse_engine.hpp"

namespace bslz4 {

namespace detail {

class Integrator {
public:
    Integrator(ByteView mask, std::size_t ni, std::size_t nj, PixelType type, const IntegrationMatrix& matrix,
               Accumulator acc, Chunk2SparseOptions options)
        : engine(mask, ni, nj, type, options, lists_for(matrix)), acc(acc), bins(matrix.bins),
          scale(matrix.fixed_point() ? matrix.powder_scale : 1), skip_zeros(all_finite(matrix.weight)) {
        check_integrator(matrix, ni, nj, type, acc);
        // Pixel-major, with the mask folded in.
        const IntegrationMatrix m = summed_matrix(fold_mask(matrix, mask), type, acc);
        fixed_sums = m.fixed_point();
        fixed_scale = m.powder_scale;
        col_start.assign(m.pixels + 1, 0);
        for (std::uint32_t p : m.pixel) ++col_start[p + 1];
        for (std::size_t p = 0; p < m.pixels; ++p) col_start[p + 1] += col_start[p];
        if (!m.fixed_point())
            fill_entries(m, float_entries, [&](std::size_t k) { return m.weight[k]; });
        else if (fits_int32(m.fixed_weight))
            fill_entries(m, fixed32_entries, [&](std::size_t k) { return static_cast<std::int32_t>(m.fixed_weight[k]); });
        else
            fill_entries(m, fixed64_entries, [&](std::size_t k) { return m.fixed_weight[k]; });
    }

    // A matrix entry as the sums read it: a pixel's entries side by side, each bin beside its
    // weight, so a listed pixel costs one line for its column's start and one for its entries.
    // Fixed-point weights that fit 32 bits (unit weights at the scale u16 sums allow) are kept
    // in 32: a dense frame reads every entry, and the sums are bound by those bytes.
    template <class W>
    struct Entry {
        std::uint32_t bin;
        W w;
    };

    static bool fits_int32(const std::vector<std::int64_t>& w) {
        return std::all_of(w.begin(), w.end(), [](std::int64_t x) {
            return x >= std::numeric_limits<std::int32_t>::min() && x <= std::numeric_limits<std::int32_t>::max();
        });
    }

    template <class W, class WeightOf>
    void fill_entries(const IntegrationMatrix& m, std::vector<Entry<W>>& out, WeightOf&& weight_of) {
        out.resize(m.nnz());
        std::vector<std::uint32_t> at(col_start.begin(), col_start.end() - 1);
        for (std::size_t b = 0; b < m.bins; ++b)
            for (std::uint32_t k = m.row_start[b]; k < m.row_start[b + 1]; ++k)
                out[at[m.pixel[k]]++] = {static_cast<std::uint32_t>(b), weight_of(k)};
    }

    // f(entries) with the entries this matrix filled.
    template <class F>
    decltype(auto) visit_entries(F&& f) const {
        if (!fixed32_entries.empty()) return f(fixed32_entries.data());
        if (!fixed64_entries.empty()) return f(fixed64_entries.data());
        return f(float_entries.data());
    }

    // A zero pixel adds w * 0 = +-0 to its bins, which changes no sum (a sum from +0 is never
    // -0) when every weight is finite; an infinite or NaN weight makes it NaN, as scipy's
    // product does, so then every pixel is summed. Either way the order of the terms of each
    // bin is the pixels' (as csc @ frame): skipping zeros leaves the powders bit for bit.
    static bool all_finite(const std::vector<float>& weights) {
        return std::all_of(weights.begin(), weights.end(), [](float w) { return std::isfinite(w); });
    }
    static SparseEngine::Lists lists_for(const IntegrationMatrix& m) {
        return all_finite(m.weight) ? SparseEngine::Lists::from_planes : SparseEngine::Lists::unshuffled;
    }

    // acc[bin] += weight * v for every entry of pixel p's column: float weights in A, or
    // fixed-point weights in int64 (A is then int64, and the pixels integers).
    template <class A, class W, class T>
    static void add_pixel(A* row, const std::uint32_t* cols, const Entry<W>* e, std::size_t p, T v) {
        for (std::uint32_t k = cols[p]; k < cols[p + 1]; ++k) {
            if constexpr (std::is_floating_point<W>::value) {
                if constexpr (!std::is_same<A, std::int64_t>::value)
                    row[e[k].bin] += static_cast<A>(e[k].w) * static_cast<A>(v);
            } else if constexpr (std::is_same<A, std::int64_t>::value && std::is_integral<T>::value) {
                row[e[k].bin] += static_cast<std::int64_t>(e[k].w) * static_cast<std::int64_t>(v);
            }
        }
    }

    // A block of n pixels starting at pixel `first`, zeros skipped when they change nothing.
    template <class A, class T>
    void integrate(A* row, std::size_t first, const T* px, std::size_t n) const {
        visit_entries([&](const auto* e) {
            const std::uint32_t* cols = col_start.data() + first;
            for (std::size_t i = 0; i < n; ++i)
                if (!skip_zeros || px[i] != T(0)) add_pixel(row, cols, e, i, px[i]);
        });
    }

    // n listed pixels (values v at frame pixels idx), all nonzero. They are scattered over a
    // matrix far larger than the caches, so each costs a miss on its column's start and
    // another on its entries: both are fetched ahead, the start kAhead pixels ahead and the
    // entries (whose place the start gives) half as far, so the misses overlap.
    template <class A, class T>
    void integrate_listed(A* row, const T* v, const std::uint32_t* idx, std::size_t n) const {
        constexpr std::size_t kAhead = 16;
        visit_entries([&](const auto* e) {
            const std::uint32_t* cols = col_start.data();
            for (std::size_t i = 0; i < n; ++i) {
                if (i + kAhead < n) __builtin_prefetch(cols + idx[i + kAhead]);
                if (i + kAhead / 2 < n) __builtin_prefetch(e + cols[idx[i + kAhead / 2]]);
                add_pixel(row, cols, e, idx[i], v[i]);
            }
        });
    }

    // Runs `list` (engine.list_chunk_nonzero or list_dense) for each frame with its powder row; a bad
    // frame reported (OnError::report) keeps a zero row, whatever it had summed.
    template <class ListFrame>
    IntegratedBatch run(std::size_t nframes, double cut, OnError on_error, const ListRows* into, ListFrame&& list) {
        const std::size_t asize = accumulator_size(acc);
        std::uint8_t* rows = powder.reserve(nframes * bins * asize);
        std::memset(rows, 0, nframes * bins * asize);
        const auto list_frame = [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
            return visit_sum_type([&](auto zero) {
                using A = decltype(zero);
                std::uint8_t* bytes = rows + f * bins * asize;
                A* row = reinterpret_cast<A*>(bytes);
                const auto listed = list(
                    f, v, idx, w,
                    [this, row](std::size_t first, const auto* px, std::size_t n, unsigned) { integrate(row, first, px, n); },
                    [this, row](const auto* pv, const std::uint32_t* pi, std::size_t n) { integrate_listed(row, pv, pi, n); });
                if (fixed_sums && acc == Accumulator::f64) fixed_sums_to_f64(bytes);
                return listed;
            });
        };
        const auto forget_frame = [&](std::size_t f) { std::memset(rows + f * bins * asize, 0, bins * asize); };
        const SparseBatch sparse = engine.run_batch(nframes, cut, on_error, into, list_frame, forget_frame);
        return {sparse, {nframes, bins, acc, rows, scale}};
    }

    // f(zero of the type a frame's bins are summed in): int64 for fixed-point sums, else acc's.
    template <class F>
    decltype(auto) visit_sum_type(F&& f) const {
        if (fixed_sums) return f(std::int64_t{});
        if (acc == Accumulator::f32) return f(float{});
        return f(double{});
    }

    // acc f64 summed in fixed point: each bin's exact int64 sum becomes sum / fixed_scale, rounded
    // once to double (the division by a power of two is exact), in place in the row's 8 bytes.
    void fixed_sums_to_f64(std::uint8_t* row) const {
        for (std::size_t b = 0; b < bins; ++b) {
            std::int64_t sum;
            std::memcpy(&sum, row + b * 8, 8);
            const double value = static_cast<double>(sum) / fixed_scale;
            std::memcpy(row + b * 8, &value, 8);
        }
    }

    SparseEngine engine;
    Accumulator acc;
    std::size_t bins;
    double scale;  // the powders' powder_scale: the fixed-point matrix's for acc i64, else 1
    bool skip_zeros;  // every weight finite: a zero pixel adds nothing
    bool fixed_sums = false;
    double fixed_scale = 0;
    std::vector<std::uint32_t> col_start;  // pixel p's entries are [col_start[p], col_start[p + 1])
    std::vector<Entry<float>> float_entries;  // one of these three holds the entries
    std::vector<Entry<std::int32_t>> fixed32_entries;
    std::vector<Entry<std::int64_t>> fixed64_entries;
    HostBuffer powder;
};

}  // namespace detail

Chunk2SparseCSC::Chunk2SparseCSC(ByteView mask, std::size_t ni, std::size_t nj, PixelType pixel_type,
                                 const IntegrationMatrix& matrix, Accumulator acc, Chunk2SparseOptions options)
    : state_(std::make_unique<detail::Integrator>(mask, ni, nj, pixel_type, matrix, acc, options)) {}
Chunk2SparseCSC::~Chunk2SparseCSC() = default;
Chunk2SparseCSC::Chunk2SparseCSC(Chunk2SparseCSC&&) noexcept = default;
Chunk2SparseCSC& Chunk2SparseCSC::operator=(Chunk2SparseCSC&&) noexcept = default;

std::size_t Chunk2SparseCSC::bins() const { return state_->bins; }
Accumulator Chunk2SparseCSC::acc() const { return state_->acc; }

void Chunk2SparseCSC::set_top_pixels(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds) {
    state_->engine.top = detail::TopPixelsRule(howmany, std::move(thresholds));
}

namespace {

IntegratedBatch multi_into(detail::Integrator& s, const std::vector<ByteView>& chunks, double cut, const ListRows* into) {
    return s.run(chunks.size(), cut, s.engine.options.on_error, into,
                 [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w, auto&& each, auto&& listed) {
                     return s.engine.list_chunk_nonzero(chunks[f], cut, v, idx, w, each, listed);
                 });
}

IntegratedBatch from_buffer_into(detail::Integrator& s, ByteView base, const std::vector<std::uint64_t>& offsets,
                                 const std::vector<std::uint64_t>& lengths, double cut, const ListRows* into) {
    detail::check_buffer_counts(offsets, lengths);
    return s.run(offsets.size(), cut, s.engine.options.on_error, into,
                 [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w, auto&& each, auto&& listed) {
                     return s.engine.list_chunk_nonzero(detail::chunk_in_buffer(base, offsets[f], lengths[f]), cut, v,
                                                        idx, w, each, listed);
                 });
}

}  // namespace

IntegratedBatch Chunk2SparseCSC::multi(const std::vector<ByteView>& chunks, double cut) {
    return multi_into(*state_, chunks, cut, nullptr);
}

IntegratedBatch Chunk2SparseCSC::multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into) {
    return multi_into(*state_, chunks, cut, &into);
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut) {
    return from_buffer_into(*state_, base, offsets, lengths, cut, nullptr);
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut,
                                             const ListRows& into) {
    return from_buffer_into(*state_, base, offsets, lengths, cut, &into);
}

IntegratedBatch Chunk2SparseCSC::from_frames(const std::vector<ByteView>& frames, double cut) {
    return state_->run(frames.size(), cut, state_->engine.options.on_error, nullptr,
                       [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w, auto&& each, auto&&) {
                           return state_->engine.list_dense(frames[f], cut, v, idx, w, each);
                       });
}

IntegratedFrame Chunk2SparseCSC::operator()(ByteView chunk, double cut) {
    // One frame always throws, whatever options.on_error says for batches.
    const IntegratedBatch b = state_->run(
        1, cut, OnError::throw_first, nullptr,
        [&](std::size_t, std::uint8_t* v, std::uint32_t* idx, unsigned w, auto&& each, auto&& listed) {
            return state_->engine.list_chunk_nonzero(chunk, cut, v, idx, w, each, listed);
        });
    return {b.sparse.frame(0), b.powder};
}

IntegratedCoo make_coo(const IntegratedFrame& f, std::size_t nj) {
    IntegratedCoo out;
    out.coo = make_coo(f.sparse, nj);
    out.acc = f.powder.acc;
    out.powder_scale = f.powder.powder_scale;
    const auto* p = static_cast<const std::uint8_t*>(f.powder.data);
    out.powder_bytes.assign(p, p + f.powder.bins * accumulator_size(f.powder.acc));
    return out;
}

IntegratedCoo Chunk2SparseCSC::coo(ByteView chunk, double cut) { return make_coo((*this)(chunk, cut), state_->engine.nj); }

}  // namespace bslz4
