#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan + UBSan) and runs each for
# SECONDS_PER_TARGET from a seed corpus, as many side by side as there are cores, printing one
# line per target in their order (TARGET: chunk_layout, decode_chunk, chunk2sparse, integration,
# scan_reader):
#   fuzz TARGET: ok (N execs, cov C)     or     fuzz TARGET: FAILED (...)
# and exits nonzero when any failed (a crash, a sanitizer report, a wrong answer, a leak, an
# allocation over the malloc limit, a hang).
#
#   tests/fuzz/run.sh BUILD_DIR SECONDS_PER_TARGET
#
# BUILD_DIR (relative to the project root) is configured here when it is not yet. Each target's
# corpus, log and crash inputs stay in BUILD_DIR/fuzz/TARGET/ (the corpus grows from run to
# run); a crash input replays with `BUILD_DIR/tests/fuzz/fuzz_TARGET INPUT`.
# Seeds: the reference chunks of ../shared/testdata when present, else of tests/data, wrapped by
# each target in its own input format (BSLZ4_FUZZ_WRITE_SEEDS), plus tests/fuzz/seeds/TARGET/
# and tests/fuzz/findings/TARGET-* (the inputs of defects the fuzzers found).
set -u

if [ $# -ne 2 ]; then
    echo "usage: $0 BUILD_DIR SECONDS_PER_TARGET" >&2
    exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root" || exit 2
build=$1
seconds=$2

# UBSan findings stop the run (the library is built with -fno-sanitize-recover=undefined too).
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}

if [ ! -f "$build/build.ninja" ]; then
    if ! out=$(CC=clang CXX=clang++ meson setup "$build" -Dfuzz=enabled -Dgpu=disabled \
                 -Db_sanitize=address,undefined -Db_lundef=false -Dbuildtype=debugoptimized 2>&1); then
        echo "$out" | tail -20
        echo "fuzz build: FAILED (meson setup $build)"
        exit 1
    fi
fi
targets=$(ninja -C "$build" -t targets all 2>/dev/null | sed -n 's|^\(tests/fuzz/fuzz_[a-z0-9_]*\): .*|\1|p' | sort -u)
if [ -z "$targets" ]; then
    echo "fuzz build: FAILED ($build has no fuzz targets: configure it with clang and -Dfuzz=enabled)"
    exit 1
fi
# shellcheck disable=SC2086  # one argument per target
if ! out=$(ninja -C "$build" -j2 $targets 2>&1); then
    echo "$out" | grep -E "error|FAILED" | head -20
    echo "fuzz build: FAILED (ninja -C $build)"
    exit 1
fi

if [ -d "$root/../shared/testdata" ]; then
    seed_data=$(cd "$root/../shared/testdata" && pwd)
else
    seed_data=$root/tests/data
fi

# fuzz_one TARGET: fuzzes one target, printing its line; nonzero when it failed.
fuzz_one() {
    local target=$1 name short bin dir corpus max_len rc execs cov input reason
    name=$(basename "$target")
    short=${name#fuzz_}
    bin=$build/$target
    dir=$build/fuzz/$short
    corpus=$dir/corpus
    mkdir -p "$corpus"
    rm -f "$dir"/crash-* "$dir"/leak-* "$dir"/oom-* "$dir"/timeout-* "$dir"/slow-unit-*
    if ! BSLZ4_FUZZ_SEED_DATA=$seed_data BSLZ4_FUZZ_WRITE_SEEDS=$corpus "$bin" > "$dir/seeds.log" 2>&1; then
        echo "fuzz $short: FAILED (writing its seeds: see $dir/seeds.log)"
        return 1
    fi
    # Hand-made seeds, and every finding so far (so a fixed defect stays fixed).
    cp "$root/tests/fuzz/seeds/$short"/* "$root/tests/fuzz/findings/$short"-* "$corpus"/ 2>/dev/null
    case $short in
        integration) max_len=4096 ;;
        scan_reader) max_len=2048 ;;
        *) max_len=65536 ;;
    esac
    "$bin" -max_total_time="$seconds" -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=$max_len \
        -print_final_stats=1 -artifact_prefix="$dir/" "$corpus" > "$dir/log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
    cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
    if [ $rc -eq 0 ]; then
        echo "fuzz $short: ok (${execs:-?} execs, cov ${cov:-?})"
        return 0
    fi
    input=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$dir/log" | tail -1)
    reason=$(grep -m1 -E "fuzz check failed|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)" "$dir/log" |
             sed 's/^==[0-9]*== *//; s/^==== //')
    echo "fuzz $short: FAILED (${reason:-exit $rc}; input ${input:-none}; log $dir/log)"
    grep -m1 -A14 -E "fuzz check failed|runtime error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)" "$dir/log" |
        grep -E "^ *#[0-9]+ .* in (bslz4|LLVMFuzzer|\(anonymous)" | head -8 | sed 's/^/    /'
    return 1
}

# The targets side by side, as many at once as there are cores (each fuzzes on one thread, so
# each still gets its SECONDS_PER_TARGET of a whole core), their lines printed in target order.
jobs=$(nproc 2>/dev/null || echo 1)
results=$build/fuzz/results
rm -rf "$results"
mkdir -p "$results"
running=0
for target in $targets; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n
        running=$((running - 1))
    fi
    short=$(basename "$target")
    short=${short#fuzz_}
    ( fuzz_one "$target" > "$results/$short.out" 2>&1; echo $? > "$results/$short.rc" ) &
    running=$((running + 1))
done
wait
failed=0
for target in $targets; do
    short=$(basename "$target")
    short=${short#fuzz_}
    cat "$results/$short.out" 2>/dev/null
    [ "$(cat "$results/$short.rc" 2>/dev/null)" = 0 ] || failed=1
done
exit $failed
