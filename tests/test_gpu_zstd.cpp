// GPU tests (see the tests inside); built into test_gpu.
#include <catch2/catch.hpp>
