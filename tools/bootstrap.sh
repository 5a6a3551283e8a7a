#!/usr/bin/env bash
# The README's two commands: installs what a fresh Debian machine lacks (only what is missing),
# configures and builds, then runs the demo (`demo`) or the whole test suite (`test`).
#   bash tools/bootstrap.sh demo     # the main job on built-in demo data
#   bash tools/bootstrap.sh test     # every test (GPU tests skip without a GPU)
set -euo pipefail
what=${1:-}
case "$what" in demo|test) ;; *) echo "usage: bash tools/bootstrap.sh demo|test" >&2; exit 2 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$here"

packages=(meson ninja-build g++ pkg-config liblz4-dev libzstd-dev catch2 libhdf5-dev)
# The interop test reads our chunks through the reference HDF5 filter (hdf5plugin, from PyPI).
[ "$what" = test ] && packages+=(python3-venv)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "bootstrap: installing ${missing[*]}"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=${BSLZ4_BUILD_DIR:-build}
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" --buildtype=release
fi
ninja -C "$build"

if [ "$what" = test ] && [ ! -x "$build/interop-venv/bin/python" ]; then
    # Best effort: without PyPI the interop test skips and says why.
    if python3 -m venv "$build/interop-venv" &&
       "$build/interop-venv/bin/pip" install -q --disable-pip-version-check h5py hdf5plugin numpy; then
        echo "bootstrap: hdf5plugin installed for the interop test"
    else
        echo "bootstrap: could not install hdf5plugin; the interop test will skip"
        rm -rf "$build/interop-venv"
    fi
fi

if [ "$what" = demo ]; then
    exec "$build/tools/bslz4" demo
else
    exec meson test -C "$build" --print-errorlogs
fi
