// The pyFAI matrix of ../shared/testdata/powder.h5 (csr and csc groups) applied to the frames of
// eiger_like.h5 with its pixel_mask must give expected_powder. A clone without ../shared exits
// 77 (skipped) and says so.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "bslz4/bslz4.hpp"
#if BSLZ4_HAVE_CUDA
#include "bslz4/cuda/chunk2sparse_csc.hpp"
#include "bslz4/cuda/device.hpp"
#endif
#include "h5_reader.hpp"
#include "tool_runner.hpp"
#include "cli/reference_cases.hpp"

using namespace bslz4;

namespace {

struct Reference {
    std::size_t frames = 6, ni = 514, nj = 1030;
    std::vector<std::vector<std::uint8_t>> chunks;
    std::vector<std::uint8_t> use;  // our mask: nonzero = use
    std::vector<double> expected;   // frames x bins
    std::size_t bins = 0;
};

const Reference& reference() {
    static const Reference r = [] {
        Reference out;
        const std::string dir = tool::default_testdata_dir();
        const test::H5Reader eiger(dir + "/eiger_like.h5"), powder(dir + "/powder.h5");
        for (std::size_t f = 0; f < out.frames; ++f) out.chunks.push_back(eiger.chunk("/entry/data/data", f));
        const auto nexus = eiger.dataset<std::uint32_t>("/entry/instrument/detector/pixel_mask", H5T_NATIVE_UINT32);
        for (std::uint32_t m : nexus) out.use.push_back(m == 0);  // NeXus: nonzero = do not use
        out.expected = powder.dataset<double>("/expected_powder", H5T_NATIVE_DOUBLE);
        out.bins = out.expected.size() / out.frames;
        return out;
    }();
    return r;
}

IntegrationMatrix load_matrix(const std::string& group) {
    const test::H5Reader powder(tool::default_testdata_dir() + "/powder.h5");
    const auto data = powder.dataset<float>("/" + group + "/data", H5T_NATIVE_FLOAT);
    const auto indices = powder.dataset<std::int32_t>("/" + group + "/indices", H5T_NATIVE_INT32);
    const auto indptr = powder.dataset<std::int32_t>("/" + group + "/indptr", H5T_NATIVE_INT32);
    const auto shape = powder.attribute("/" + group, "shape");
    const MatrixInput in{group == "csc" ? MatrixLayout::csc : MatrixLayout::csr, static_cast<std::size_t>(shape[0]),
                         static_cast<std::size_t>(shape[1]), data.data(), data.size(), IndexType::i32, indices.data(),
                         indices.size(), indptr.data(), indptr.size()};
    return normalise_matrix(in);
}

void check(const Powder& got, double rel) {
    const Reference& r = reference();
    REQUIRE(got.nframes == r.frames);
    REQUIRE(got.bins == r.bins);
    double worst = 0;
    for (std::size_t f = 0; f < r.frames; ++f)
        for (std::size_t b = 0; b < r.bins; ++b) {
            const double e = r.expected[f * r.bins + b], g = got.value(f, b);
            const double err = std::fabs(g - e) / std::max(1.0, std::fabs(e));
            worst = std::max(worst, err);
            INFO("frame " << f << " bin " << b << ": " << g << " expected " << e);
            REQUIRE(err <= rel);
        }
    WARN("largest relative difference " << worst);
}

}  // namespace

TEST_CASE("the pyFAI matrix, csr and csc, gives expected_powder: f64 to 1e-12, f32 to 1e-5, i64 fixed point", "[powder]") {
    const Reference& r = reference();
    const std::vector<ByteView> views(r.chunks.begin(), r.chunks.end());
    for (const char* group : {"csr", "csc"}) {
        INFO("matrix group " << group);
        const IntegrationMatrix m = load_matrix(group);
        Chunk2SparseCSC f64(r.use, r.ni, r.nj, PixelType::u32, m, Accumulator::f64);
        check(f64.multi(views, 10.0).powder, 1e-12);
        Chunk2SparseCSC f32(r.use, r.ni, r.nj, PixelType::u32, m, Accumulator::f32);
        check(f32.multi(views, 10.0).powder, 1e-5);
        Chunk2SparseCSC i64(r.use, r.ni, r.nj, PixelType::u32, fixed_point_matrix(m, PixelType::u32), Accumulator::i64);
        check(i64.multi(views, 10.0).powder, 1e-5);
    }
}

