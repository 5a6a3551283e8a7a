// value > cut on the device, the CPU decoder's rule: integers against an integer threshold,
// floats compared in double (exact for f32), NaN never.
#pragma once
#include <type_traits>

#include "kernel_abi.h"

namespace bslz4_kernels {

template <class T>
__device__ inline bool above_cut(T v, const bslz4_abi::Cut& c) {
    if constexpr (std::is_floating_point<T>::value) {
        return double(v) > c.cut;
    } else {
        return c.mode == bslz4_abi::kCutAll || (c.mode == bslz4_abi::kCutCompare && int64_t(v) > c.threshold);
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
