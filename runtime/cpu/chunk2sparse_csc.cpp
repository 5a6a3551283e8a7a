// Chunk2SparseCSC on the CPU. The matrix is held pixel-major (a column per pixel), so each
// decoded block, still in L1, is integrated as it is listed: acc[bin] += weight * pixel for
// the block's pixels, into the frame's own powder row (no sharing between threads). Pixels
// are summed from the block's nonzero ones (a background frame is mostly zeros), as the bit
// planes list them (integers and f32), or as listed from the unshuffled block (f64 and 64-bit
// integers); every pixel of the unshuffled block where a zero must count (a weight that is not
// finite) or the cut lists zeros (sparse_engine.hpp, list_chunk_nonzero). What is
// summed is summed_matrix's choice (fixed_point.hpp): float weights in the accumulator's type,
// or int64 fixed-point sums (acc i64; acc f64 where they are exact, then rounded once).
#include "call_guard.hpp"
#include "bslz4/chunk2sparse_csc.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#include "argument_checks.hpp"
#include "fixed_point.hpp"
#include "integrator_checks.hpp"
#include "pixel_major_matrix.hpp"
#include "pixel_threshold.hpp"
#include "sparse_engine.hpp"

namespace bslz4 {

namespace detail {

class Integrator {
public:
    Integrator(ByteView mask, std::size_t ni, std::size_t nj, PixelType type, const IntegrationMatrix& matrix,
               Accumulator acc, Chunk2SparseOptions options)
        : engine(mask, ni, nj, type, options, lists_for(matrix)), acc(acc), bins(matrix.bins),
          scale(matrix.fixed_point() ? matrix.powder_scale : 1), skip_zeros(all_finite(matrix.weight)),
          extra_lanes(engine.workers.size()) {
        check_integrator(matrix, ni, nj, type, acc);
        // Mask-folded, in the form summed_matrix chooses, kept only as its pixel-major copy.
        const IntegrationMatrix m = summed_matrix(fold_mask(matrix, mask), type, acc);
        fixed_sums = m.fixed_point();
        fixed_scale = m.powder_scale;
        columns = PixelMajorMatrix(m, type);
    }

    // A zero pixel adds w * 0 = +-0 to its bins, which changes no sum (a sum from +0 is never
    // -0) when every weight is finite; an infinite or NaN weight makes it NaN, as scipy's
    // product does, so then every pixel is summed. Either way the order of the terms of each
    // bin is the pixels' (as csc @ frame): skipping zeros leaves the powders bit for bit.
    static bool all_finite(const std::vector<float>& weights) {
        return std::all_of(weights.begin(), weights.end(), [](float w) { return std::isfinite(w); });
    }
    static SparseEngine::Lists lists_for(const IntegrationMatrix& m) {
        return all_finite(m.weight) ? SparseEngine::Lists::nonzero_from_planes : SparseEngine::Lists::unshuffled;
    }

    // Where a frame's pixels are summed: its powder row, and for int64 sums, which do not
    // depend on the order of their adds, up to 3 more copies of it: neighbouring pixels fall in
    // one bin, and an add to a bin waits for the one before it through memory (a third of a
    // dense frame's time with one row). Pixel i goes to row[i % 4], the n rows repeated to fill
    // the four, so that a loop unrolled by four holds each in a register.
    template <class A>
    struct Lanes {
        A* row[4];
    };

    // A block of n pixels starting at pixel `first`, zeros skipped when they change nothing.
    template <class A, class T>
    void integrate(const Lanes<A>& lanes, std::size_t first, const T* px, std::size_t n) const {
        columns.visit([&](const auto& m) {
            for (std::size_t i = 0; i < n; ++i)
                if (!skip_zeros || px[i] != T(0)) m.add(lanes.row[i % 4], first + i, px[i]);
        });
    }

    // n listed pixels (values v at frame pixels idx), all nonzero, summed; those above th are
    // kept in place and in order (the call's list), in the same pass, as each pixel's value and
    // index are in registers for its sum. Returns how many are kept. Each pixel costs a load of
    // its entries (and, in columns, one before it of its column's start). In a sparse list
    // they are scattered over a matrix far larger than the caches, so they are fetched ahead,
    // the start kFar pixels ahead and the entries half as far, so that the misses overlap. In a
    // dense one (most of a block's pixels listed) they are read in order and a pixel takes a
    // few cycles: a reader whose entries are a few bytes a pixel (unit bins) is left to the
    // hardware's prefetch, the others fetched kDenseFar ahead to be early enough.
    template <class A, class T>
    std::size_t integrate_listed(const Lanes<A>& lanes, T* v, std::uint32_t* idx, std::size_t n,
                                 const PixelThreshold<T>& th) const {
        constexpr std::size_t kFar = 16, kDenseFar = 96;
        if (n == 0) return 0;
        const bool dense = idx[n - 1] - idx[0] < 8 * n;
        std::size_t kept = 0;
        columns.visit([&](const auto& reader) {
            // Copies, so that the compiler need not load them again after each add to a row.
            const auto m = reader;
            const PixelThreshold<T> above = th;
            A* const row[4] = {lanes.row[0], lanes.row[1], lanes.row[2], lanes.row[3]};
            const auto run = [&](auto fetch) {
                std::size_t k = 0;  // kept
                for (std::size_t i0 = 0; i0 < n; i0 += 4) {
                    const unsigned lanes_here = n - i0 < 4 ? static_cast<unsigned>(n - i0) : 4;
#pragma GCC unroll 4
                    for (unsigned l = 0; l < lanes_here; ++l) {
                        const std::size_t i = i0 + l;
                        if constexpr (decltype(fetch)::value) {
                            const std::size_t far = dense ? kDenseFar : kFar;
                            if (i + far < n) m.fetch_start(idx[i + far]);
                            if (i + far / 2 < n) m.fetch_entries(idx[i + far / 2]);
                        }
                        const T x = v[i];
                        const std::uint32_t p = idx[i];
                        m.add(row[l], p, x);
                        v[k] = x;
                        idx[k] = p;
                        k += above(x);
                    }
                }
                kept = k;
            };
            if (dense && m.kSmallEntries)
                run(std::false_type{});
            else
                run(std::true_type{});
        });
        return th.mode == CutMode::none ? 0 : kept;
    }

