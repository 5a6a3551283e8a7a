// The integration matrix as the CPU integrator reads it: pixel-major (a pixel's entries side by
// side, each bin beside its weight), in the fewest bytes its weights allow, because a frame's
// powder is bound by the bytes of the matrix it reads: a dense frame reads every entry, and a
// sparse one misses the caches once or twice a listed pixel.
//
// Three forms, chosen at construction from the mask-folded, summed matrix (fixed_point.hpp):
// - columns: the pixels' starts, then their entries (any matrix);
// - padded: `width` slots a pixel at p x width, no starts, where every pixel has about as many
//   entries; a pixel's empty slots add 0 x pixel to a bin it (or the pixel before it) has, +-0,
//   which changes no sum: integer pixels only (a float pixel can be infinite);
// - unit bins: a bin a pixel, no weight (whole pixels of unit weight summed in fixed point:
//   pyFAI's matrices without pixel splitting), 16 bits when the bins allow, the type's largest
//   value for a pixel in no bin.
// Each form sums a pixel's entries in their order, so every form gives the same sums.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "bslz4/integration_matrix.hpp"
#include "bslz4/pixel_type.hpp"

namespace bslz4::detail {

class PixelMajorMatrix {
public:
    PixelMajorMatrix() = default;  // no entries
    PixelMajorMatrix(const IntegrationMatrix& summed, PixelType type);

    template <class W>
    struct Entry {
        std::uint32_t bin;
        W w;  // float, or a fixed-point int32 / int64
    };

    // row[bin] += w x v for entries [k, end): float weights in A, or fixed-point weights in
    // int64 (A is then int64, and the pixels integers).
    template <class A, class W, class T>
    static void add_entries(A* row, const Entry<W>* e, std::size_t k, std::size_t end, T v) {
        for (; k < end; ++k) {
            if constexpr (std::is_floating_point<W>::value) {
                if constexpr (!std::is_same<A, std::int64_t>::value)
                    row[e[k].bin] += static_cast<A>(e[k].w) * static_cast<A>(v);
            } else if constexpr (std::is_same<A, std::int64_t>::value && std::is_integral<T>::value) {
                row[e[k].bin] += static_cast<std::int64_t>(e[k].w) * static_cast<std::int64_t>(v);
            }
        }
    }

    // The readers f is handed (visit): add(row, p, v) sums pixel p of value v; fetch_start(p)
    // and fetch_entries(p) ask for its lines ahead (the second needs the first's line);
    // kSmallEntries: a pixel's entries are a few bytes, so that pixels read in order are left
    // to the hardware's prefetch.
    template <class W>
    struct Columns {
        static constexpr bool kSmallEntries = false;
        const std::uint32_t* start;
        const Entry<W>* e;
        template <class A, class T>
        void add(A* row, std::size_t p, T v) const { add_entries(row, e, start[p], start[p + 1], v); }
        void fetch_start(std::size_t p) const { __builtin_prefetch(start + p); }
        void fetch_entries(std::size_t p) const { __builtin_prefetch(e + start[p]); }
    };
    template <class W>
    struct Padded {
        static constexpr bool kSmallEntries = false;
        const Entry<W>* e;
        std::size_t width;
        template <class A, class T>
        void add(A* row, std::size_t p, T v) const { add_entries(row, e, p * width, p * width + width, v); }
        void fetch_start(std::size_t) const {}
        void fetch_entries(std::size_t p) const { __builtin_prefetch(e + p * width); }
    };
    template <class B>
    struct UnitBins {
        static constexpr bool kSmallEntries = true;
        const B* bin;
        template <class A, class T>
        void add(A* row, std::size_t p, T v) const {
            if constexpr (std::is_same<A, std::int64_t>::value && std::is_integral<T>::value)
                if (bin[p] != static_cast<B>(~B(0))) row[bin[p]] += static_cast<std::int64_t>(v);
        }
        void fetch_start(std::size_t) const {}
        void fetch_entries(std::size_t p) const { __builtin_prefetch(bin + p); }
    };

    // f(reader) with the reader of the form this matrix took.
    template <class F>
    decltype(auto) visit(F&& f) const {
        if (!unit16_.empty()) return f(UnitBins<std::uint16_t>{unit16_.data()});
        if (!unit32_.empty()) return f(UnitBins<std::uint32_t>{unit32_.data()});
        if (!fixed32_.empty()) return visit_entries(fixed32_, f);
        if (!fixed64_.empty()) return visit_entries(fixed64_, f);
        return visit_entries(float_, f);
    }

    std::size_t width() const { return width_; }  // padded: slots a pixel; else 0

private:
    template <class W, class F>
    decltype(auto) visit_entries(const std::vector<Entry<W>>& e, F& f) const {
        if (width_) return f(Padded<W>{e.data(), width_});
        return f(Columns<W>{start_.data(), e.data()});
    }
    template <class W, class WeightOf>
    void fill_entries(const IntegrationMatrix& m, std::vector<Entry<W>>& out, WeightOf&& weight_of);
    template <class B>
    static void fill_unit_bins(const IntegrationMatrix& m, std::vector<B>& out);

    std::size_t width_ = 0;
    std::vector<std::uint32_t> start_;  // columns: pixel p's entries are [start_[p], start_[p + 1])
    std::vector<std::uint16_t> unit16_;  // one of these five holds the matrix
    std::vector<std::uint32_t> unit32_;
    std::vector<Entry<float>> float_;
    std::vector<Entry<std::int32_t>> fixed32_;
    std::vector<Entry<std::int64_t>> fixed64_;
};

}  // namespace bslz4::detail
