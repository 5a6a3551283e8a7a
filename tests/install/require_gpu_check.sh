#!/bin/bash
# On a host without a usable GPU: the gpu suite (tests/test_gpu) skips (exit 77), and with
# BSLZ4_REQUIRE_GPU=1 fails instead (exit 1, saying why), so a CI runner that lost its GPU goes
# red. Skipped (77) where a GPU works, or where test_gpu is not built.
# usage: require_gpu_check.sh BSLZ4 TEST_GPU
tool=$1 test_gpu=$2
[ -x "$test_gpu" ] || { echo "SKIP: $test_gpu is not built"; exit 77; }
if "$tool" info --gpu > /dev/null; then echo "SKIP: a GPU works here; the suite runs instead of skipping"; exit 77; fi
fail() { echo "FAILED: $*"; exit 1; }

out=$(env -u BSLZ4_REQUIRE_GPU "$test_gpu" 2>&1); rc=$?
[ $rc -eq 77 ] || fail "without BSLZ4_REQUIRE_GPU test_gpu exits $rc, not 77: $out"
out=$(BSLZ4_REQUIRE_GPU=0 "$test_gpu" 2>&1); rc=$?
[ $rc -eq 77 ] || fail "with BSLZ4_REQUIRE_GPU=0 test_gpu exits $rc, not 77: $out"
out=$(BSLZ4_REQUIRE_GPU=1 "$test_gpu" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "with BSLZ4_REQUIRE_GPU=1 test_gpu exits $rc, not 1: $out"
[[ $out == *"BSLZ4_REQUIRE_GPU=1 but no usable GPU: "?* ]] || fail "with BSLZ4_REQUIRE_GPU=1 the message is: $out"
echo "without a GPU: skipped (77); BSLZ4_REQUIRE_GPU=1: $out (exit 1)"
