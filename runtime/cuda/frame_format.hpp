// What one frame is to the GPU: its pixels, its blocks and tiles as the kernels walk them, how
// many pixels its list may hold on the device, and the longest chunk that can decode to it.
#pragma once
#include <cstddef>

#include "bslz4/pixel_type.hpp"
#include "kernel_abi.h"

namespace bslz4::cuda::detail {

namespace abi = bslz4_abi;

struct FrameFormat {
    FrameFormat(std::size_t ni, std::size_t nj, PixelType type);

    std::size_t ni, nj, npix;
    PixelType type;
    std::size_t bpp;
    abi::FrameGeometry geometry{};
    // A frame with more pixels above the cut than this is listed on the host.
    std::size_t cap;
    std::size_t max_chunk_bytes;

    std::size_t frame_bytes() const { return npix * bpp; }
};

}  // namespace bslz4::cuda::detail
