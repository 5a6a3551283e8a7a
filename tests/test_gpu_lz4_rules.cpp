// Filled in by the work on issue 10 / 16.
#include <catch2/catch.hpp>
