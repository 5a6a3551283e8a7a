// The GPU peak labeller (bslz4::cuda::PeakLabeller, kernels/peak_labels.cu) against the CPU
// statement of ImageD11's rules (tools/peaks): every label, count and sum equal, for lmlabel and
// cplabel, with and without wtmax, in batches mixing empty frames, sparse and fully listed
// frames, shapes down to one row and one column, long uphill chains (a ramp), ties, values
// float32 rounds, and more frames than one numbering block holds. Part of test_gpu (its main
// skips, 77, without a GPU). And `bslz4 sparse --peaks`'s job on the GPU against the CPU job.
#include <catch2/catch.hpp>

#include <atomic>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "bslz4/cuda/peak_labels.hpp"
#include "peaks/frame_labels.hpp"
#include "peaks/peak_properties.hpp"

#if BSLZ4_HAVE_HDF5
#include "bslz4/bslz4.hpp"
#include "h5_reader.hpp"
#include "hdf5/scan_writer.hpp"
#include "sparse/sparse_job.hpp"
#include "synthetic/synthetic_eiger.hpp"
#include "test_support.hpp"
#include "tool_runner.hpp"
#endif

using namespace bslz4;

namespace {

struct Batch {
    std::size_t rows = 0, cols = 0;
    std::vector<std::uint32_t> nnz;
    std::vector<std::uint16_t> row, col;
    std::vector<float> value;
    void add(std::mt19937& rng, double density, int top) {
        std::uniform_real_distribution<double> u(0, 1);
        std::uniform_int_distribution<int> v(1, top);
        std::uint32_t n = 0;
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j)
                if (u(rng) < density) {
                    row.push_back(std::uint16_t(i));
                    col.push_back(std::uint16_t(j));
                    value.push_back(top > (1 << 24) ? float(v(rng)) + 0.75f : float(v(rng)));
                    ++n;
                }
        nnz.push_back(n);
    }
    cuda::PeakFrames view() const { return {nnz.size(), rows, cols, nnz.data(), row.data(), col.data(), value.data()}; }
};

void check_batch(cuda::PeakLabeller& gpu, const Batch& b, const std::optional<double>& wtmax) {
    for (const auto rule : {cuda::PeakRule::lmlabel, cuda::PeakRule::cplabel}) {
        const auto algorithm = rule == cuda::PeakRule::lmlabel ? tool::peaks::PeakAlgorithm::lmlabel : tool::peaks::PeakAlgorithm::cplabel;
        cuda::PeakLabels got;
        gpu.label(rule, b.view(), wtmax, got);
        std::vector<std::int32_t> labels(b.row.size());
        std::vector<std::uint32_t> nlabels;
        tool::peaks::PeakColumns props;
        tool::peaks::FrameLabeller cpu;
        tool::peaks::PropertySums sums;
        std::size_t at = 0;
        for (std::size_t f = 0; f < b.nnz.size(); ++f) {
            const tool::peaks::SparseFrame frame{b.row.data() + at, b.col.data() + at, b.value.data() + at, b.nnz[f]};
            nlabels.push_back(cpu.label(algorithm, frame, labels.data() + at));
            // the CPU refuses sums below 1, which these values (>= 1) never make
            sums.add_frame(frame, labels.data() + at, nlabels.back(), wtmax, std::int64_t(f), props, "frame");
            at += b.nnz[f];
        }
        INFO((rule == cuda::PeakRule::lmlabel ? "lmlabel" : "cplabel") << ", " << b.nnz.size() << " frames of " << b.rows << " x "
                                                                         << b.cols << ", " << b.row.size() << " pixels");
        REQUIRE(got.nlabels == nlabels);
        REQUIRE(got.labels == labels);
        std::vector<std::int64_t> expected;
        for (std::size_t p = 0; p < props[0].size(); ++p)
            for (int c = 0; c < 5; ++c) expected.push_back(props[c][p]);
        REQUIRE(got.props == expected);
    }
}

}  // namespace

