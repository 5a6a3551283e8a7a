#!/usr/bin/env bash
# A built bslz4 wheel, installed as a user without a compiler would install it: a fresh venv (no
# pip, setuptools, Meson or compiler in it), the wheel and its needs from a folder of wheels
# only (pip --no-index --only-binary :all:, so nothing can be built and nothing is fetched), PATH
# holding the venv alone and CC/CXX /bin/false. Then it imports the package, prints its build
# facts and CPU path, and runs pytest there: tests/wheel (the reference cases of tests/data and
# ../shared/testdata, the GPU classes) and the tests/python files that need only numpy.
#
#   bash tests/wheel/check_wheel.sh [--gpu] [--python PYTHON] WHEEL WHEELHOUSE
#
# WHEELHOUSE: pip's wheel, numpy's and pytest's (and pytest's needs), as `bootstrap.sh wheel`
# saves them in build/wheelhouse beside the repaired wheel; on a host offline (the GPU host)
# carry that folder. PYTHON: the interpreter the venv is made from; by default python3.X of the
# wheel's tag on PATH, else (or with --python debs) the Debian python3.X packages in
# WHEELHOUSE/debs unpacked into a scratch folder (a host whose Python is another version).
# --gpu: the GPU classes must run (a GPU host): exits 77 when there is no usable GPU, and the GPU
# tests fail instead of skipping.
# Prints `wheel STEP: ok (...)` or `wheel STEP: FAILED (...)` for each step (.ci/run counts them);
# exits 0 when all pass.
set -uo pipefail
gpu=0 python=
while [ $# -gt 0 ]; do
    case "$1" in
        --gpu) gpu=1; shift ;;
        --python) python=$2; shift 2 ;;
        *) break ;;
    esac
done
if [ $# -ne 2 ] || [ ! -f "$1" ] || [ ! -d "$2" ]; then
    echo "usage: bash tests/wheel/check_wheel.sh [--gpu] [--python PYTHON] WHEEL WHEELHOUSE" >&2
    exit 2
fi
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
house=$(cd "$2" && pwd)
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)  # the tree holding tests/python and tests/data

failed() { echo "wheel $1: FAILED ($2)"; exit 1; }

# The wheel's Python tag (bslz4-VERSION-cp311-cp311-PLATFORM.whl): the interpreter it needs.
tag=$(basename "$wheel" .whl | cut -d- -f3)
minor=${tag#cp3}
case "$minor" in ''|*[!0-9]*) failed install "$(basename "$wheel"): no CPython 3 tag" ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/bslz4-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
if [ -z "$python" ]; then
    python=$(command -v "python3.$minor") || python=debs
