// bslz4 sparse --peaks's batches (tools/sparse/list_peaks): a scan's labels, peaks and overlaps
// do not depend on where it is cut into batches, whether one object labels and pairs each batch
// (the CPU job) or a decoder's object labels a batch and pairs its frames while the collector's
// pairs each batch's first frame with the batch before (the GPU job); empty frames at the cuts
// break the chain of overlaps as ImageD11 does. Part of test_cpu.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "bslz4/pixel_type.hpp"
#include "sparse/list_peaks.hpp"
#include "sparse/output_rows.hpp"

using namespace bslz4;
using namespace bslz4::tool;

namespace {

constexpr std::size_t kRows = 23, kCols = 31;

// Frames of blobs that drift a pixel a frame (so consecutive frames overlap), some empty.
std::vector<std::vector<std::uint16_t>> scan_frames(std::size_t n) {
    std::mt19937 rng(7);
    std::vector<std::vector<std::uint16_t>> frames(n, std::vector<std::uint16_t>(kRows * kCols, 0));
    for (std::size_t f = 0; f < n; ++f) {
        if (f % 7 == 3 || f % 11 == 0) continue;  // empty frames, some at the cuts below
        for (int blob = 0; blob < 4; ++blob) {
            const std::size_t r0 = (3 + 5 * blob + f / 3) % (kRows - 3), c0 = (2 + 7 * blob + f) % (kCols - 3);
            for (std::size_t i = 0; i < 3; ++i)
                for (std::size_t j = 0; j < 3; ++j)
                    frames[f][(r0 + i) * kCols + c0 + j] = std::uint16_t(1 + rng() % 50 + (i == 1 && j == 1 ? 60 : 0));
        }
    }
    return frames;
}

// Frames [a, b) as a batch's rows: each frame's nonzero pixels in row-major order.
OutputRows batch_of(const std::vector<std::vector<std::uint16_t>>& frames, std::size_t a, std::size_t b) {
    OutputRows rows;
    for (std::size_t f = a; f < b; ++f) {
        std::uint32_t n = 0;
        for (std::size_t p = 0; p < kRows * kCols; ++p)
            if (frames[f][p]) {
                rows.row.push_back(std::uint16_t(p / kCols));
                rows.col.push_back(std::uint16_t(p % kCols));
                const std::uint16_t v = frames[f][p];
                rows.intensity.insert(rows.intensity.end(), reinterpret_cast<const std::uint8_t*>(&v),
                                      reinterpret_cast<const std::uint8_t*>(&v) + 2);
                ++n;
            }
        rows.nnz.push_back(n);
    }
    return rows;
}

// A scan's results with frames numbered through the scan (a batch numbers from its first).
struct Labelled {
    std::vector<std::int32_t> labels;
    std::vector<std::uint32_t> nlabels;
    std::vector<std::int64_t> props, pairs;
    void add(const OutputRows& rows, std::size_t first) {
        labels.insert(labels.end(), rows.labels.begin(), rows.labels.end());
        nlabels.insert(nlabels.end(), rows.nlabels.begin(), rows.nlabels.end());
        for (std::size_t k = 0; k < rows.peak_props.size(); ++k)
            props.push_back(rows.peak_props[k] + (k % 5 == 4 ? std::int64_t(first) : 0));
        for (std::size_t k = 0; k < rows.peak_pairs.size(); ++k)
            pairs.push_back(rows.peak_pairs[k] + (k % 5 < 2 ? std::int64_t(first) : 0));
    }
};

void require_same(const Labelled& got, const Labelled& want) {
    CHECK(got.labels == want.labels);
    CHECK(got.nlabels == want.nlabels);
    CHECK(got.props == want.props);
    CHECK(got.pairs == want.pairs);
}

}  // namespace

TEST_CASE("a scan's peaks and overlaps do not depend on where it is cut into batches, nor on which object pairs them",
          "[peaks]") {
    const std::size_t n = 40;
    const auto frames = scan_frames(n);
    // Cuts before and after empty frames (0, 3, 10, 11, 17, 22, 24, 31, 33, 38), one-frame batches, a
    // batch of only an empty frame.
    const std::vector<std::size_t> cuts = {0, 1, 3, 4, 10, 11, 12, 17, 18, 24, 25, 31, 33, 34, 39, 40};
    for (const auto algorithm : {peaks::PeakAlgorithm::lmlabel, peaks::PeakAlgorithm::cplabel}) {
        INFO((algorithm == peaks::PeakAlgorithm::lmlabel ? "lmlabel" : "cplabel"));
        const peaks::PeakOptions options{algorithm, std::nullopt, 0.051};
        Labelled whole;
        {
            ListPeaks one(options, PixelType::u16, kRows, kCols, 2);
            one.begin_group();
            OutputRows rows = batch_of(frames, 0, n);
            one.label(rows, 0);
            whole.add(rows, 0);
        }
        CHECK(whole.pairs.size() > 5 * 20);  // the blobs overlap from frame to frame
        Labelled by_batch, by_stages;
        ListPeaks cpu(options, PixelType::u16, kRows, kCols, 2);
        ListPeaks decoder_a(options, PixelType::u16, kRows, kCols, 2), decoder_b(options, PixelType::u16, kRows, kCols, 1);
        ListPeaks collector(options, PixelType::u16, kRows, kCols, 1);
        cpu.begin_group();
        collector.begin_group();
        for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
            OutputRows rows = batch_of(frames, cuts[c], cuts[c + 1]);
            cpu.label(rows, cuts[c]);
            by_batch.add(rows, cuts[c]);
            OutputRows staged = batch_of(frames, cuts[c], cuts[c + 1]);
            ListPeaks& decoder = c % 2 ? decoder_b : decoder_a;  // decoders take turns, as in the job
            decoder.label_frames(staged, cuts[c]);
            decoder.pair_within(staged);
            collector.pair_across(staged);
            by_stages.add(staged, cuts[c]);
        }
        {
            INFO("one object a batch");
            require_same(by_batch, whole);
        }
        {
            INFO("decoders label and pair within, the collector pairs across");
            require_same(by_stages, whole);
        }
    }
}
