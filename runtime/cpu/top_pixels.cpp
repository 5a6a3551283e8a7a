#include "top_pixels.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "bslz4/chunk2sparse.hpp"
#include "bslz4/error.hpp"
#include "pixel_threshold.hpp"

namespace bslz4::detail {

namespace {

// value > threshold, exactly as the cut is compared (NaN never passes).
template <class T>
bool passes(const PixelThreshold<T>& th, T v) {
    switch (th.mode) {
        case CutMode::none: return false;
        case CutMode::all: return true;
        case CutMode::compare: break;
    }
    return th(v);
}

// Pixels of v[0, n) above th, counted no further than `enough`: only "fewer than howmany?" matters.
template <class T>
std::size_t count_above(const T* v, std::size_t n, const PixelThreshold<T>& th, std::size_t enough) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < n && count < enough; ++i) count += passes(th, v[i]);
    return count;
}

template <class T>
TopPixelsRule::Outcome select(T* v, std::uint32_t* idx, std::size_t n, std::size_t howmany,
                              const std::vector<double>& thresholds, double cut) {
    if (n <= howmany) return {n, cut, n};
    if (thresholds.empty()) return {howmany, cut, n};  // the list's first howmany are already in place
    std::size_t level = thresholds.size() - 1;
    for (std::size_t k = 0; k < thresholds.size(); ++k)
        if (count_above(v, n, PixelThreshold<T>(thresholds[k]), howmany) < howmany) {
            level = k;
            break;
        }
    const PixelThreshold<T> th(thresholds[level]);
    std::size_t kept = 0, nabove = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (!passes(th, v[i])) continue;
        if (kept < howmany) {
            v[kept] = v[i];
            idx[kept] = idx[i];
            ++kept;
        }
        ++nabove;
    }
    return {kept, thresholds[level], nabove};
}

}  // namespace

std::vector<double> default_thresholds(double cut) {
    std::vector<double> t(kMaxThresholds);
    for (std::size_t i = 0; i < kMaxThresholds; ++i) t[i] = std::ldexp(std::max(cut, 1.0), static_cast<int>(i));
    return t;
}

void check_thresholds(const std::vector<double>& thresholds) {
    bool ok = thresholds.size() <= kMaxThresholds;
    for (std::size_t k = 0; k < thresholds.size(); ++k)
        ok = ok && !std::isnan(thresholds[k]) && (k == 0 || thresholds[k] >= thresholds[k - 1]);
    if (ok) return;
    std::ostringstream text;
    text.precision(17);
    text << "top pixels: thresholds [";
    for (std::size_t k = 0; k < thresholds.size(); ++k) text << (k ? ", " : "") << thresholds[k];
    text << "]: at most " << kMaxThresholds << " values, sorted increasing, none NaN";
    throw Error(ErrorCode::bad_argument, text.str());
}

TopPixelsRule::TopPixelsRule(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds)
    : howmany_(howmany), thresholds_(std::move(thresholds)) {
    if (thresholds_) check_thresholds(*thresholds_);
}

TopPixelsRule::Outcome TopPixelsRule::apply(PixelType type, std::uint8_t* values, std::uint32_t* indices, std::size_t n,
                                            double cut) const {
    if (!howmany_ || n <= *howmany_) return {n, cut, n};
    const std::vector<double> thresholds = thresholds_for(cut);
    return visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        return select(reinterpret_cast<T*>(values), indices, n, *howmany_, thresholds, cut);
    });
}

}  // namespace bslz4::detail

namespace bslz4 {

void check_top_pixel_thresholds(const std::vector<double>& thresholds) { detail::check_thresholds(thresholds); }

}  // namespace bslz4
