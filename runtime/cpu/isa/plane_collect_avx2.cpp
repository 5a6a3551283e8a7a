// The AVX2 path: no mask registers, so a 16-pixel group with hits becomes its values by
// broadcasting each live plane's 16 bits, testing every lane's bit (and + compare) and adding
// the plane's weight where set; the group's values go to a small array and the hits are copied
// out one by one. Words with a single hit (most words of a dense frame under a cut) take the
// scalar expansion, which is cheaper for one pixel. Compiled with -mavx2 -mbmi2 -mpopcnt.
#include <immintrin.h>

#include "../plane_collect_body.hpp"

namespace bslz4::detail {

namespace {

// Lane i of a group of kLanes lanes holds (1 << i) in lane-width integers, for the bit test.
template <class U>
__m256i lane_bits();
template <>
__m256i lane_bits<std::uint16_t>() {
    return _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, -32768);
}
template <>
__m256i lane_bits<std::uint32_t>() {
    return _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
}

template <class U>
__m256i spread(std::uint32_t bits);
template <>
__m256i spread<std::uint16_t>(std::uint32_t bits) {
    return _mm256_set1_epi16(static_cast<short>(bits));
}
template <>
__m256i spread<std::uint32_t>(std::uint32_t bits) {
    return _mm256_set1_epi32(static_cast<int>(bits));
}
template <class U>
__m256i weight(unsigned p);
template <>
__m256i weight<std::uint16_t>(unsigned p) {
    return _mm256_set1_epi16(static_cast<short>(1u << p));
}
template <>
__m256i weight<std::uint32_t>(unsigned p) {
    return _mm256_set1_epi32(static_cast<int>(1u << p));
}
template <class U>
__m256i lanes_equal(__m256i a, __m256i b);
template <>
__m256i lanes_equal<std::uint16_t>(__m256i a, __m256i b) {
    return _mm256_cmpeq_epi16(a, b);
}
template <>
__m256i lanes_equal<std::uint32_t>(__m256i a, __m256i b) {
    return _mm256_cmpeq_epi32(a, b);
}

template <class U>
struct ExpandAvx2 {
    const LivePlanes<U>& planes;
    explicit ExpandAvx2(const LivePlanes<U>& p) : planes(p) {}
    std::size_t operator()(std::size_t offset, std::uint64_t hits, std::uint32_t first, U* out_v,
                           std::uint32_t* out_i) const {
        if constexpr (sizeof(U) == 2 || sizeof(U) == 4) {
            if ((hits & (hits - 1)) == 0) return ExpandEachHit<U>(planes)(offset, hits, first, out_v, out_i);
            constexpr unsigned kLanes = 32 / sizeof(U);
            constexpr std::uint64_t kGroup = (std::uint64_t{1} << kLanes) - 1;
            std::uint64_t bits[8 * sizeof(U)];
            planes.words_at(offset, bits);
            const __m256i lanes = lane_bits<U>();
            alignas(32) U values[kLanes];
            std::size_t c = 0;
            for (unsigned g = 0; g < 64 / kLanes; ++g) {
                std::uint64_t h = (hits >> (g * kLanes)) & kGroup;
                if (!h) continue;
                __m256i v = _mm256_setzero_si256();
                for (unsigned k = 0; k < planes.n; ++k) {
                    const __m256i set = lanes_equal<U>(
                        _mm256_and_si256(spread<U>(static_cast<std::uint32_t>((bits[k] >> (g * kLanes)) & kGroup)), lanes),
                        lanes);
                    v = _mm256_or_si256(v, _mm256_and_si256(set, weight<U>(planes.live[k])));
                }
                _mm256_store_si256(reinterpret_cast<__m256i*>(values), v);
                for (; h; h &= h - 1, ++c) {
                    const unsigned i = static_cast<unsigned>(_tzcnt_u64(h));
                    out_v[c] = values[i];
                    out_i[c] = first + g * kLanes + i;
                }
            }
            return c;
        } else {
            return ExpandEachHit<U>(planes)(offset, hits, first, out_v, out_i);
        }
    }
};

}  // namespace

PlaneCollectFn plane_collector_avx2(std::size_t es) { return collector_for<ExpandAvx2>(es); }

}  // namespace bslz4::detail
