#include "frame_format.hpp"

#include "bslz4/chunk_header.hpp"

namespace bslz4::cuda::detail {

FrameFormat::FrameFormat(std::size_t ni_, std::size_t nj_, PixelType t)
    : ni(ni_), nj(nj_), npix(ni_ * nj_), type(t), bpp(pixel_size(t)) {
    const std::size_t n = npix;
    const std::size_t shuffled = n - n % 8;
    geometry.frame_pixels = n;
    geometry.elem_size = static_cast<std::uint32_t>(bpp);
    geometry.block_elems = static_cast<std::uint32_t>(abi::kBlockBytes / bpp);
    geometry.n_blocks = static_cast<std::uint32_t>((shuffled + geometry.block_elems - 1) / geometry.block_elems);
    geometry.n_tiles = geometry.n_blocks + 1;
    geometry.last_block_elems =
        geometry.n_blocks ? static_cast<std::uint32_t>(shuffled - (geometry.n_blocks - 1) * std::size_t{geometry.block_elems}) : 0;
    geometry.tail_elems = static_cast<std::uint32_t>(n % 8);
    const std::size_t align_pixels = abi::kDenseAlign / bpp;
    geometry.dense_stride = (n + align_pixels - 1) / align_pixels * align_pixels;
    // A list of cap pixels (values and 4-byte indices) takes no more room than the frame.
    cap = n * bpp / (4 + bpp);
    // No LZ4 block of 8 kB is longer than kMaxCompressedBlock (LZ4_compressBound), so no
    // chunk the CPU decodes is longer than this; a longer one is refused before upload.
    max_chunk_bytes = kChunkHeaderBytes + std::size_t{geometry.n_blocks} * (kBlockHeaderBytes + abi::kMaxCompressedBlock) +
                      std::size_t{geometry.tail_elems} * bpp;
}

}  // namespace bslz4::cuda::detail
