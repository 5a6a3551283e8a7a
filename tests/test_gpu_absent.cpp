// On a host without a driver or a GPU (CI), the GPU runtime must say why, not crash, and the
// library must not need libcuda to load. On a GPU host these checks have nothing to check.
#include <catch2/catch.hpp>

#include "bslz4/cuda/chunk2sparse.hpp"
#include "bslz4/cuda/device.hpp"
#include "bslz4/error.hpp"

TEST_CASE("without a usable GPU the GPU class refuses with the reason, and nothing crashes", "[gpu-absent]") {
    if (bslz4::cuda::available()) {
        WARN("a GPU is present: the gpu suite covers this host");
        return;
    }
    const std::string why = bslz4::cuda::unavailable_reason();
    CHECK_FALSE(why.empty());
    CHECK(bslz4::cuda::device_count() == 0);
    const std::vector<std::uint8_t> mask(16, 1);
    REQUIRE_THROWS_WITH(bslz4::cuda::Chunk2Sparse(mask, 4, 4, bslz4::PixelType::u16), Catch::Contains(why));
    REQUIRE_THROWS_AS(bslz4::cuda::device_info(0), bslz4::Error);
    CHECK(std::string(bslz4::cuda::built_architectures()).size() > 0);
}
