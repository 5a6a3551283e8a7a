// bslz4 sparse over many files (-o DIR, --list, --shard K/N): filled in by the work on issue 11.
#include <catch2/catch.hpp>
