#include "scan_peaks.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "bslz4/error.hpp"
#include "label_overlaps.hpp"

namespace bslz4::tool::peaks {

SparseFrame LabelledScan::frame(std::size_t f) const {
    SparseFrame out;
    out.row = pixels.row.data() + pixels.first[f];
    out.col = pixels.col.data() + pixels.first[f];
    out.n = static_cast<std::size_t>(pixels.first[f + 1] - pixels.first[f]);
    return out;
}

LabelledScan label_scan(ScanPixels pixels, std::size_t row_index, const PeakOptions& options) {
    LabelledScan s;
    s.pixels = std::move(pixels);
    const ScanPixels& p = s.pixels;
    const std::size_t frames = p.frames();
    const bool labelled = !p.labels.empty() || (!p.nlabels.empty() && p.row.empty());
    if (labelled && (p.labels.size() != p.row.size() || p.nlabels.size() != frames))
        throw Error(ErrorCode::bad_argument, p.name + ": " + std::to_string(p.labels.size()) + " labels and " +
                                                 std::to_string(p.nlabels.size()) + " nlabels for " +
                                                 std::to_string(p.row.size()) + " pixels in " + std::to_string(frames) + " frames");
    s.labels = labelled ? std::move(s.pixels.labels) : std::vector<std::int32_t>(p.row.size(), 0);
    s.nlabels = labelled ? std::move(s.pixels.nlabels) : std::vector<std::uint32_t>(frames, 0);
    s.peak_first.assign(frames + 1, 0);
    if (p.omega.size() != frames)
        throw Error(ErrorCode::bad_argument, p.name + " has " + std::to_string(frames) + " frames but " +
                                                 std::to_string(p.omega.size()) + " omega angles");
    for (std::size_t f = 0; f < frames; ++f)
        if (!std::isfinite(p.omega[f]))
            throw Error(ErrorCode::bad_argument, p.name + " frame " + std::to_string(f) + " has omega " +
                                                     std::to_string(p.omega[f]) + ": frames cannot be ordered by it");
    FrameLabeller labeller;
    PropertySums sums;
    for (std::size_t f = 0; f < frames; ++f) {
        const std::string what = p.name + " frame " + std::to_string(f);
        SparseFrame frame = s.frame(f);
        frame.value = p.intensity.data() + p.first[f];
        check_frame(frame, p.rows, p.cols, what);
        std::int32_t* labels = s.labels.data() + p.first[f];
        if (!labelled) {
            s.nlabels[f] = labeller.label(options.algorithm, frame, labels);
        } else {
            // Labels read from a file: each in 0 .. nlabels, and every peak with a pixel, else the
            // properties would be of peaks that are not there.
            std::vector<bool> seen(s.nlabels[f] + std::size_t{1}, false);
            for (std::size_t k = 0; k < frame.n; ++k) {
                if (labels[k] < 0 || std::uint32_t(labels[k]) > s.nlabels[f])
                    throw Error(ErrorCode::bad_argument, what + ": pixel " + std::to_string(k) + "'s label " +
                                                             std::to_string(labels[k]) + " is not 0 to the frame's nlabels " +
                                                             std::to_string(s.nlabels[f]));
                seen[std::size_t(labels[k])] = true;
            }
            for (std::uint32_t l = 1; l <= s.nlabels[f]; ++l)
                if (!seen[l])
                    throw Error(ErrorCode::bad_argument, what + ": peak " + std::to_string(l) + " of its nlabels " +
                                                             std::to_string(s.nlabels[f]) + " has no pixel");
        }
        sums.add_frame(frame, labels, s.nlabels[f], options.wtmax, static_cast<std::int64_t>(f + row_index * frames),
                       s.properties, what);
        s.peak_first[f + 1] = s.peak_first[f] + s.nlabels[f];
    }
    s.pixels.intensity = std::vector<float>();
    return s;
}

namespace {

// Appends the overlaps of frame fa of a and frame fb of b as edges; returns how many.
std::uint64_t link_frames(const LabelledScan& a, std::uint32_t row_a, std::size_t fa, const LabelledScan& b,
                          std::uint32_t row_b, std::size_t fb, OverlapFinder& finder, std::vector<Overlap>& found,
                          std::vector<PeakEdge>& edges) {
    finder.find(a.frame(fa), a.frame_labels(fa), b.frame(fb), b.frame_labels(fb), found);
    for (const Overlap& o : found)
        edges.push_back({row_a, row_b, a.peak_first[fa] + std::uint64_t(o.first) - 1, b.peak_first[fb] + std::uint64_t(o.second) - 1});
    return found.size();
}

// Python's a % 360 for a float (numpy's remainder): the result has the sign of 360.
double mod_360(double a) {
    double r = std::fmod(a, 360.0);
    if (r != 0 && r < 0) r += 360.0;
    return r;
}

}  // namespace

std::uint64_t pairs_in_row(const LabelledScan& s, std::uint32_t row_index, std::vector<PeakEdge>& edges) {
    const std::size_t frames = s.pixels.frames();
    std::vector<std::size_t> order(frames);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const std::vector<double>& omega = s.pixels.omega;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return omega[x] < omega[y]; });
    OverlapFinder finder;
    std::vector<Overlap> found;
    std::uint64_t n = 0;
    for (std::size_t i = 1; i < frames; ++i) {
        const std::size_t a = order[i - 1], b = order[i];
        if (s.frame(a).n == 0 || s.frame(b).n == 0) continue;
        n += link_frames(s, row_index, a, s, row_index, b, finder, found, edges);
    }
    return n;
}

