// bslz4 peaks' per-frame rules (tools/peaks) against a plain statement of ImageD11's on a dense
// grid: lmlabel's smoothing, local maxima and numbering, cplabel's 8-connected groups, the five
// properties and the overlaps; frames of one row, one column, every pixel listed, every pixel
// isolated pixels, pixels on every edge; and the inputs they refuse.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bslz4/error.hpp"
#include "peaks/frame_labels.hpp"
#include "peaks/label_overlaps.hpp"
#include "peaks/peak_properties.hpp"
#include "peaks/peak_table.hpp"
#include "peaks/sparse_frame.hpp"

using namespace bslz4::tool::peaks;

namespace {

struct Frame {
    std::size_t ni = 0, nj = 0;
    std::vector<std::uint16_t> row, col;
    std::vector<float> value;
    SparseFrame view() const { return {row.data(), col.data(), value.data(), row.size()}; }
};

// A frame of ni x nj with each pixel listed with probability `density`, values 1..top (ties
// many when top is small).
Frame random_frame(std::mt19937& rng, std::size_t ni, std::size_t nj, double density, int top) {
    Frame f;
    f.ni = ni;
    f.nj = nj;
    std::uniform_real_distribution<double> u(0, 1);
    std::uniform_int_distribution<int> v(1, top);
    for (std::size_t i = 0; i < ni; ++i)
        for (std::size_t j = 0; j < nj; ++j)
            if (u(rng) < density) {
                f.row.push_back(std::uint16_t(i));
                f.col.push_back(std::uint16_t(j));
                f.value.push_back(float(v(rng)));
            }
    return f;
}

// The rules on a dense grid, each pixel's window visited di = -1..1, dj = -1..1.
struct DenseReference {
    const Frame& f;
    std::vector<long> index;  // grid -> pixel, -1 absent
    explicit DenseReference(const Frame& frame) : f(frame), index(frame.ni * frame.nj, -1) {
        for (std::size_t k = 0; k < f.row.size(); ++k) index[f.row[k] * f.nj + f.col[k]] = long(k);
    }
    long at(long i, long j) const {
        if (i < 0 || j < 0 || i >= long(f.ni) || j >= long(f.nj)) return -1;
        return index[std::size_t(i) * f.nj + std::size_t(j)];
    }
    std::vector<std::int32_t> lmlabel(std::uint32_t& count) const {
        const std::size_t n = f.row.size();
        std::vector<float> s(n);
        for (std::size_t k = 0; k < n; ++k) {
            float acc = f.value[k] * 0.0625f;
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj) {
                    const long p = at(long(f.row[k]) + di, long(f.col[k]) + dj);
                    if (p < 0) continue;
                    const float w = 0.0625f * float(3 - (di * di + dj * dj));
                    const volatile float product = f.value[std::size_t(p)] * w;  // rounded, never fused
                    acc = acc + product;
                }
            s[k] = acc;
        }
        std::vector<long> up(n);
        for (std::size_t k = 0; k < n; ++k) {
            long best = -1;
            for (int di = -1; di <= 1; ++di)
                for (int dj = -1; dj <= 1; ++dj) {
                    const long p = at(long(f.row[k]) + di, long(f.col[k]) + dj);
                    if (p >= 0 && (best < 0 || s[std::size_t(p)] > s[std::size_t(best)])) best = p;
                }
            up[k] = best;
        }
        std::vector<std::int32_t> labels(n, 0);
        count = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (up[k] == long(k)) labels[k] = std::int32_t(++count);
        for (std::size_t k = 0; k < n; ++k) {
            long p = long(k);
            while (up[std::size_t(p)] != p) p = up[std::size_t(p)];
            labels[k] = labels[std::size_t(p)];
        }
        return labels;
    }
    std::vector<std::int32_t> cplabel(std::uint32_t& count) const {
        const std::size_t n = f.row.size();
        std::vector<std::int32_t> labels(n, 0);
        count = 0;
        for (std::size_t k = 0; k < n; ++k) {
            if (labels[k] != 0 || !(f.value[k] > 0)) continue;
            labels[k] = std::int32_t(++count);
            std::vector<std::size_t> todo{k};
            while (!todo.empty()) {
                const std::size_t q = todo.back();
                todo.pop_back();
                for (int di = -1; di <= 1; ++di)
                    for (int dj = -1; dj <= 1; ++dj) {
                        const long p = at(long(f.row[q]) + di, long(f.col[q]) + dj);
                        if (p >= 0 && labels[std::size_t(p)] == 0 && f.value[std::size_t(p)] > 0) {
                            labels[std::size_t(p)] = labels[k];
                            todo.push_back(std::size_t(p));
                        }
                    }
            }
        }
        return labels;
    }
};

