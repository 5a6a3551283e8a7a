// value > cut on the device, the CPU decoder's rule: integers against an integer threshold,
// f32 against the largest float not above the cut (the same answer as comparing in double,
// without double registers), NaN never.
#pragma once
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

template <class T>
__device__ inline bool above_cut(T v, const bslz4_abi::Cut& c) {
    if constexpr (std::is_floating_point<T>::value) {
        static_assert(sizeof(T) == 4, "the GPU decodes f32, not f64");
        return v > c.cut_f32;  // NaN never passes; nor does any value when the cut is NaN
    } else {
        return c.mode == bslz4_abi::kCutAll || (c.mode == bslz4_abi::kCutCompare && int64_t(v) > c.threshold);
    }
}

// Whether any of the 32 pixels in px (8 x sizeof(T) words, packed) passes the cut, ignoring
// the mask: most runs of a detector frame are background, and for 8- and 16-bit pixels a
// SIMD-within-a-register maximum answers that in a few instructions.
template <class T>
__device__ inline bool any_above_32(const uint32_t* px, const bslz4_abi::Cut& c) {
    if constexpr (sizeof(T) <= 2 && !std::is_floating_point<T>::value) {
        if (c.mode != bslz4_abi::kCutCompare) return c.mode == bslz4_abi::kCutAll;
        constexpr bool kSigned = std::is_signed<T>::value;
        uint32_t m = px[0];
#pragma unroll
        for (unsigned q = 1; q < 8 * sizeof(T); ++q) {
            if (sizeof(T) == 1) m = kSigned ? __vmaxs4(m, px[q]) : __vmaxu4(m, px[q]);
            else m = kSigned ? __vmaxs2(m, px[q]) : __vmaxu2(m, px[q]);
        }
        int64_t top;
        if (sizeof(T) == 1) {
            const uint32_t a = kSigned ? __vmaxs4(m, m >> 16) : __vmaxu4(m, m >> 16);  // bytes 0,1 hold the max pairs
            top = kSigned ? int64_t(int8_t(max(int8_t(a), int8_t(a >> 8)))) : int64_t(max(a & 0xFFu, (a >> 8) & 0xFFu));
        } else {
            top = kSigned ? int64_t(max(int16_t(m), int16_t(m >> 16))) : int64_t(max(m & 0xFFFFu, m >> 16));
        }
        return top > c.threshold;
    } else {
        bool any = false;
#pragma unroll
        for (unsigned e = 0; e < 32; ++e) {
            T v;
            memcpy(&v, px + e, 4);
            any |= above_cut(v, c);
        }
        return any;
    }
}

// The unsigned integer of T's size: unshuffled bits are assembled in it.
template <class T> struct BitsOf;
template <> struct BitsOf<uint8_t> { using type = uint8_t; };
template <> struct BitsOf<int8_t> { using type = uint8_t; };
template <> struct BitsOf<uint16_t> { using type = uint16_t; };
template <> struct BitsOf<int16_t> { using type = uint16_t; };
template <> struct BitsOf<uint32_t> { using type = uint32_t; };
template <> struct BitsOf<int32_t> { using type = uint32_t; };
template <> struct BitsOf<float> { using type = uint32_t; };

}  // namespace bslz4_kernels