TEST_CASE("GPU peak labels, counts and sums equal the CPU's, both rules, with and without wtmax", "[peaks]") {
    cuda::PeakLabeller gpu(0);
    std::mt19937 rng(31);
    const std::size_t shapes[][2] = {{1, 1}, {1, 300}, {257, 1}, {37, 45}, {128, 200}};
    for (const auto& s : shapes) {
        Batch b;
        b.rows = s[0];
        b.cols = s[1];
        for (const double density : {0.0, 0.02, 0.3, 0.8, 1.0})
            for (const int top : {2, 9, 5000, (1 << 25) + 5}) b.add(rng, density, top);
        check_batch(gpu, b, std::nullopt);
        check_batch(gpu, b, 6.0);
    }
}

TEST_CASE("a fully listed frame and a ramp with one long uphill chain label as on the CPU", "[peaks]") {
    cuda::PeakLabeller gpu(0);
    std::mt19937 rng(32);
    Batch full;
    full.rows = 512;
    full.cols = 512;
    full.add(rng, 1.0, 3);
    check_batch(gpu, full, std::nullopt);
    Batch ramp;  // every pixel's largest neighbour is the next one: a chain 20,000 long
    ramp.rows = 1;
    ramp.cols = 20000;
    for (std::uint16_t j = 0; j < 20000; ++j) {
        ramp.row.push_back(0);
        ramp.col.push_back(j);
        ramp.value.push_back(float(j + 1));
    }
    ramp.nnz.push_back(20000);
    check_batch(gpu, ramp, std::nullopt);
}

TEST_CASE("a batch of more frames than one numbering block holds is labelled in parts, frames numbered through", "[peaks]") {
    cuda::PeakLabeller gpu(0);
    std::mt19937 rng(33);
    Batch b;
    b.rows = 5;
    b.cols = 6;
    for (int f = 0; f < 4100; ++f) b.add(rng, 0.4, 4);
    check_batch(gpu, b, std::nullopt);
}

TEST_CASE("lists written into the labeller's staging label as the same lists given to label(); a staging is labelled once",
          "[peaks]") {
    cuda::PeakLabeller gpu(0);
    std::mt19937 rng(34);
    Batch big, small, parts, empty;
    big.rows = small.rows = 97;
    big.cols = small.cols = 131;
    for (const double density : {0.3, 0.0, 1.0, 0.05}) big.add(rng, density, 700);
    small.add(rng, 0.01, 40);
    parts.rows = 4;
    parts.cols = 9;
    for (int f = 0; f < 4099; ++f) parts.add(rng, 0.5, 6);
    empty.rows = empty.cols = 8;
    empty.add(rng, 0.0, 1);
    for (const Batch* b : {&big, &small, &parts, &empty, &big})
        for (const auto rule : {cuda::PeakRule::lmlabel, cuda::PeakRule::cplabel}) {
            INFO(b->nnz.size() << " frames of " << b->rows << " x " << b->cols << ", " << b->row.size() << " pixels");
            cuda::PeakLabels copied, staged;
            gpu.label(rule, b->view(), 5.0, copied);
            cuda::PeakFrames shape = b->view();
            shape.row = shape.col = nullptr;
            shape.value = nullptr;
            const cuda::PeakStaging to = gpu.stage(shape);
            REQUIRE(to.pixels == b->row.size());
            for (std::size_t k = 0; k < to.pixels; ++k) {
                to.row[k] = b->row[k];
                to.col[k] = b->col[k];
                to.value[k] = b->value[k];
            }
            gpu.label_staged(rule, 5.0, staged);
            CHECK(staged.labels == copied.labels);
            CHECK(staged.nlabels == copied.nlabels);
            CHECK(staged.props == copied.props);
            CHECK_THROWS_WITH(gpu.label_staged(rule, 5.0, staged), Catch::Contains("no batch staged"));
        }
}

TEST_CASE("a labeller reserved ahead labels as one that grows, below and past what it reserved", "[peaks]") {
    std::mt19937 rng(35);
    Batch small, large;
    small.rows = large.rows = 64;
    small.cols = large.cols = 80;
    for (int f = 0; f < 3; ++f) small.add(rng, 0.1, 50);
    for (int f = 0; f < 70; ++f) large.add(rng, 0.6, 50);
    cuda::PeakLabeller reserved(0);
    reserved.reserve(8, 2000, 16);
    reserved.reserve(0, 0);  // nothing to make: no error
    CHECK_THROWS_AS(reserved.reserve(1, std::size_t{1} << 40), Error);  // sizes that could wrap
    check_batch(reserved, small, std::nullopt);  // within what was reserved
    check_batch(reserved, large, 3.0);           // past it: the buffers grow
    check_batch(reserved, small, 3.0);
    // between stage() and label_staged() the staging holds the caller's lists: no reserve()
    reserved.stage(small.view());
    CHECK_THROWS_AS(reserved.reserve(64, 1 << 20), Error);
}

