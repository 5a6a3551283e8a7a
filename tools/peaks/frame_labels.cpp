// Compiled with -ffp-contract=off (tools/peaks/meson.build): ImageD11's smoothing rounds each
// product before adding it, and a fused multiply-add would change the float32 sums that decide
// which pixel is a local maximum.
#include "frame_labels.hpp"

#include "bslz4/error.hpp"
#include "raster_window.hpp"

namespace bslz4::tool::peaks {

const char* algorithm_name(PeakAlgorithm a) { return a == PeakAlgorithm::lmlabel ? "lmlabel" : "cplabel"; }

PeakAlgorithm parse_algorithm(const std::string& name) {
    if (name == "lmlabel") return PeakAlgorithm::lmlabel;
    if (name == "cplabel") return PeakAlgorithm::cplabel;
    throw Error(ErrorCode::bad_argument, "peak labelling \"" + name + "\" is not lmlabel or cplabel");
}

std::uint32_t FrameLabeller::label(PeakAlgorithm algorithm, const SparseFrame& frame, std::int32_t* labels) {
    if (frame.n == 0) return 0;
    if (frame.n > std::size_t(INT32_MAX))
        throw Error(ErrorCode::bad_argument, "a frame of " + std::to_string(frame.n) + " pixels has more than labels can number");
    return algorithm == PeakAlgorithm::lmlabel ? local_maxima(frame, labels) : connected(frame, labels);
}

std::uint32_t FrameLabeller::local_maxima(const SparseFrame& f, std::int32_t* labels) {
    smoothed_.resize(f.n);
    link_.resize(f.n);
    const float m = 1.0f / 16.0f;
    std::uint32_t w[9];
    unsigned self = 0;
    {
        RasterWindows windows(f);
        for (std::size_t k = 0; k < f.n; ++k) {
            const unsigned n = windows.window(k, w, self);
            float s = f.value[k] * m;
            for (unsigned i = 0; i < n; ++i) {
                const int di = int(f.row[w[i]]) - int(f.row[k]), dj = int(f.col[w[i]]) - int(f.col[k]);
                const float product = f.value[w[i]] * (m * float(3 - (di * di + dj * dj)));
                s = s + product;
            }
            smoothed_[k] = s;
        }
    }
    RasterWindows windows(f);
    for (std::size_t k = 0; k < f.n; ++k) {
        const unsigned n = windows.window(k, w, self);
        std::uint32_t best = w[0];
        for (unsigned i = 1; i < n; ++i)
            if (smoothed_[w[i]] > smoothed_[best]) best = w[i];
        link_[k] = best;
    }
    // The maxima (pointing to themselves) numbered in pixel order; then each other pixel takes
    // its maximum's number, the chain to it remembered so that no pixel is followed twice.
    std::uint32_t count = 0;
    for (std::size_t k = 0; k < f.n; ++k) labels[k] = link_[k] == k ? std::int32_t(++count) : 0;
    for (std::size_t k = 0; k < f.n; ++k) {
        std::uint32_t p = static_cast<std::uint32_t>(k);
        chain_.clear();
        while (labels[p] == 0) {
            chain_.push_back(p);
            p = link_[p];
        }
        for (const std::uint32_t q : chain_) labels[q] = labels[p];
    }
    return count;
}

std::uint32_t FrameLabeller::find(std::uint32_t x) {
    while (link_[x] != x) {
        link_[x] = link_[link_[x]];
        x = link_[x];
    }
    return x;
}

std::uint32_t FrameLabeller::connected(const SparseFrame& f, std::int32_t* labels) {
    link_.resize(f.n);
    std::uint32_t w[9];
    unsigned self = 0;
    RasterWindows windows(f);
    for (std::size_t k = 0; k < f.n; ++k) {
        link_[k] = static_cast<std::uint32_t>(k);
        windows.window(k, w, self);
        if (!(f.value[k] > 0.0f)) continue;
        for (unsigned i = 0; i < self; ++i) {  // the neighbours before it: the row above and its left
            if (!(f.value[w[i]] > 0.0f)) continue;
            const std::uint32_t a = find(w[i]), b = find(static_cast<std::uint32_t>(k));
            if (a < b)
                link_[b] = a;
            else if (b < a)
                link_[a] = b;
        }
    }
    // A group's root is its first pixel, so the groups are numbered by it, in pixel order.
    std::uint32_t count = 0;
    for (std::size_t k = 0; k < f.n; ++k) {
        if (!(f.value[k] > 0.0f)) {
            labels[k] = 0;
            continue;
        }
        const std::uint32_t root = find(static_cast<std::uint32_t>(k));
        labels[k] = root == k ? std::int32_t(++count) : labels[root];
    }
    return count;
}

}  // namespace bslz4::tool::peaks
