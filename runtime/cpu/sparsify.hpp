// Lists the pixels of a run of decoded values that the mask allows and that pass the cut.
// Most pixels of a detector frame are background, so runs of 64 are first tested with a loop
// the compiler vectorises; only runs with a hit are listed (branch-free).
#pragma once
#include <cstddef>
#include <cstdint>

#include "pixel_threshold.hpp"

namespace bslz4::detail {

template <class T, class Pred>
std::size_t list_pixels(const T* v, const std::uint8_t* mask, std::size_t n, std::uint32_t first, Pred above, T* out_v,
                        std::uint32_t* out_i) {
    constexpr std::size_t kRun = 64;
    std::size_t count = 0;
    std::size_t i = 0;
    auto list = [&](std::size_t from, std::size_t to) {
        for (std::size_t k = from; k < to; ++k) {
            out_v[count] = v[k];
            out_i[count] = first + static_cast<std::uint32_t>(k);
            count += (mask[k] != 0) & above(v[k]);
        }
    };
    for (; i + kRun <= n; i += kRun) {
        unsigned any = 0;
        for (std::size_t k = i; k < i + kRun; ++k) any |= static_cast<unsigned>(mask[k] != 0) & static_cast<unsigned>(above(v[k]));
        if (any) list(i, i + kRun);
    }
    list(i, n);
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
