#include "device_cut.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "pixel_threshold.hpp"

namespace bslz4::cuda::detail {

namespace {

// The largest float not above cut (NaN for NaN). For a float v, v > it exactly when
// (double)v > cut: no float lies between it and the cut.
float float_floor(double cut) {
    constexpr double kMax = std::numeric_limits<float>::max();
    if (std::isnan(cut)) return std::numeric_limits<float>::quiet_NaN();
    if (cut >= kMax) return cut == std::numeric_limits<double>::infinity() ? std::numeric_limits<float>::infinity()
                                                                          : std::numeric_limits<float>::max();
    if (cut < -kMax) return -std::numeric_limits<float>::infinity();
    const float f = static_cast<float>(cut);
    return static_cast<double>(f) > cut ? std::nextafter(f, -std::numeric_limits<float>::infinity()) : f;
}

}  // namespace

bslz4_abi::Cut make_cut(PixelType type, double cut) {
    namespace abi = bslz4_abi;
    abi::Cut c{};
    c.cut = cut;
    c.cut_f32 = float_floor(cut);
    visit_pixel_type(type, [&](auto zero) {
        using T = decltype(zero);
        const bslz4::detail::PixelThreshold<T> th(cut);
        c.mode = th.mode == bslz4::detail::CutMode::none  ? abi::kCutNone
                 : th.mode == bslz4::detail::CutMode::all ? abi::kCutAll
                                                          : abi::kCutCompare;
        if constexpr (!std::is_floating_point<T>::value) c.threshold = static_cast<std::int64_t>(th.t);
    });
    return c;
}

}  // namespace bslz4::cuda::detail
