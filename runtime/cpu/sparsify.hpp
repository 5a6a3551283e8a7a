// Lists the pixels of a run of decoded values that the mask allows and that pass the cut.
// Runs of 64 are tested with a loop the compiler vectorises, a byte a pixel; most runs of a
// background frame have no hit and end there. A run with hits has its bytes made into a word of
// bits and lists only the set ones, lowest first: in a dense frame (a third of the pixels
// listed) that is a third of the stores of listing every pixel branch-free.
#pragma once
#include <cstddef>
#include <cstdint>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "pixel_threshold.hpp"

namespace bslz4::detail {

// Bit k set where hit[k] (0 or 1), k < 64.
inline std::uint64_t hit_bits(const std::uint8_t* hit) {
    std::uint64_t bits = 0;
#if defined(__SSE2__)
    for (int q = 0; q < 4; ++q) {
        const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(hit + 16 * q));
        const auto m = static_cast<unsigned>(_mm_movemask_epi8(_mm_sub_epi8(_mm_setzero_si128(), x)));  // 1 -> 0xff
        bits |= std::uint64_t{m} << (16 * q);
    }
#else
    for (unsigned k = 0; k < 64; ++k) bits |= std::uint64_t{hit[k]} << k;
#endif
    return bits;
}

template <class T, class Pred>
std::size_t list_pixels(const T* v, const std::uint8_t* mask, std::size_t n, std::uint32_t first, Pred above, T* out_v,
                        std::uint32_t* out_i) {
    constexpr std::size_t kRun = 64;
    std::size_t count = 0;
    std::size_t i = 0;
    for (; i + kRun <= n; i += kRun) {
        std::uint8_t hit[kRun];
        unsigned any = 0;
        for (std::size_t k = 0; k < kRun; ++k) {
            hit[k] = static_cast<std::uint8_t>(static_cast<unsigned>(mask[i + k] != 0) & static_cast<unsigned>(above(v[i + k])));
            any |= hit[k];
        }
        if (!any) continue;
        for (std::uint64_t bits = hit_bits(hit); bits; bits &= bits - 1) {
            const std::size_t k = i + static_cast<std::size_t>(__builtin_ctzll(bits));
            out_v[count] = v[k];
            out_i[count] = first + static_cast<std::uint32_t>(k);
            ++count;
        }
    }
    for (; i < n; ++i) {
        out_v[count] = v[i];
        out_i[count] = first + static_cast<std::uint32_t>(i);
        count += (mask[i] != 0) & above(v[i]);
    }
    return count;
}

// The entry point: out_v / out_i need room for n entries (a write may land one past the
// count, never past n).
template <class T>
std::size_t list_above(const T* v, const std::uint8_t* mask, std::size_t n, std::uint32_t first,
                       const PixelThreshold<T>& th, T* out_v, std::uint32_t* out_i) {
    switch (th.mode) {
        case CutMode::none: return 0;
        case CutMode::all: return list_pixels(v, mask, n, first, [](T) { return true; }, out_v, out_i);
        case CutMode::compare: break;
    }
    return list_pixels(v, mask, n, first, th, out_v, out_i);
}

}  // namespace bslz4::detail
