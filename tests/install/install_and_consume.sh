#!/bin/bash
# meson install into a temporary DESTDIR, then build and run programs against that installed
# tree only, as a consumer project would: a C++ and a C program, each with CMake
# (find_package(bslz4), bslz4::bslz4) and with pkg-config (bslz4.pc).
# usage: install_and_consume.sh BUILD_DIR CHUNK RAW ELEM_SIZE
set -euo pipefail
build=$1 chunk=$2 raw=$3 elem_size=$4
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/bslz4-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
dest=$work/dest

fail() { echo "install test: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --quiet --destdir "$dest" > "$work/install.log" 2>&1 ||
    { cat "$work/install.log" >&2; fail "meson install --destdir failed"; }

option() {  # the value of a Meson option of this build (prefix, libdir, includedir)
    meson introspect --buildoptions "$build" |
        python3 -c 'import json, sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"] == sys.argv[1]))' "$1"
}
prefix=$(option prefix) libdir=$(option libdir) includedir=$(option includedir)
case $libdir in /*) ;; *) libdir=$prefix/$libdir ;; esac
case $includedir in /*) ;; *) includedir=$prefix/$includedir ;; esac
root=$dest$prefix

# What the install must hold: the library under its ABI soname, headers, bslz4.pc, the CMake package.
lib=$(ls "$dest$libdir"/libbslz4.so.*.*.* 2>/dev/null | head -1) || true
[ -n "$lib" ] || fail "no libbslz4.so.N in $dest$libdir"
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[[ $soname =~ ^libbslz4\.so\.[0-9]+$ ]] || fail "the soname is '$soname', not libbslz4.so.N"
[ -e "$dest$libdir/$soname" ] || fail "$soname (the soname) is not installed beside $lib"
[ -e "$dest$libdir/libbslz4.so" ] || fail "no libbslz4.so link for -lbslz4"
for f in "$dest$includedir/bslz4/bslz4.hpp" "$dest$libdir/pkgconfig/bslz4.pc" \
         "$dest$libdir/cmake/bslz4/bslz4Config.cmake" "$dest$libdir/cmake/bslz4/bslz4ConfigVersion.cmake"; do
    [ -f "$f" ] || fail "not installed: ${f#"$dest"}"
done
echo "installed: ${lib#"$dest"} (soname $soname), headers, bslz4.pc, lib/cmake/bslz4"

[ -f "$dest$includedir/bslz4/bslz4.h" ] || fail "not installed: ${includedir}/bslz4/bslz4.h (the C API's header)"
nm -D --defined-only "$lib" | grep -w bslz4_decode > /dev/null ||  # not -q: nm must not get SIGPIPE (pipefail)
    fail "${lib#"$dest"} does not export the C API (bslz4_decode)"

run() {  # WHAT PROGRAM: run a consumer with the installed library on its path
    local what=$1 out
    out=$(LD_LIBRARY_PATH="$dest$libdir" "$2" "$chunk" "$raw" "$elem_size") || fail "$what: $2 failed"
    echo "$what: $out"
}

have_cmake=yes
command -v cmake > /dev/null || have_cmake="no: cmake is not installed"
for lang in CXX C; do
    name=consumer_$( [ "$lang" = C ] && echo c || echo cpp )
    if [ "$have_cmake" = yes ]; then
        cmake -S "$here/consumer" -B "$work/cmake-$lang" -DCONSUMER_LANGUAGE=$lang \
              -DCMAKE_PREFIX_PATH="$root" -DCMAKE_FIND_USE_SYSTEM_PACKAGE_REGISTRY=OFF \
              > "$work/cmake-$lang.log" 2>&1 &&
            cmake --build "$work/cmake-$lang" >> "$work/cmake-$lang.log" 2>&1 ||
            { cat "$work/cmake-$lang.log" >&2; fail "CMake could not build $name against the installed tree"; }
        grep -q "$dest" "$work/cmake-$lang/CMakeCache.txt" || fail "CMake found a bslz4 other than the installed one"
        run "cmake $lang" "$work/cmake-$lang/$name"
    else
        echo "SKIPPED: the CMake consumers ($have_cmake)"
    fi

    # pkg-config: the .pc names the prefix's paths; the sysroot maps them into DESTDIR. Only the
    # installed tree is searched: bslz4.pc must not need liblz4.pc or libzstd.pc (-dev packages).
    flags=$(PKG_CONFIG_LIBDIR="$dest$libdir/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest" pkg-config --cflags --libs bslz4) ||
        fail "pkg-config --cflags --libs bslz4 failed with only the installed tree searched"
    if [ "$lang" = C ]; then
        ${CC:-cc} -std=c99 -Wall -Wextra -pedantic -Werror "$here/consumer/consumer.c" $flags -o "$work/pc_$name"
    else
        ${CXX:-c++} -std=c++17 -Wall -Wextra "$here/consumer/consumer.cpp" $flags -o "$work/pc_$name"
    fi || fail "pkg-config flags ($flags) do not build $name"
    run "pkg-config $lang" "$work/pc_$name"
done
