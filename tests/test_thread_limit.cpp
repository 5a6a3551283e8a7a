// The CPU classes' thread count (Chunk2SparseOptions::threads): at most kMaxThreads, past it a
// bad_argument Error naming the option, not 30,000 threads started for a 64 x 48 frame.
#include <catch2/catch.hpp>

#include <climits>
#include <vector>

#include "bslz4/bslz4.hpp"
#include "bslz4/cpu_count.hpp"
#include "error_codes.hpp"
#include "matrix_support.hpp"

using namespace bslz4;

namespace {

const std::size_t ni = 64, nj = 48;

Chunk2SparseOptions with_threads(unsigned threads) {
    Chunk2SparseOptions o;
    o.threads = threads;
    return o;
}

}  // namespace

TEST_CASE("Chunk2Sparse refuses more than kMaxThreads threads with bad_argument naming the option", "[threads]") {
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    for (const unsigned threads : {kMaxThreads + 1, 30000u, UINT_MAX}) {
        INFO(threads);
        CHECK(test::code_thrown_by([&] { Chunk2Sparse(mask, ni, nj, PixelType::u16, with_threads(threads)); }) ==
              ErrorCode::bad_argument);
        CHECK_THROWS_WITH(Chunk2Sparse(mask, ni, nj, PixelType::u16, with_threads(threads)),
                          Catch::StartsWith("Chunk2SparseOptions::threads is " + std::to_string(threads) +
                                            ", more than the 1024 threads bslz4 starts at most"));
    }
}

TEST_CASE("Chunk2SparseCSC refuses more than kMaxThreads threads with bad_argument", "[threads]") {
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    const IntegrationMatrix m = normalise_matrix(test::random_csr(8, ni * nj, 1.0, 25).input());
    CHECK(test::code_thrown_by([&] {
              Chunk2SparseCSC(mask, ni, nj, PixelType::u16, m, Accumulator::f64, with_threads(30000));
          }) == ErrorCode::bad_argument);
}

TEST_CASE("thread counts up to kMaxThreads are taken, 0 meaning every usable CPU", "[threads]") {
    const std::vector<std::uint8_t> mask(ni * nj, 1);
    CHECK(Chunk2Sparse(mask, ni, nj, PixelType::u16, with_threads(2)).threads() == 2);
    CHECK(Chunk2Sparse(mask, ni, nj, PixelType::u16, with_threads(0)).threads() == usable_cpu_count());
    // The limit itself: the pool starts what the system lets it (a pids limit stops it sooner).
    const unsigned at_limit = Chunk2Sparse(mask, ni, nj, PixelType::u16, with_threads(kMaxThreads)).threads();
    CHECK(at_limit >= 1);
    CHECK(at_limit <= kMaxThreads);
}