std::uint64_t pairs_with_row_before(const LabelledScan& s1, const LabelledScan& s2, std::uint32_t row_index,
                                    double tolerance, std::vector<PeakEdge>& edges) {
    const std::size_t n1 = s1.pixels.frames(), n2 = s2.pixels.frames();
    if (n1 != n2)
        throw Error(ErrorCode::bad_argument, s1.pixels.name + " has " + std::to_string(n1) + " frames but " + s2.pixels.name +
                                                 ", the row before it, has " + std::to_string(n2) +
                                                 ": ImageD11 pairs rows of one length");
    std::vector<double> o1(n1), o2(n2);
    for (std::size_t i = 0; i < n1; ++i) o1[i] = mod_360(s1.pixels.omega[i]);
    for (std::size_t j = 0; j < n2; ++j) o2[j] = mod_360(s2.pixels.omega[j]);
    // numpy's argmin(abs(o2 - o1[i])): the first frame at the least distance. The frames sorted by
    // omega put the nearest beside where o1[i] would go; |o2 - x| only grows walking away from
    // there, so the walk stops at the first frame further off.
    std::vector<std::size_t> order(n2);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return o2[x] < o2[y]; });
    OverlapFinder finder;
    std::vector<Overlap> found;
    std::uint64_t n = 0;
    for (std::size_t i = 0; i < n1 && n2 > 0; ++i) {
        const double x = o1[i];
        const auto at = std::lower_bound(order.begin(), order.end(), x, [&](std::size_t k, double v) { return o2[k] < v; }) -
                        order.begin();
        double best = INFINITY;
        if (at < std::ptrdiff_t(n2)) best = std::fabs(o2[order[at]] - x);
        if (at > 0) best = std::min(best, std::fabs(o2[order[at - 1]] - x));
        std::size_t j = n2;
        for (std::ptrdiff_t k = at; k < std::ptrdiff_t(n2) && std::fabs(o2[order[k]] - x) == best; ++k) j = std::min(j, order[k]);
        for (std::ptrdiff_t k = at - 1; k >= 0 && std::fabs(o2[order[k]] - x) == best; --k) j = std::min(j, order[k]);
        if (std::fabs(x - o2[j]) > tolerance) continue;
        if (s1.frame(i).n == 0 || s2.frame(j).n == 0) continue;
        n += link_frames(s1, row_index, i, s2, row_index - 1, j, finder, found, edges);
    }
    return n;
}

}  // namespace bslz4::tool::peaks
