#include "reference_check.hpp"
#include "test_support.hpp"

TEST_CASE("the reference subset in tests/data decodes exactly (pins the format in any clone)", "[reference]") {
    const std::string dir = bslz4::test::env_or("BSLZ4_LOCAL_TESTDATA", "tests/data");
    CHECK(bslz4::test::check_reference_cases(dir) >= 200);
}