fi
if [ "$python" = debs ]; then
    python=
    if compgen -G "$house/debs/*.deb" > /dev/null; then
        for deb in "$house"/debs/*.deb; do dpkg -x "$deb" "$work/python" || failed install "dpkg -x $deb"; done
        python=$work/python/usr/bin/python3.$minor
    fi
    [ -x "$python" ] || failed install "no python3.$minor on PATH and none in $house/debs: give --python"
fi
pip_wheel=$(find "$house" -maxdepth 1 -name 'pip-*.whl' | sort | tail -1)
[ -n "$pip_wheel" ] || failed install "no pip wheel in $house"

# The venv's commands run with this environment alone: no compiler to be found (PATH is the
# venv's bin and an empty folder), CC and CXX that fail, no PYTHONPATH or pip settings; the
# loader's path and the GPU's selection are kept (a GPU host may need them for libcuda).
venv=$work/venv
mkdir -p "$work/nobin" "$work/home"
clean=(env -i "PATH=$venv/bin:$work/nobin" "HOME=$work/home" "TMPDIR=${TMPDIR:-/tmp}" LANG=C.UTF-8
       CC=/bin/false CXX=/bin/false CUDACXX=/bin/false NVCC=/bin/false PYTHONDONTWRITEBYTECODE=1
       "BSLZ4_WHEEL_VENV=$venv" "BSLZ4_WHEEL_REQUIRE_GPU=$gpu")
for v in LD_LIBRARY_PATH CUDA_VISIBLE_DEVICES BSLZ4_TESTDATA BSLZ4_WHEEL_EXPECT_GPU_RUNTIME; do
    [ -n "${!v+set}" ] && clean+=("$v=${!v}")
done

start=$SECONDS
"$python" -m venv --without-pip "$venv" || failed install "$python -m venv"
# pip runs from its wheel (python pip-*.whl/pip): it installs into the venv without being there.
if ! "${clean[@]}" "$venv/bin/python" "$pip_wheel/pip" --isolated install -q --no-cache-dir --no-index \
        --only-binary :all: --find-links "$house" "$wheel" numpy pytest; then
    failed install "pip install --no-index --only-binary :all: from $house"
fi
installed=$("${clean[@]}" "$venv/bin/python" -c '
import importlib.metadata as m
print(" ".join(sorted("%s %s" % (d.metadata["Name"], d.version) for d in m.distributions())))')
echo "wheel install: ok (a fresh venv of $("$python" -c 'import platform; print(platform.python_version())') at $python," \
     "$((SECONDS - start)) s: $installed; PATH holds no compiler, CC=CXX=/bin/false)"

start=$SECONDS
if ! "${clean[@]}" "$venv/bin/python" -c '
import json, os, sys
import bslz4
print("bslz4:", bslz4.__file__)
print("build_info:", json.dumps(bslz4.build_info(), sort_keys=True))
print("cpu path:", bslz4._bslz4.cpu_path())
built, usable, why = bslz4.gpu_runtime()
print("gpu runtime: built %s, usable %s%s" % (built, usable, "" if usable else " (%s)" % why))
if built:
    print("gpu kernels:", bslz4._bslz4.built_architectures())
if not bslz4.__file__.startswith(os.environ["BSLZ4_WHEEL_VENV"] + os.sep):
    sys.exit("bslz4 was imported from %s, not from the fresh venv" % bslz4.__file__)'; then
    failed import "import bslz4 in the fresh venv"
fi
echo "wheel import: ok ($((SECONDS - start)) s)"

if [ "$gpu" = 1 ]; then
    "${clean[@]}" "$venv/bin/python" -c '
import sys
import bslz4
built, usable, why = bslz4.gpu_runtime()
if not built:
    sys.exit(3)
sys.exit(0 if usable else 77)'
    case $? in
        0) ;;
        77) echo "wheel gpu: no usable GPU here: skipped (exit 77)"; exit 77 ;;
        *) failed gpu "the wheel has no GPU runtime (built without the fatbin)" ;;
    esac
fi

# pytest from the fresh venv over the tests in this tree; the package comes from the venv (the
# tests assert it), as no test folder holds a bslz4 package.
tests=(tests/wheel/test_installed_wheel.py tests/wheel/test_installed_wheel_gpu.py
       tests/python/test_cpu_against_numpy.py tests/python/test_api.py tests/python/test_seed_errors.py
       tests/python/test_device_array_views.py tests/python/test_gpu.py tests/python/test_gpu_views_and_errors.py)
start=$SECONDS
(cd "$root" && "${clean[@]}" "$venv/bin/python" -m pytest -q -p no:cacheprovider -rsx --basetemp="$work/pytest" "${tests[@]}") 2>&1 |
    tee "$work/pytest.log"
rc=${PIPESTATUS[0]}
summary=$(grep -E '^=* *[0-9]+ (passed|failed|error|xfailed)' "$work/pytest.log" | tail -1 | sed 's/^=* *//; s/ *=*$//')
[ "$rc" -eq 0 ] || failed tests "pytest exit $rc: ${summary:-no summary}"
echo "wheel tests: ok (pytest in the fresh venv, $((SECONDS - start)) s: $summary)"