void check_against_reference(const Frame& f) {
    FrameLabeller labeller;
    const DenseReference ref(f);
    for (const PeakAlgorithm a : {PeakAlgorithm::lmlabel, PeakAlgorithm::cplabel}) {
        std::vector<std::int32_t> ours(f.row.size(), -7);
        const std::uint32_t n = labeller.label(a, f.view(), ours.data());
        std::uint32_t expected_count = 0;
        const auto expected = a == PeakAlgorithm::lmlabel ? ref.lmlabel(expected_count) : ref.cplabel(expected_count);
        INFO(algorithm_name(a) << " on " << f.ni << " x " << f.nj << ", " << f.row.size() << " pixels");
        REQUIRE(n == expected_count);
        REQUIRE(ours == expected);
    }
}

}  // namespace

TEST_CASE("lmlabel and cplabel equal the dense statement of ImageD11's rules, every shape and density", "[peaks]") {
    std::mt19937 rng(30);
    const std::size_t shapes[][2] = {{1, 1}, {1, 37}, {41, 1}, {2, 2}, {7, 9}, {33, 65}, {64, 64}};
    for (const auto& s : shapes)
        for (const double density : {0.05, 0.3, 0.7, 1.0})
            for (const int top : {2, 5, 1000}) check_against_reference(random_frame(rng, s[0], s[1], density, top));
}

TEST_CASE("a frame with every pixel listed and equal values is one peak, its first pixel the maximum", "[peaks]") {
    Frame f;
    f.ni = 20;
    f.nj = 30;
    for (std::size_t i = 0; i < f.ni; ++i)
        for (std::size_t j = 0; j < f.nj; ++j) {
            f.row.push_back(std::uint16_t(i));
            f.col.push_back(std::uint16_t(j));
            f.value.push_back(7.0f);
        }
    // The smoothing of a flat frame peaks inside it, away from the edges; cplabel sees one group.
    check_against_reference(f);
    FrameLabeller labeller;
    std::vector<std::int32_t> labels(f.row.size());
    CHECK(labeller.label(PeakAlgorithm::cplabel, f.view(), labels.data()) == 1);
}

TEST_CASE("a checkerboard, touching only at corners, is one cplabel group and lmlabel's local maxima", "[peaks]") {
    Frame f;
    f.ni = 64;
    f.nj = 64;
    for (std::size_t i = 0; i < f.ni; ++i)
        for (std::size_t j = i % 2; j < f.nj; j += 2) {
            f.row.push_back(std::uint16_t(i));
            f.col.push_back(std::uint16_t(j));
            f.value.push_back(float(1 + (i * 7 + j * 3) % 11));
        }
    check_against_reference(f);
    FrameLabeller labeller;
    std::vector<std::int32_t> labels(f.row.size());
    CHECK(labeller.label(PeakAlgorithm::cplabel, f.view(), labels.data()) == 1);  // diagonals touch
}

TEST_CASE("cplabel leaves pixels at or below 0 unlabelled, and they join no overlap", "[peaks]") {
    Frame f;
    f.ni = 1;
    f.nj = 5;
    f.row = {0, 0, 0, 0, 0};
    f.col = {0, 1, 2, 3, 4};
    f.value = {3, 0, 2, -1, 4};
    FrameLabeller labeller;
    std::vector<std::int32_t> labels(5);
    REQUIRE(labeller.label(PeakAlgorithm::cplabel, f.view(), labels.data()) == 3);
    CHECK(labels == std::vector<std::int32_t>{1, 0, 2, 0, 3});
    OverlapFinder finder;
    std::vector<Overlap> found;
    finder.find(f.view(), labels.data(), f.view(), labels.data(), found);
    REQUIRE(found.size() == 3);
    CHECK(found[1].first == 2);
    CHECK(found[1].second == 2);
    CHECK(found[1].pixels == 1);
}

TEST_CASE("overlaps count the pixels each pair of labels shares, sorted by the first label then the second", "[peaks]") {
    Frame a, b;
    a.row = {0, 0, 1, 1, 2};
    a.col = {0, 1, 0, 1, 5};
    b.row = {0, 0, 1, 2, 3};
    b.col = {0, 1, 1, 5, 0};
    const std::vector<std::int32_t> la{2, 2, 1, 2, 1}, lb{1, 3, 3, 1, 1};
    a.value.assign(5, 1);
    b.value.assign(5, 1);
    OverlapFinder finder;
    std::vector<Overlap> found;
    finder.find(a.view(), la.data(), b.view(), lb.data(), found);
    REQUIRE(found.size() == 3);
    CHECK((found[0].first == 1 && found[0].second == 1 && found[0].pixels == 1));  // (2, 5)
    CHECK((found[1].first == 2 && found[1].second == 1 && found[1].pixels == 1));  // (0, 0)
    CHECK((found[2].first == 2 && found[2].second == 3 && found[2].pixels == 2));  // (0, 1), (1, 1)
}