TEST_CASE("frames larger than uint16 rows and columns hold are refused", "[peaks]") {
    cuda::PeakLabeller gpu(0);
    Batch b;
    b.rows = 70000;
    b.cols = 2;
    b.nnz.push_back(0);
    cuda::PeakLabels out;
    CHECK_THROWS_WITH(gpu.label(cuda::PeakRule::lmlabel, b.view(), std::nullopt, out), Catch::Contains("do not fit uint16"));
}

#if BSLZ4_HAVE_HDF5
// bslz4 sparse --peaks on the GPU: each decoder labels its batches and pairs their frames, the
// collector pairs each batch's first frame with the batch before; all of it equal to the CPU job.
TEST_CASE("bslz4 sparse --peaks on the GPU writes the CPU job's labels, peaks and overlaps, across batches; its labelling decoder takes one ring slot",
          "[peaks][sparse]") {
    const std::size_t ni = 157, nj = 203, frames = 64 * 4 + 7;  // five batches, the last short
    std::vector<std::vector<std::uint8_t>> chunks;
    for (std::uint32_t f = 0; f < frames; ++f)
        chunks.push_back(encode_chunk(synthetic_eiger_frame(ni, nj, PixelType::u16, f % 3), 2));  // spots recur: overlaps
    const std::string scan = test::temp_path("peaks_gpu_scan.h5");
    tool::write_scan(scan, ni, nj, PixelType::u16, frames, {}, chunks);
    for (const auto algorithm : {tool::peaks::PeakAlgorithm::lmlabel, tool::peaks::PeakAlgorithm::cplabel})
        for (const std::optional<double> wtmax : {std::optional<double>{}, std::optional<double>{40.0}}) {
            INFO((algorithm == tool::peaks::PeakAlgorithm::lmlabel ? "lmlabel" : "cplabel") << (wtmax ? ", wtmax 40" : ""));
            std::vector<std::string> outputs;
            for (const auto where : {tool::SparseJob::Where::cpu, tool::SparseJob::Where::gpu}) {
                tool::SparseJob job;
                job.input = scan;
                job.output = test::temp_path(where == tool::SparseJob::Where::cpu ? "peaks_cpu.h5" : "peaks_gpu.h5");
                job.overwrite = true;
                job.cut = 2;
                job.where = where;
                job.quiet = true;
                job.peaks = tool::peaks::PeakOptions{algorithm, wtmax, 0.051};
                const std::atomic<bool> never{false};
                const tool::SparseSummary s = tool::run_sparse_job(job, never);
                CHECK(s.peak_pairs > 0);
                if (where == tool::SparseJob::Where::gpu) {
                    // a decoder more for the labelling, which holds one ring slot (it labels after
                    // giving its batch's slot back), not a slot and the next batch's
                    CHECK(s.decoder_threads == 3);
                    CHECK(s.ring_slots == s.reader_threads + 2 * 2 + 1);
                }
                outputs.push_back(job.output);
            }
            const test::H5Reader cpu(outputs[0]), gpu(outputs[1]);
            CHECK(gpu.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32) ==
                  cpu.dataset<std::uint32_t>("/entry/data/data/nnz", H5T_NATIVE_UINT32));
            CHECK(gpu.dataset<std::uint32_t>("/entry/data/data/nlabels", H5T_NATIVE_UINT32) ==
                  cpu.dataset<std::uint32_t>("/entry/data/data/nlabels", H5T_NATIVE_UINT32));
            CHECK(gpu.dataset<std::int32_t>("/entry/data/data/labels", H5T_NATIVE_INT32) ==
                  cpu.dataset<std::int32_t>("/entry/data/data/labels", H5T_NATIVE_INT32));
            for (const char* name : {"/entry/data/data/peak_props", "/entry/data/data/peak_pairs"}) {
                INFO(name);
                const auto want = cpu.dataset<std::int64_t>(name, H5T_NATIVE_INT64);
                CHECK(!want.empty());
                CHECK(gpu.dataset<std::int64_t>(name, H5T_NATIVE_INT64) == want);
            }
        }
}
#endif