    // Lanes for int64 sums: 4 while they stay within L2 (256 kB), 2 up to 2 MB, else the row alone.
    static std::size_t lane_count(std::size_t bins, bool int_sums) {
        if (!int_sums) return 1;
        if (bins * 8 * 4 <= (256u << 10)) return 4;
        if (bins * 8 * 2 <= (2u << 20)) return 2;
        return 1;
    }

    // Runs `list` (engine.list_chunk_nonzero or list_dense_nonzero) for each frame with its
    // powder row; a bad frame reported (OnError::report) keeps a zero row, whatever it had summed.
    template <class ListFrame>
    IntegratedBatch run(std::size_t nframes, double cut, OnError on_error, const ListRows* into, ListFrame&& list) {
        const std::size_t asize = accumulator_size(acc);
        std::uint8_t* rows = powder.reserve(nframes * bins * asize);
        std::memset(rows, 0, nframes * bins * asize);
        const std::size_t nlanes = lane_count(bins, fixed_sums);
        const auto list_frame = [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w) {
            return visit_sum_type([&](auto zero) {
                using A = decltype(zero);
                std::uint8_t* bytes = rows + f * bins * asize;
                Lanes<A> lanes{};
                std::vector<std::int64_t>& more = extra_lanes[w];
                more.assign((nlanes - 1) * bins, 0);
                for (std::size_t l = 0; l < 4; ++l)
                    lanes.row[l] = l % nlanes == 0 ? reinterpret_cast<A*>(bytes)
                                                   : reinterpret_cast<A*>(more.data() + (l % nlanes - 1) * bins);
                const auto listed = list(
                    f, v, idx, w,
                    [this, &lanes](std::size_t first, const auto* px, std::size_t n, unsigned) { integrate(lanes, first, px, n); },
                    [this, &lanes](auto* pv, std::uint32_t* pi, std::size_t n, const auto& th) {
                        return integrate_listed(lanes, pv, pi, n, th);
                    });
                for (std::size_t l = 1; l < nlanes; ++l)
                    for (std::size_t b = 0; b < bins; ++b) lanes.row[0][b] += lanes.row[l][b];
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
    double scale;     // the powders' powder_scale: the fixed-point matrix's for acc i64, else 1
    bool skip_zeros;  // every weight finite: a zero pixel adds nothing
    bool fixed_sums = false;
    double fixed_scale = 1;
    PixelMajorMatrix columns;
    HostBuffer powder;
    std::vector<std::vector<std::int64_t>> extra_lanes;  // a worker's lanes past the row (Lanes)
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
    const detail::CallGuard guard(state_->engine.caller);
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
    const detail::CallGuard guard(state_->engine.caller);
    return multi_into(*state_, chunks, cut, nullptr);
}

IntegratedBatch Chunk2SparseCSC::multi(const std::vector<ByteView>& chunks, double cut, const ListRows& into) {
    const detail::CallGuard guard(state_->engine.caller);
    return multi_into(*state_, chunks, cut, &into);
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut) {
    const detail::CallGuard guard(state_->engine.caller);
    return from_buffer_into(*state_, base, offsets, lengths, cut, nullptr);
}

IntegratedBatch Chunk2SparseCSC::from_buffer(ByteView base, const std::vector<std::uint64_t>& offsets,
                                             const std::vector<std::uint64_t>& lengths, double cut,
                                             const ListRows& into) {
    const detail::CallGuard guard(state_->engine.caller);
    return from_buffer_into(*state_, base, offsets, lengths, cut, &into);
}

IntegratedBatch Chunk2SparseCSC::from_frames(const std::vector<ByteView>& frames, double cut) {
    const detail::CallGuard guard(state_->engine.caller);
    return state_->run(frames.size(), cut, state_->engine.options.on_error, nullptr,
                       [&](std::size_t f, std::uint8_t* v, std::uint32_t* idx, unsigned w, auto&& each, auto&& listed) {
                           return state_->engine.list_dense_nonzero(frames[f], cut, v, idx, w, each, listed);
                       });
}

IntegratedFrame Chunk2SparseCSC::operator()(ByteView chunk, double cut) {
    const detail::CallGuard guard(state_->engine.caller);
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