TEST_CASE("bslz4 sparse on eiger_like.h5 with powder.h5's matrix gives the library's lists and expected_powder", "[powder][cli]") {
    const Reference& r = reference();
    const std::string dir = tool::default_testdata_dir(), out = test::temp_path("eiger_like_sparse.h5");
    const test::ToolResult run =
        test::run_tool("sparse --overwrite " + dir + "/eiger_like.h5 -o " + out + " --cut 10 --matrix " + dir + "/powder.h5:csc --quiet");
    INFO(run.err);
    REQUIRE(run.code == 0);
    const test::H5Reader f(out);
    const auto powder = f.dataset<double>("/entry/data/data/powder", H5T_NATIVE_DOUBLE);
    REQUIRE(powder.size() == r.expected.size());
    for (std::size_t k = 0; k < powder.size(); ++k)
        REQUIRE(std::fabs(powder[k] - r.expected[k]) <= 1e-12 * std::max(1.0, std::fabs(r.expected[k])));
    const auto nnz = f.dataset<std::int32_t>("/entry/data/data/nnz", H5T_NATIVE_INT32);
    Chunk2Sparse lib(r.use, r.ni, r.nj, PixelType::u32);
    const SparseBatch want = lib.multi(std::vector<ByteView>(r.chunks.begin(), r.chunks.end()), 10.0);
    for (std::size_t fr = 0; fr < r.frames; ++fr) REQUIRE(static_cast<std::size_t>(nnz[fr]) == want.npixels[fr]);
    CHECK(f.attribute("/entry/data/data", "complete") == std::vector<std::int64_t>{1});
}

#if BSLZ4_HAVE_CUDA
TEST_CASE("on the GPU, the pyFAI matrix gives expected_powder and the CPU's int64", "[powder][gpu]") {
    if (!cuda::available()) {
        WARN("no GPU (" << cuda::unavailable_reason() << "): the GPU half of this check did not run");
        return;
    }
    const Reference& r = reference();
    const std::vector<ByteView> views(r.chunks.begin(), r.chunks.end());
    for (const char* group : {"csr", "csc"}) {
        INFO("matrix group " << group);
        const IntegrationMatrix m = load_matrix(group);
        cuda::Chunk2SparseCSC f64(r.use, r.ni, r.nj, PixelType::u32, m, Accumulator::f64);
        check(f64.multi(views, 10.0).powder, 1e-12);
        cuda::Chunk2SparseCSC f32(r.use, r.ni, r.nj, PixelType::u32, m, Accumulator::f32);
        check(f32.multi(views, 10.0).powder, 1e-5);
        const IntegrationMatrix x = fixed_point_matrix(m, PixelType::u32);
        cuda::Chunk2SparseCSC gi(r.use, r.ni, r.nj, PixelType::u32, x, Accumulator::i64);
        Chunk2SparseCSC ci(r.use, r.ni, r.nj, PixelType::u32, x, Accumulator::i64);
        const Powder gp = gi.multi(views, 10.0).powder;
        const std::vector<std::int64_t> gpu(gp.as<std::int64_t>(), gp.as<std::int64_t>() + r.frames * r.bins);
        const Powder cpu = ci.multi(views, 10.0).powder;
        REQUIRE(std::memcmp(gpu.data(), cpu.data, gpu.size() * 8) == 0);
        check(cpu, 1e-5);
    }
}
#endif

int main(int argc, char** argv) {
    const std::string dir = tool::default_testdata_dir();
    if (std::FILE* f = std::fopen((dir + "/powder.h5").c_str(), "r")) {
        std::fclose(f);
    } else {
        std::printf("SKIP: no shared reference data at %s (a clone without ../shared)\n", dir.c_str());
        return 77;
    }
    return Catch::Session().run(argc, argv);
}
