// Lists a block's pixels above the cut straight from its bit planes, without unshuffling the
// block: the comparison "value > t" runs on whole planes (64 pixels a word, most significant
// plane first, all-zero planes skipped), and only the 64-pixel words holding a hit are turned
// back into pixel values. Detector frames are mostly background, whose values leave the high
// planes empty, so most blocks are decided from a few planes and most words have no hit.
// Integer pixels only (a float's bits do not order as its value).
#pragma once
#include <cstddef>
#include <cstdint>

#include "bslz4/cpu_path.hpp"

namespace bslz4::detail {

// One decoded block as bitshuffle lays it out: plane p (bit p of every element, p < 8 x es)
// is n / 8 bytes at planes + p * n / 8, element e at bit e % 8 of byte e / 8.
struct PlaneBlock {
    const std::uint8_t* planes;  // followed by at least kPlaneSlack readable bytes
    std::size_t n;               // elements, a multiple of 8
    const std::uint64_t* mask;   // the frame's mask as bits: element e allowed if bit e % 64 of
                                 // mask[e / 64] is set; one word readable past the frame's last
    std::uint32_t first;         // the frame element of the block's first element
};

constexpr std::size_t kPlaneSlack = 64;

// The cut as the planes see it: a pixel passes when (bits ^ flip) > t as unsigned numbers, or
// always (all). Signed pixels flip their sign bit, which orders two's complement as unsigned.
struct PlaneCut {
    std::uint64_t t = 0;
    std::uint64_t flip = 0;
    bool all = false;
};

// Writes the passing pixels of a block in element order (values of es bytes to out_v, frame
// element indices to out_i, room for n of each) and returns how many.
using PlaneCollectFn = std::size_t (*)(const PlaneBlock& block, const PlaneCut& cut, void* out_v,
                                       std::uint32_t* out_i);

// The collector for es-byte integer pixels (1, 2, 4 or 8) on that path (which this CPU must run).
PlaneCollectFn plane_collector(std::size_t es, CpuPath path);

// Each path's collectors, from its own translation unit compiled for its instruction set.
PlaneCollectFn plane_collector_portable(std::size_t es);
PlaneCollectFn plane_collector_avx2(std::size_t es);
PlaneCollectFn plane_collector_avx512(std::size_t es);

}  // namespace bslz4::detail
