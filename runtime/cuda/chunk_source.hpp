// The chunks of one call, frame by frame, wherever the caller holds them (a vector of views,
// or offsets into one buffer): a reference to the caller's lookup, so the engine's stages need
// no template for each way of holding chunks. Valid while the call lasts.
#pragma once
#include <cstddef>

#include "bslz4/byte_view.hpp"

namespace bslz4::cuda::detail {

class ChunkSource {
public:
    template <class Lookup>
    explicit ChunkSource(const Lookup& lookup)
        : lookup_(&lookup), call_([](const void* l, std::size_t frame) { return ByteView((*static_cast<const Lookup*>(l))(frame)); }) {}
    ByteView operator()(std::size_t frame) const { return call_(lookup_, frame); }

private:
    const void* lookup_;
    ByteView (*call_)(const void*, std::size_t);
};

}  // namespace bslz4::cuda::detail
