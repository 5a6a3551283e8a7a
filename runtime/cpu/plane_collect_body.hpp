// The collect every CPU path shares: the plane comparison and the walk over 64-pixel words.
// Only the step that turns a word with hits back into values (an Expand policy) differs by
// instruction set. Included only by the translation units in isa/, each compiled for its own
// instruction set; everything here is in an anonymous namespace, so a function compiled with
// AVX-512 enabled is never the one another unit's inline copy resolves to.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "plane_collect.hpp"

namespace bslz4::detail {
namespace {

inline std::uint64_t load_word(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

// The mask bits of frame elements e .. e + 63 (bit 0: element e).
inline std::uint64_t mask_word(const std::uint64_t* mask, std::size_t e) {
    const unsigned s = e % 64;
    const std::uint64_t lo = mask[e / 64];
    return s == 0 ? lo : (lo >> s) | (mask[e / 64 + 1] << (64 - s));
}

// A stripe of words at a time (8,192 pixels), so the two state arrays stay small whatever the
// header's block size.
constexpr std::size_t kStripeWords = 128;

// The live planes of a stripe (those with a set bit in a pixel the mask allows), least
// significant first: plane live[k]'s stripe starts at row[k].
template <class U>
struct LivePlanes {
    const std::uint8_t* row[8 * sizeof(U)];
    unsigned live[8 * sizeof(U)];
    unsigned n = 0;
    // bits[k] = the 64 bits of plane live[k] at byte `offset` of the stripe.
    void words_at(std::size_t offset, std::uint64_t* bits) const {
        for (unsigned k = 0; k < n; ++k) bits[k] = load_word(row[k] + offset);
    }
};

// The comparison (bits ^ flip) > t, most significant plane first, splits at the planes above
// t's highest set bit (`low` planes and up): there t has only 0s, so a pixel with a 1 in any
// of them is greater, and only the pixels with none (nearly all, in a background) go on to the
// comparison with t's low bits. That one runs from plane low - 1 down: a pixel is greater at
// the first plane where it has a 1 and t a 0 while equal above. A plane that is zero in every
// allowed pixel changes nothing where t has a 0 and ends the comparison where t has a 1.
// gt[w] ends as the allowed pixels of word w that pass; returns false when none can.
template <class U>
bool compare_planes(const PlaneBlock& block, std::size_t w0, std::size_t nw, const std::uint64_t* allowed,
                    const PlaneCut& cut, LivePlanes<U>& planes, std::uint64_t* gt, std::uint64_t* eq) {
    const std::size_t nb = block.n / 8;
    const std::uint8_t* const stripe = block.planes + w0 * 8;
    constexpr unsigned kPlanes = 8 * sizeof(U);
    const unsigned low = cut.t ? 64 - static_cast<unsigned>(__builtin_clzll(cut.t)) : 0;
    std::uint64_t live = 0;
    std::uint64_t any_high = 0;
    for (std::size_t w = 0; w < nw; ++w) gt[w] = 0;
    for (unsigned p = 0; p < kPlanes; ++p) {
        const std::uint8_t* plane = stripe + p * nb;
        const std::uint64_t inv = ((cut.flip >> p) & 1) ? ~std::uint64_t{0} : 0;
        // A plane with no set bit at all (most planes of a background) changes nothing unless
        // flipped: one pass of loads and ORs decides it, before the pass that reads the mask
        // and writes gt.
        if (!inv) {
            std::uint64_t raw = 0;
            for (std::size_t w = 0; w < nw; ++w) raw |= load_word(plane + 8 * w);
            if (!raw) continue;
        }
        std::uint64_t any = 0;
        if (p >= low) {
            for (std::size_t w = 0; w < nw; ++w) {
                const std::uint64_t b = load_word(plane + 8 * w);
                any |= b & allowed[w];
                gt[w] |= (b ^ inv) & allowed[w];
            }
            any_high |= any | inv;
        } else {
            for (std::size_t w = 0; w < nw; ++w) any |= load_word(plane + 8 * w) & allowed[w];
        }
        if (!any) continue;
        live |= std::uint64_t{1} << p;
        planes.row[planes.n] = plane;
        planes.live[planes.n++] = p;
    }
    if (cut.all) {
        for (std::size_t w = 0; w < nw; ++w) gt[w] = allowed[w];
        return true;
    }
    // t's top plane zero in every allowed pixel: no pixel still equal can pass.
    if (low == 0 || !(((live | cut.flip) >> (low - 1)) & 1)) return any_high != 0;
    for (std::size_t w = 0; w < nw; ++w) eq[w] = ~gt[w];
    for (int p = static_cast<int>(low) - 1; p >= 0; --p) {
        const bool tbit = (cut.t >> p) & 1;
        const std::uint64_t inv = ((cut.flip >> p) & 1) ? ~std::uint64_t{0} : 0;
        if (!((live >> p) & 1) && !inv) {
            if (tbit) break;
            continue;
        }
        const std::uint8_t* plane = stripe + p * nb;
        if (tbit) {
            for (std::size_t w = 0; w < nw; ++w) eq[w] &= load_word(plane + 8 * w) ^ inv;
        } else {
            for (std::size_t w = 0; w < nw; ++w) {
                const std::uint64_t e = load_word(plane + 8 * w) ^ inv;
                gt[w] |= eq[w] & e & allowed[w];
                eq[w] &= ~e;
            }
        }
    }
    return true;
}

// The shared walk, a stripe at a time. The mask is applied to the planes before anything
// else: detectors write their gaps and dead pixels at the type's maximum, which would leave
// every plane of a block live. Expand<U>(live planes) is made for a stripe with hits; its
// operator()(word, hits, first index, out_v, out_i) writes the hit pixels of
// that word of the stripe, in order, and returns how many.
template <class U, template <class> class Expand>
std::size_t collect_planes(const PlaneBlock& block, const PlaneCut& cut, void* out_v_bytes, std::uint32_t* out_i) {
    U* const out_v = static_cast<U*>(out_v_bytes);
    const std::size_t nb = block.n / 8;
    const std::size_t words = (nb + 7) / 8;
    std::uint64_t copied[kStripeWords], gt[kStripeWords], eq[kStripeWords];
    std::size_t count = 0;
    for (std::size_t w0 = 0; w0 < words; w0 += kStripeWords) {
        const std::size_t nw = words - w0 < kStripeWords ? words - w0 : kStripeWords;
        const std::size_t e0 = block.first + w0 * 64;
        const std::uint64_t* allowed = block.mask + e0 / 64;
        if (e0 % 64 != 0 || block.n - w0 * 64 < nw * 64) {  // not whole mask words: shifted copies
            for (std::size_t w = 0; w < nw; ++w) {
                const std::size_t e = (w0 + w) * 64;
                copied[w] = mask_word(block.mask, block.first + e);
                if (block.n - e < 64) copied[w] &= (std::uint64_t{1} << (block.n - e)) - 1;
            }
            allowed = copied;
        }
        LivePlanes<U> planes;
        if (!compare_planes<U>(block, w0, nw, allowed, cut, planes, gt, eq)) continue;
        // The words with a hit, as bits, walked in order: a test of each word would be a
        // branch the predictor misses at every scattered hit of a background.
        std::uint64_t hit_words[kStripeWords / 64] = {};
        std::uint64_t any_hit = 0;
        for (std::size_t q = 0; q * 64 < nw; ++q) {
            std::uint64_t m = 0;  // in a register: an |= into the array would chain through memory
            const std::size_t end = nw - q * 64 < 64 ? nw - q * 64 : 64;
            for (std::size_t k = 0; k < end; ++k) m |= std::uint64_t{gt[q * 64 + k] != 0} << k;
            hit_words[q] = m;
            any_hit |= m;
        }
        if (!any_hit) continue;
        const Expand<U> expand(planes);
        for (std::size_t q = 0; q < kStripeWords / 64; ++q)
            for (std::uint64_t m = hit_words[q]; m; m &= m - 1) {
                const std::size_t w = q * 64 + static_cast<std::size_t>(__builtin_ctzll(m));
                count += expand(w * 8, gt[w], static_cast<std::uint32_t>(block.first + (w0 + w) * 64), out_v + count,
                                out_i + count);
            }
    }
    return count;
}

// The scalar expansion: each hit's value gathered bit by bit from the live planes.
template <class U>
struct ExpandEachHit {
    const LivePlanes<U>& planes;
    explicit ExpandEachHit(const LivePlanes<U>& p) : planes(p) {}
    std::size_t operator()(std::size_t offset, std::uint64_t hits, std::uint32_t first, U* out_v,
                           std::uint32_t* out_i) const {
        std::uint64_t bits[8 * sizeof(U)];
        planes.words_at(offset, bits);
        std::size_t c = 0;
        for (; hits; hits &= hits - 1, ++c) {
            const unsigned i = static_cast<unsigned>(__builtin_ctzll(hits));
            U v = 0;
            for (unsigned k = 0; k < planes.n; ++k)
                v |= static_cast<U>(static_cast<U>((bits[k] >> i) & 1) << planes.live[k]);
            out_v[c] = v;
            out_i[c] = first + i;
        }
        return c;
    }
};

// The collector table of one path: Expand for every pixel width.
template <template <class> class Expand>
PlaneCollectFn collector_for(std::size_t es) {
    switch (es) {
        case 1: return &collect_planes<std::uint8_t, Expand>;
        case 2: return &collect_planes<std::uint16_t, Expand>;
        case 4: return &collect_planes<std::uint32_t, Expand>;
        case 8: return &collect_planes<std::uint64_t, Expand>;
        default: return nullptr;
    }
}

}  // namespace
}  // namespace bslz4::detail
