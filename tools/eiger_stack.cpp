#include "eiger_stack.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include "bslz4/encode.hpp"
#include "bslz4/synthetic_eiger.hpp"

namespace bslz4::tool {

std::size_t EigerStack::compressed_bytes() const {
    std::size_t n = 0;
    for (const auto& c : chunks) n += c.size();
    return n;
}

std::vector<ByteView> EigerStack::views(std::size_t count) const {
    std::vector<ByteView> out;
    out.reserve(count);
    for (std::size_t f = 0; f < count; ++f) out.emplace_back(chunks[f % chunks.size()]);
    return out;
}

IntegrationMatrix radial_matrix(std::size_t ni, std::size_t nj, std::size_t bins) {
    const double ci = 0.5 * static_cast<double>(ni), cj = 0.5 * static_cast<double>(nj);
    const double step = std::hypot(ci, cj) / static_cast<double>(bins - 1);
    std::vector<float> data;
    std::vector<std::uint32_t> indices, indptr = {0};
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j) {  // a column per pixel (CSC)
            const double r = std::hypot(static_cast<double>(i) + 0.5 - ci, static_cast<double>(j) + 0.5 - cj) / step;
            const auto b = std::min(static_cast<std::size_t>(r), bins - 2);
            const double frac = std::min(1.0, r - static_cast<double>(b));
            indices.push_back(static_cast<std::uint32_t>(b));
            data.push_back(static_cast<float>(1.0 - frac));
            indices.push_back(static_cast<std::uint32_t>(b + 1));
            data.push_back(static_cast<float>(frac));
            indptr.push_back(static_cast<std::uint32_t>(data.size()));
        }
    const MatrixInput in{MatrixLayout::csc, bins, ni * nj, data.data(), data.size(), IndexType::u32,
                         indices.data(), indices.size(), indptr.data(), indptr.size()};
    return normalise_matrix(in);
}

EigerStack make_eiger_stack(std::size_t ni, std::size_t nj, PixelType type, std::size_t frames) {
    EigerStack stack;
    stack.ni = ni;
    stack.nj = nj;
    stack.type = type;
    stack.mask = synthetic_eiger_mask(ni, nj);
    stack.chunks.resize(frames);
    const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(frames)));
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
        pool.emplace_back([&, w] {
            for (std::size_t f = w; f < frames; f += workers)
                stack.chunks[f] = encode_chunk(synthetic_eiger_frame(ni, nj, type, f), pixel_size(type));
        });
    for (auto& t : pool) t.join();
    return stack;
}

}  // namespace bslz4::tool
