// Top pixels (ImageD11's top_pixels rule, the seed's howmany / thresholds): a frame with more
// than `howmany` pixels above the cut keeps those above the first threshold that fewer than
// howmany pixels exceed (else above the last one), then at most the first howmany of them in
// pixel order. Applied to a frame's list after it is made, so the powder, summed while the
// frame is decoded, always covers the whole frame.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "bslz4/pixel_type.hpp"

namespace bslz4::detail {

constexpr std::size_t kMaxThresholds = 16;

// max(cut, 1) * 2**i for i = 0..15: what "thresholds not given" means.
std::vector<double> default_thresholds(double cut);

// At most kMaxThresholds values, sorted increasing (equal neighbours allowed, as the seed), no
// NaN; else a bad_argument Error naming the values.
void check_thresholds(const std::vector<double>& thresholds);

class TopPixelsRule {
public:
    TopPixelsRule() = default;  // every pixel above the cut
    // Checks the thresholds (check_thresholds). nullopt thresholds: default_thresholds(cut) of
    // each call; an empty list: simply the first howmany.
    TopPixelsRule(std::optional<std::size_t> howmany, std::optional<std::vector<double>> thresholds);

    struct Outcome {
        std::size_t kept;    // pixels left in the list
        double cut;          // the cut the frame ended up with (the seed's last_cut)
        std::size_t nabove;  // pixels above that cut before truncation to howmany (last_nabove)
    };
    // In place on a frame's list of n pixels above `cut` (values of type `type`, ascending indices).
    Outcome apply(PixelType type, std::uint8_t* values, std::uint32_t* indices, std::size_t n, double cut) const;

    bool active() const { return howmany_.has_value(); }
    std::optional<std::size_t> howmany() const { return howmany_; }
    const std::optional<std::vector<double>>& thresholds() const { return thresholds_; }
    // The thresholds a call with this cut compares with (default_thresholds(cut) when none were given).
    std::vector<double> thresholds_for(double cut) const { return thresholds_ ? *thresholds_ : default_thresholds(cut); }

private:
    std::optional<std::size_t> howmany_;
    std::optional<std::vector<double>> thresholds_;
};

}  // namespace bslz4::detail
