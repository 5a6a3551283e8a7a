// The AVX-512 path (F, BW, VL, VBMI2): a word with hits becomes its 64 values in registers, one
// masked add a live plane (the plane's 64 bits are the lane mask, its bit weight the addend),
// and the hits leave through compresses, values and indices alike. Compress into a register
// and a masked store, not a compress to memory, which some cores (Zen 4) run in microcode.
// Compiled with -mavx512f -mavx512bw -mavx512vl -mavx512vbmi2 -mbmi2 -mpopcnt.
#include <immintrin.h>

#include "../plane_collect_body.hpp"

namespace bslz4::detail {

namespace {

inline unsigned pop(std::uint64_t x) { return static_cast<unsigned>(_mm_popcnt_u64(x)); }

// Indices of the hit lanes: their lane numbers compressed as bytes (one compress for the
// word), widened 16 at a time in registers (a store and reload of the bytes would wait on the
// store); most words hold a hit or two, so one widening serves.
inline std::size_t store_indices(std::uint64_t hits, std::uint32_t first, std::uint32_t* out_i) {
    const __m512i lanes = _mm512_set_epi8(63, 62, 61, 60, 59, 58, 57, 56, 55, 54, 53, 52, 51, 50, 49, 48, 47, 46, 45,
                                          44, 43, 42, 41, 40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30, 29, 28, 27, 26,
                                          25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5,
                                          4, 3, 2, 1, 0);
    const __m512i packed = _mm512_maskz_compress_epi8(hits, lanes);
    const __m512i base = _mm512_set1_epi32(static_cast<int>(first));
    const unsigned n = pop(hits);
    const auto widen = [&](__m128i bytes, unsigned j) {
        const __m512i idx = _mm512_add_epi32(base, _mm512_cvtepu8_epi32(bytes));
        const unsigned left = n - j < 16 ? n - j : 16;
        _mm512_mask_storeu_epi32(out_i + j, static_cast<__mmask16>(_bzhi_u32(~0u, left)), idx);
    };
    widen(_mm512_castsi512_si128(packed), 0);
    if (n > 16) widen(_mm512_extracti32x4_epi32(packed, 1), 16);
    if (n > 32) widen(_mm512_extracti32x4_epi32(packed, 2), 32);
    if (n > 48) widen(_mm512_extracti32x4_epi32(packed, 3), 48);
    return n;
}

// Lane-width integers: the 64 lanes of a word in 64 / (64 / sizeof(U)) registers.
template <class U>
struct ExpandAvx512 {
    static constexpr unsigned kPerReg = 64 / sizeof(U);
    static constexpr unsigned kRegs = 64 / kPerReg;
    const LivePlanes<U>& planes;
    __m512i weight[sizeof(U) == 8 ? 1 : 8 * sizeof(U)];  // each live plane's bit, in every lane
    explicit ExpandAvx512(const LivePlanes<U>& p) : planes(p) {
        for (unsigned k = 0; k < planes.n; ++k) {
            if constexpr (sizeof(U) == 1) weight[k] = _mm512_set1_epi8(static_cast<char>(1u << planes.live[k]));
            if constexpr (sizeof(U) == 2) weight[k] = _mm512_set1_epi16(static_cast<short>(1u << planes.live[k]));
            if constexpr (sizeof(U) == 4) weight[k] = _mm512_set1_epi32(static_cast<int>(1u << planes.live[k]));
        }
    }
    std::size_t operator()(std::size_t offset, std::uint64_t hits, std::uint32_t first, U* out_v,
                           std::uint32_t* out_i) const {
        if constexpr (sizeof(U) == 8) {
            return ExpandEachHit<U>(planes)(offset, hits, first, out_v, out_i);
        } else {
            __m512i v[kRegs];
            for (unsigned r = 0; r < kRegs; ++r) v[r] = _mm512_setzero_si512();
            for (unsigned k = 0; k < planes.n; ++k) {
                const std::uint64_t b = load_word(planes.row[k] + offset);
                for (unsigned r = 0; r < kRegs; ++r) {
                    if constexpr (sizeof(U) == 1) v[r] = _mm512_mask_add_epi8(v[r], b, v[r], weight[k]);
                    if constexpr (sizeof(U) == 2)
                        v[r] = _mm512_mask_add_epi16(v[r], static_cast<__mmask32>(b >> (32 * r)), v[r], weight[k]);
                    if constexpr (sizeof(U) == 4)
                        v[r] = _mm512_mask_or_epi32(v[r], static_cast<__mmask16>(b >> (16 * r)), v[r], weight[k]);
                }
            }
            std::size_t c = 0;
            for (unsigned r = 0; r < kRegs; ++r) {
                const std::uint64_t k = kPerReg == 64 ? hits : (hits >> (kPerReg * r)) & ((std::uint64_t{1} << (kPerReg % 64)) - 1);
                const unsigned n = pop(k);
                const std::uint64_t first_n = _bzhi_u64(~std::uint64_t{0}, n);
                if constexpr (sizeof(U) == 1) _mm512_mask_storeu_epi8(out_v + c, first_n, _mm512_maskz_compress_epi8(k, v[r]));
                if constexpr (sizeof(U) == 2)
                    _mm512_mask_storeu_epi16(out_v + c, static_cast<__mmask32>(first_n),
                                             _mm512_maskz_compress_epi16(static_cast<__mmask32>(k), v[r]));
                if constexpr (sizeof(U) == 4)
                    _mm512_mask_storeu_epi32(out_v + c, static_cast<__mmask16>(first_n),
                                             _mm512_maskz_compress_epi32(static_cast<__mmask16>(k), v[r]));
                c += n;
            }
            return store_indices(hits, first, out_i);
        }
    }
};

}  // namespace

PlaneCollectFn plane_collector_avx512(std::size_t es) { return collector_for<ExpandAvx512>(es); }

}  // namespace bslz4::detail
