// Both directions work in two steps through byte rows (row j = byte j of every element):
// a bit step that transposes 8x8 bit tiles held in 64-bit words, and a byte step that
// interleaves the rows. With SSE2 (every x86-64) the unshuffle gathers sixteen tiles with byte
// unpacks and transposes them two per register, and the shuffle takes each plane's bits with
// movemasks; the scalar code handles the rest and other hosts.
#include "bitshuffle.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace bslz4::detail {

namespace {

// Transposes the 8x8 bit matrix whose row r is byte r: bit (8r + c) <-> bit (8c + r).
inline std::uint64_t transpose_8x8(std::uint64_t x) {
    std::uint64_t t = (x ^ (x >> 7)) & 0x00AA00AA00AA00AAULL;
    x ^= t ^ (t << 7);
    t = (x ^ (x >> 14)) & 0x0000CCCC0000CCCCULL;
    x ^= t ^ (t << 14);
    t = (x ^ (x >> 28)) & 0x00000000F0F0F0F0ULL;
    x ^= t ^ (t << 28);
    return x;
}

inline std::uint64_t load64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}
inline void store64(std::uint8_t* p, std::uint64_t v) { std::memcpy(p, &v, 8); }

#if defined(__SSE2__)
inline __m128i transpose_8x8_x2(__m128i x) {
    const __m128i m1 = _mm_set1_epi64x(0x00AA00AA00AA00AALL);
    const __m128i m2 = _mm_set1_epi64x(0x0000CCCC0000CCCCLL);
    const __m128i m3 = _mm_set1_epi64x(0x00000000F0F0F0F0LL);
    __m128i t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 7)), m1);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 7)));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 14)), m2);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 14)));
    t = _mm_and_si128(_mm_xor_si128(x, _mm_srli_epi64(x, 28)), m3);
    x = _mm_xor_si128(x, _mm_xor_si128(t, _mm_slli_epi64(t, 28)));
    return x;
}
#endif

// Byte row j of n elements from the 8 planes of byte j (plane stride nb = n/8).
void planes_to_row(const std::uint8_t* planes, std::size_t nb, std::uint8_t* row) {
    std::size_t g = 0;
#if defined(__SSE2__)
    for (; g + 16 <= nb; g += 16) {
        __m128i a[8];
        for (int k = 0; k < 8; ++k) a[k] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(planes + k * nb + g));
        const __m128i b0 = _mm_unpacklo_epi8(a[0], a[1]), b1 = _mm_unpackhi_epi8(a[0], a[1]);
        const __m128i b2 = _mm_unpacklo_epi8(a[2], a[3]), b3 = _mm_unpackhi_epi8(a[2], a[3]);
        const __m128i b4 = _mm_unpacklo_epi8(a[4], a[5]), b5 = _mm_unpackhi_epi8(a[4], a[5]);
        const __m128i b6 = _mm_unpacklo_epi8(a[6], a[7]), b7 = _mm_unpackhi_epi8(a[6], a[7]);
        const __m128i c0 = _mm_unpacklo_epi16(b0, b2), c1 = _mm_unpackhi_epi16(b0, b2);
        const __m128i c2 = _mm_unpacklo_epi16(b1, b3), c3 = _mm_unpackhi_epi16(b1, b3);
        const __m128i c4 = _mm_unpacklo_epi16(b4, b6), c5 = _mm_unpackhi_epi16(b4, b6);
        const __m128i c6 = _mm_unpacklo_epi16(b5, b7), c7 = _mm_unpackhi_epi16(b5, b7);
        const __m128i d[8] = {_mm_unpacklo_epi32(c0, c4), _mm_unpackhi_epi32(c0, c4), _mm_unpacklo_epi32(c1, c5),
                              _mm_unpackhi_epi32(c1, c5), _mm_unpacklo_epi32(c2, c6), _mm_unpackhi_epi32(c2, c6),
                              _mm_unpacklo_epi32(c3, c7), _mm_unpackhi_epi32(c3, c7)};
        for (int r = 0; r < 8; ++r)
            _mm_storeu_si128(reinterpret_cast<__m128i*>(row + (g + 2 * r) * 8), transpose_8x8_x2(d[r]));
    }
#endif
    for (; g < nb; ++g) {
        std::uint64_t x = 0;
        for (int k = 0; k < 8; ++k) x |= std::uint64_t{planes[k * nb + g]} << (8 * k);
        store64(row + g * 8, transpose_8x8(x));
    }
}

