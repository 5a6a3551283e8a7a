#include <catch2/catch.hpp>
#include <random>

#include "bit_reference.hpp"
#include "bitshuffle.hpp"

using bslz4::detail::bit_shuffle;
using bslz4::detail::bit_unshuffle;

TEST_CASE("the fast bit unshuffle equals the bit-by-bit definition for every element size and length", "[bitshuffle]") {
    std::mt19937 rng(7);
    for (std::size_t es = 1; es <= 16; ++es) {
        for (std::size_t n : {8u, 16u, 120u, 128u, 136u, 256u, 1024u, 4096u, 8192u}) {
            std::vector<std::uint8_t> planes(n * es), out(n * es), scratch(n * es);
            for (auto& b : planes) b = static_cast<std::uint8_t>(rng());
            bit_unshuffle(planes.data(), out.data(), n, es, scratch.data());
            INFO("elem_size " << es << " n " << n);
            REQUIRE(out == bslz4::test::reference_unshuffle(planes, n, es));
        }
    }
}

TEST_CASE("the fast bit shuffle is the inverse of the bit-by-bit definition, and unshuffle gives back the elements",
          "[bitshuffle]") {
    std::mt19937 rng(11);
    for (std::size_t es : {1u, 2u, 3u, 4u, 5u, 8u, 16u}) {
        // lengths for the whole-register loops, their tails, and both together
        for (std::size_t n : {8u, 16u, 24u, 64u, 72u, 200u, 2048u, 4096u, 8192u}) {
            INFO("elem_size " << es << " n " << n);
            std::vector<std::uint8_t> in(n * es), planes(n * es), back(n * es), scratch(n * es);
            for (auto& b : in) b = static_cast<std::uint8_t>(rng());
            bit_shuffle(in.data(), planes.data(), n, es, scratch.data());
            REQUIRE(bslz4::test::reference_unshuffle(planes, n, es) == in);
            bit_unshuffle(planes.data(), back.data(), n, es, scratch.data());
            REQUIRE(back == in);
        }
    }
}