TEST_CASE("the properties are ImageD11's: truncated float32 weights clipped at wtmax, float64 sums", "[peaks]") {
    Frame f;
    f.row = {3, 3, 4};
    f.col = {10, 11, 10};
    f.value = {2.9f, 16777217.0f /* float32 rounds it to 2^24 */, 9.5f};
    const std::vector<std::int32_t> labels{1, 1, 2};
    PeakColumns out;
    PropertySums sums;
    sums.add_frame(f.view(), labels.data(), 2, std::nullopt, 41, out, "frame");
    CHECK(out[kPixels] == std::vector<std::int64_t>{2, 1});
    CHECK(out[kSum] == std::vector<std::int64_t>{2 + 16777216, 9});
    CHECK(out[kSumRow] == std::vector<std::int64_t>{3 * (2 + 16777216), 4 * 9});
    CHECK(out[kSumCol] == std::vector<std::int64_t>{10 * 2 + 11 * 16777216LL, 10 * 9});
    CHECK(out[kFrame] == std::vector<std::int64_t>{41, 41});
    PeakColumns clipped;
    sums.add_frame(f.view(), labels.data(), 2, 5.0, 0, clipped, "frame");
    CHECK(clipped[kSum] == std::vector<std::int64_t>{2 + 5, 5});
}

TEST_CASE("a peak whose weights sum below 1 is an error naming it, as ImageD11 refuses it", "[peaks]") {
    Frame f;
    f.row = {0, 5};
    f.col = {0, 5};
    f.value = {0.5f, 3.0f};
    const std::vector<std::int32_t> labels{1, 2};
    PeakColumns out;
    PropertySums sums;
    CHECK_THROWS_WITH(sums.add_frame(f.view(), labels.data(), 2, std::nullopt, 0, out, "scan 1.1 frame 4"),
                      Catch::Contains("scan 1.1 frame 4: peak 1 of 2") && Catch::Contains("below 1"));
    f.value = {INFINITY, 3.0f};
    CHECK_THROWS_WITH(sums.add_frame(f.view(), labels.data(), 2, std::nullopt, 0, out, "f"), Catch::Contains("no integer weight"));
}

TEST_CASE("pixels out of row-major order, repeated, or outside the frame are refused, naming the pixel", "[peaks]") {
    Frame f;
    f.row = {0, 0, 1};
    f.col = {3, 2, 0};
    f.value.assign(3, 1);
    CHECK_THROWS_WITH(check_frame(f.view(), 4, 4, "s:1.1 frame 2"), Catch::Contains("s:1.1 frame 2: pixel 1") &&
                                                                       Catch::Contains("not in row-major order"));
    f.col = {2, 2, 0};
    CHECK_THROWS_WITH(check_frame(f.view(), 4, 4, "f"), Catch::Contains("pixel 1"));
    f.col = {2, 3, 0};
    CHECK_NOTHROW(check_frame(f.view(), 4, 4, "f"));
    CHECK_THROWS_WITH(check_frame(f.view(), 1, 4, "f"), Catch::Contains("pixel 2 at row 1") && Catch::Contains("outside"));
}

TEST_CASE("3D peaks are the connected groups of overlapping 2D peaks, numbered by their first", "[peaks]") {
    // Row 0 has peaks 0..3, row 1 peaks 4..6 (ipk 0, 4, 7).
    const std::vector<std::int64_t> ipk{0, 4, 7};
    const std::vector<PeakEdge> edges{{1, 0, 2, 3}, {0, 0, 3, 1}, {1, 1, 0, 1}, {0, 0, 2, 2}};
    std::vector<std::int64_t> glabel;
    REQUIRE(group_peaks(ipk, edges, glabel) == 4);
    // The edges join 6-3, 3-1, 4-5 and 2 with itself: groups {0}, {1, 3, 6}, {2}, {4, 5}.
    CHECK(glabel == std::vector<std::int64_t>{0, 1, 2, 1, 3, 3, 1});
}

TEST_CASE("an empty frame has no peaks; a table of empty scans has none either", "[peaks]") {
    FrameLabeller labeller;
    Frame f;
    CHECK(labeller.label(PeakAlgorithm::lmlabel, f.view(), nullptr) == 0);
    ScanPixels empty;
    empty.name = "empty";
    empty.rows = 4;
    empty.cols = 4;
    empty.first = {0, 0, 0};
    empty.omega = {0.0, 1.0};
    const PeakTable t = build_peak_table(2, [&](std::size_t) { return empty; }, PeakOptions{}, 2);
    CHECK(t.ipk == std::vector<std::int64_t>{0, 0, 0});
    CHECK(t.peaks() == 0);
    CHECK(t.nlabel == 0);
}
