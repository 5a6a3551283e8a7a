// What the exactness tests judge powders by: a scipy csc matrix as pyFAI-like splitting with
// accumulated entries leaves it (duplicate (bin, pixel) entries, columns unsorted), what scipy
// computes for csc.astype(float64) @ frame.astype(float64), and the exact sums.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <type_traits>
#include <vector>

#include "bslz4/powder.hpp"
#include "matrix_support.hpp"

namespace bslz4::test {

// Each pixel in 1 to 3 neighbouring bins of its radius, its weights summing to about 1; half
// the pixels have one entry split in two entries of the same bin, each weight a float32 of its
// own (merged into one float32 they would round). A column's entries come in random order.
inline RawMatrix split_csc_with_duplicates(std::size_t bins, std::size_t ni, std::size_t nj, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    RawMatrix m{MatrixLayout::csc, bins, ni * nj, {}, {}, {0}};
    const double rmax = std::hypot(ni / 2.0, nj / 2.0);
    for (std::size_t p = 0; p < ni * nj; ++p) {
        const double r = std::hypot(static_cast<double>(p / nj) - ni / 2.0, static_cast<double>(p % nj) - nj / 2.0);
        const auto first = std::min<std::size_t>(static_cast<std::size_t>(r / rmax * static_cast<double>(bins - 3)), bins - 3);
        const std::size_t n = 1 + rng() % 3;
        std::vector<std::pair<std::int32_t, double>> entries;
        double total = 0;
        for (std::size_t k = 0; k < n; ++k) {
            entries.push_back({static_cast<std::int32_t>(first + k), unit(rng) + 0.05});
            total += entries.back().second;
        }
        for (auto& e : entries) e.second /= total;
        if (p % 2) {
            const std::size_t k = rng() % n;
            const double part = unit(rng);
            entries.push_back({entries[k].first, entries[k].second * (1 - part)});
            entries[k].second *= part;
        }
        std::shuffle(entries.begin(), entries.end(), rng);
        for (const auto& e : entries) {
            m.indices.push_back(e.first);
            m.data.push_back(static_cast<float>(e.second));
        }
        m.indptr.push_back(static_cast<std::int32_t>(m.indices.size()));
    }
    return m;
}

// The pixels of a frame of type T as double (exact for every type but 64-bit integers).
template <class T>
std::vector<double> pixels_as_double(const std::vector<std::uint8_t>& raw) {
    std::vector<T> v(raw.size() / sizeof(T));
    std::memcpy(v.data(), raw.data(), raw.size());
    return std::vector<double>(v.begin(), v.end());
}

// scipy's csc_matvec in float64: column by column, y[bin] += w * x for the entries as stored.
inline std::vector<double> scipy_csc_matvec(const RawMatrix& csc, const std::vector<double>& x) {
    std::vector<double> y(csc.bins, 0.0);
    for (std::size_t p = 0; p < csc.pixels; ++p)
        for (auto k = csc.indptr[p]; k < csc.indptr[p + 1]; ++k)
            y[static_cast<std::size_t>(csc.indices[k])] += static_cast<double>(csc.data[k]) * x[p];
    return y;
}

// The exact sum of each bin's float64 products (long double: a float32 times a 32-bit pixel is
// exact there, and the sums are within 1e-17 relative), and |csc| @ |x|, the scale a bin's
// rounding errors are measured against (signed pixels can cancel).
struct ExactProduct {
    std::vector<long double> sum, size;
};
inline ExactProduct exact_product(const RawMatrix& csc, const std::vector<double>& x) {
    ExactProduct out{std::vector<long double>(csc.bins, 0), std::vector<long double>(csc.bins, 0)};
    for (std::size_t p = 0; p < csc.pixels; ++p)
        for (auto k = csc.indptr[p]; k < csc.indptr[p + 1]; ++k) {
            const auto b = static_cast<std::size_t>(csc.indices[k]);
            out.sum[b] += static_cast<long double>(csc.data[k]) * x[p];
            out.size[b] += std::fabs(static_cast<long double>(csc.data[k]) * x[p]);
        }
    return out;
}

// The largest |powder(f, b) - want[b]| / size[b] over the bins of frame f (bins of size 0: exact).
inline double relative_error(const Powder& powder, std::size_t f, const std::vector<double>& want,
                             const std::vector<long double>& size) {
    double worst = 0;
    for (std::size_t b = 0; b < want.size(); ++b) {
        const long double d = std::fabs(static_cast<long double>(powder.value(f, b)) - want[b]);
        worst = std::max(worst, size[b] > 0 ? static_cast<double>(d / size[b]) : static_cast<double>(d));
    }
    return worst;
}
inline double relative_error(const Powder& powder, std::size_t f, const ExactProduct& exact) {
    return relative_error(powder, f, std::vector<double>(exact.sum.begin(), exact.sum.end()), exact.size);
}

}  // namespace bslz4::test
