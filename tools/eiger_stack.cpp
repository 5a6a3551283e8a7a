#include "eiger_stack.hpp"

#include <algorithm>
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
