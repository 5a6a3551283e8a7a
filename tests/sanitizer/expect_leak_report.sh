#!/usr/bin/env bash
# expect_leak_report.sh PROBE clean|leak: runs leak_probe with the environment it is given (the
# sanitize stage's ASAN_OPTIONS and HDF5_PLUGIN_PATH, unchanged) and checks LeakSanitizer's
# verdict. `clean`: exit 0 and no report, so the plugins HDF5 opens leave nothing to report.
# `leak`: a failing exit and a report of exactly the probe's block, so a leak of ours still
# fails a test while the plugin folder keeps the host's plugins out.
set -uo pipefail
probe=$1 mode=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$probe" "$mode" >"$out" 2>&1
code=$?
cat "$out"
fail() { echo "expect_leak_report: $mode: $*" >&2; exit 1; }
case "$mode" in
clean)
    [ "$code" -eq 0 ] || fail "exit $code, 0 expected"
    ! grep -q 'LeakSanitizer' "$out" || fail "LeakSanitizer reported (see above)"
    ;;
leak)
    [ "$code" -ne 0 ] || fail "exit 0: the deliberate leak did not fail the run (is detect_leaks off?)"
    grep -q 'ERROR: LeakSanitizer: detected memory leaks' "$out" || fail "exit $code, but no LeakSanitizer report"
    grep -q 'Direct leak of 4243 byte(s) in 1 object(s)' "$out" || fail "the report does not name the probe's block"
    # Only the probe's block: any other leak here would come from HDF5 or a plugin.
    grep -q 'SUMMARY: AddressSanitizer: 4243 byte(s) leaked in 1 allocation(s)' "$out" ||
        fail "the report holds more than the probe's block"
    ;;
*) fail "usage: expect_leak_report.sh PROBE clean|leak" ;;
esac
echo "expect_leak_report: $mode: as expected (exit $code)"
