// Random integration matrices for the tests, in scipy's CSR or CSC layout, with empty bins and
// pixels on purpose, and the dense oracle powder = matrix @ frame in long double.
#pragma once
#include <cstdint>
#include <random>
#include <vector>

#include "bslz4/integration_matrix.hpp"

namespace bslz4::test {

struct RawMatrix {  // scipy-style arrays
    MatrixLayout layout;
    std::size_t bins, pixels;
    std::vector<float> data;
    std::vector<std::int32_t> indices, indptr;
    MatrixInput input() const {
        return {layout, bins, pixels, data.data(), data.size(), IndexType::i32, indices.data(), indices.size(),
                indptr.data(), indptr.size()};
    }
};

// About `per_pixel` weights a pixel, every 7th pixel and every 5th bin left empty.
inline RawMatrix random_csr(std::size_t bins, std::size_t pixels, double per_pixel, std::uint32_t seed) {
    std::mt19937 rng(seed);
    RawMatrix m{MatrixLayout::csr, bins, pixels, {}, {}, {0}};
    const double per_bin = per_pixel * static_cast<double>(pixels) / static_cast<double>(bins);
    for (std::size_t b = 0; b < bins; ++b) {
        if (bins > 1 && b % 5 == 4) {
            m.indptr.push_back(static_cast<std::int32_t>(m.data.size()));
            continue;
        }
        const auto n = static_cast<std::size_t>(per_bin * (0.5 + (rng() % 1000) / 1000.0)) + 1;
        for (std::size_t k = 0; k < n; ++k) {
            const auto p = static_cast<std::int32_t>(rng() % pixels);
            if (p % 7 == 3) continue;
            m.indices.push_back(p);
            m.data.push_back(static_cast<float>((rng() % 100000) / 70000.0));
        }
        m.indptr.push_back(static_cast<std::int32_t>(m.data.size()));
    }
    return m;
}

inline RawMatrix to_csc(const RawMatrix& csr) {
    RawMatrix m{MatrixLayout::csc, csr.bins, csr.pixels, {}, {}, std::vector<std::int32_t>(csr.pixels + 1, 0)};
    for (std::int32_t p : csr.indices) ++m.indptr[static_cast<std::size_t>(p) + 1];
    for (std::size_t p = 0; p < csr.pixels; ++p) m.indptr[p + 1] += m.indptr[p];
    m.data.resize(csr.data.size());
    m.indices.resize(csr.data.size());
    std::vector<std::int32_t> at(m.indptr.begin(), m.indptr.end() - 1);
    for (std::size_t b = 0; b < csr.bins; ++b)
        for (auto k = csr.indptr[b]; k < csr.indptr[b + 1]; ++k) {
            const auto slot = at[static_cast<std::size_t>(csr.indices[k])]++;
            m.data[slot] = csr.data[k];
            m.indices[slot] = static_cast<std::int32_t>(b);
        }
    return m;
}

}  // namespace bslz4::test