// Elements (n of es bytes) from es byte rows of n bytes.
void rows_to_elements(const std::uint8_t* rows, std::uint8_t* out, std::size_t n, std::size_t es) {
    std::size_t i = 0;
#if defined(__SSE2__)
    if (es == 2) {
        for (; i + 16 <= n; i += 16) {
            const __m128i v0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + i));
            const __m128i v1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + n + i));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i), _mm_unpacklo_epi8(v0, v1));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * i + 16), _mm_unpackhi_epi8(v0, v1));
        }
    } else if (es == 4) {
        for (; i + 16 <= n; i += 16) {
            __m128i v[4];
            for (int j = 0; j < 4; ++j) v[j] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows + j * n + i));
            const __m128i lo01 = _mm_unpacklo_epi8(v[0], v[1]), hi01 = _mm_unpackhi_epi8(v[0], v[1]);
            const __m128i lo23 = _mm_unpacklo_epi8(v[2], v[3]), hi23 = _mm_unpackhi_epi8(v[2], v[3]);
            __m128i* o = reinterpret_cast<__m128i*>(out + 4 * i);
            _mm_storeu_si128(o + 0, _mm_unpacklo_epi16(lo01, lo23));
            _mm_storeu_si128(o + 1, _mm_unpackhi_epi16(lo01, lo23));
            _mm_storeu_si128(o + 2, _mm_unpacklo_epi16(hi01, hi23));
            _mm_storeu_si128(o + 3, _mm_unpackhi_epi16(hi01, hi23));
        }
    }
#endif
    for (; i < n; ++i)
        for (std::size_t j = 0; j < es; ++j) out[i * es + j] = rows[j * n + i];
}

// The 8 planes of byte row j (n = 8 nb bytes; plane stride nb), the inverse of planes_to_row.
// With SSE2 a plane's bit k of 64 bytes is one movemask of each 16 after shifting bit k to the
// top of every byte (adding a byte to itself shifts it left without touching its neighbours).
void row_to_planes(const std::uint8_t* row, std::size_t nb, std::uint8_t* planes) {
    std::size_t g = 0;
#if defined(__SSE2__)
    for (; g + 8 <= nb; g += 8) {
        __m128i a[4];
        for (int q = 0; q < 4; ++q) a[q] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(row + g * 8 + 16 * q));
        for (int k = 7; k >= 0; --k) {
            std::uint64_t bits = 0;
            for (int q = 0; q < 4; ++q) {
                bits |= std::uint64_t{static_cast<std::uint16_t>(_mm_movemask_epi8(a[q]))} << (16 * q);
                a[q] = _mm_add_epi8(a[q], a[q]);
            }
            store64(planes + k * nb + g, bits);
        }
    }
#endif
    for (; g < nb; ++g) {
        const std::uint64_t x = transpose_8x8(load64(row + g * 8));
        for (int k = 0; k < 8; ++k) planes[k * nb + g] = static_cast<std::uint8_t>(x >> (8 * k));
    }
}

// Byte rows (row j: byte j of each of the n elements) from elements of es bytes, the inverse of
// rows_to_elements. With SSE2, 2-byte elements split into their low and high bytes by a mask, a
// shift and a pack; 4-byte elements by splitting twice (bytes 0 and 2, then 0 from 2).
void elements_to_rows(const std::uint8_t* in, std::uint8_t* rows, std::size_t n, std::size_t es) {
    std::size_t i = 0;
#if defined(__SSE2__)
    const __m128i low = _mm_set1_epi16(0x00FF);
    const auto evens = [&](__m128i a, __m128i b) { return _mm_packus_epi16(_mm_and_si128(a, low), _mm_and_si128(b, low)); };
    const auto odds = [](__m128i a, __m128i b) { return _mm_packus_epi16(_mm_srli_epi16(a, 8), _mm_srli_epi16(b, 8)); };
    const auto load = [](const std::uint8_t* p) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p)); };
    const auto store = [](std::uint8_t* p, __m128i v) { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); };
    if (es == 2) {
        for (; i + 16 <= n; i += 16) {
            const __m128i v0 = load(in + 2 * i), v1 = load(in + 2 * i + 16);
            store(rows + i, evens(v0, v1));
            store(rows + n + i, odds(v0, v1));
        }
    } else if (es == 4) {
        for (; i + 16 <= n; i += 16) {
            const __m128i v0 = load(in + 4 * i), v1 = load(in + 4 * i + 16), v2 = load(in + 4 * i + 32),
                          v3 = load(in + 4 * i + 48);
            const __m128i b02a = evens(v0, v1), b02b = evens(v2, v3), b13a = odds(v0, v1), b13b = odds(v2, v3);
            store(rows + i, evens(b02a, b02b));
            store(rows + n + i, evens(b13a, b13b));
            store(rows + 2 * n + i, odds(b02a, b02b));
            store(rows + 3 * n + i, odds(b13a, b13b));
        }
    }
#endif
    for (; i < n; ++i)
        for (std::size_t j = 0; j < es; ++j) rows[j * n + i] = in[i * es + j];
}

}  // namespace

void bit_unshuffle(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t es, std::uint8_t* scratch) {
    const std::size_t nb = n / 8;
    if (es == 1) {
        planes_to_row(in, nb, out);
        return;
    }
    for (std::size_t j = 0; j < es; ++j) planes_to_row(in + j * 8 * nb, nb, scratch + j * n);
    rows_to_elements(scratch, out, n, es);
}

void bit_shuffle(const std::uint8_t* in, std::uint8_t* out, std::size_t n, std::size_t es, std::uint8_t* scratch) {
    const std::size_t nb = n / 8;
    if (es == 1) {
        row_to_planes(in, nb, out);
        return;
    }
    elements_to_rows(in, scratch, n, es);
    for (std::size_t j = 0; j < es; ++j) row_to_planes(scratch + j * n, nb, out + j * 8 * nb);
}

}  // namespace bslz4::detail
