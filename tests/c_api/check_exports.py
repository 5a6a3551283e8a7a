"""The shared library exports exactly the C functions bslz4.h declares (BSLZ4_API), in every
build: a GPU function missing from a CPU-only build, or a C symbol the header does not name,
would make the ABI depend on the build options. Usage: check_exports.py HEADER LIBRARY."""
import re
import shutil
import subprocess
import sys


def declared(header):
    text = open(header, encoding="utf-8").read()
    return set(re.findall(r"BSLZ4_API\s+[^;(]*?\b(bslz4_\w+)\s*\(", text))


def exported(library):
    nm = shutil.which("nm")
    if not nm:
        print("SKIP: no nm on PATH to list the library's symbols")
        sys.exit(77)
    out = subprocess.run([nm, "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    names = set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] == "T" and parts[2].startswith("bslz4_"):
            names.add(parts[2])
    return names


def main():
    header, library = sys.argv[1], sys.argv[2]
    want, have = declared(header), exported(library)
    missing, extra = sorted(want - have), sorted(have - want)
    for name in missing:
        print(f"declared in bslz4.h but not exported by {library}: {name}")
    for name in extra:
        print(f"exported by {library} but not declared in bslz4.h: {name}")
    print(f"{len(want)} C functions declared, {len(have)} exported")
    return 1 if missing or extra or not want else 0


if __name__ == "__main__":
    sys.exit(main())
