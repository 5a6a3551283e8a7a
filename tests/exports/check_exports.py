"""The shared library exports exactly its public names, in every build:
- C: the functions bslz4.h declares (BSLZ4_API), no more, no fewer; a GPU function missing from
  a CPU-only build, or a C symbol the header does not name, would make the ABI depend on the
  build options.
- C++: every class and function a bslz4/ header marks BSLZ4_API has its symbols exported, and
  every exported C++ symbol belongs to one of them: nothing of bslz4::detail, the driver layer,
  the C API's glue, nor another library's code (std:: templates the library instantiated).
Usage: check_exports.py INCLUDE_DIR LIBRARY [--no-gpu] (INCLUDE_DIR holds bslz4/; --no-gpu for a
build without the GPU runtime, whose C++ API has no bslz4::cuda: those headers are not installed)."""
import pathlib
import re
import shutil
import subprocess
import sys

SPECIAL = re.compile(r"^(typeinfo for |typeinfo name for |vtable for |VTT for )")


def declared_c(include):
    text = (include / "bslz4" / "bslz4.h").read_text(encoding="utf-8")
    return set(re.findall(r"BSLZ4_API\s+[^;(]*?\b(bslz4_\w+)\s*\(", text))


def declared_cpp(include, gpu):
    """{qualified name: header} for each BSLZ4_API class, struct and function of the headers."""
    names = {}
    for header in sorted((include / "bslz4").rglob("*.hpp")):
        if header.parent.name == "cuda" and not gpu:
            continue
        text = header.read_text(encoding="utf-8")
        namespace = "bslz4::cuda" if header.parent.name == "cuda" else "bslz4"
        rel = header.relative_to(include).as_posix()
        for name in re.findall(r"\b(?:class|struct)\s+BSLZ4_API\s+(\w+)", text):
            names[namespace + "::" + name] = rel
        for name in re.findall(r"BSLZ4_API\s+(?!class|struct)[^;(){}]*?\b(\w+)\s*\(", text):
            names[namespace + "::" + name] = rel
    return names


def symbols(library):
    nm = shutil.which("nm")
    if not nm:
        print("SKIP: no nm on PATH to list the library's symbols")
        sys.exit(77)
    out = subprocess.run([nm, "-D", "--defined-only", library], check=True, capture_output=True, text=True).stdout
    raw = [line.split() for line in out.splitlines()]
    raw = [p for p in raw if len(p) == 3 and p[1] not in ("A",)]  # A: the soname's version nodes
    demangled = subprocess.run(["c++filt"], input="\n".join(p[2] for p in raw), check=True, capture_output=True,
                               text=True).stdout.splitlines()
    return [(p[2], p[1], d) for p, d in zip(raw, demangled)]


def owner(demangled, public):
    """The public name an exported C++ symbol belongs to, or None."""
    name = SPECIAL.sub("", demangled)
    name = re.sub(r"\[abi:\w+\]", "", name.split("(", 1)[0])
    if "::detail::" in name:
        return None
    for candidate in sorted(public, key=len, reverse=True):
        if name == candidate or name.startswith(candidate + "::"):
            return candidate
    return None


def main():
    include, library = pathlib.Path(sys.argv[1]), sys.argv[2]
    gpu = "--no-gpu" not in sys.argv[3:]
    failures = []
    syms = symbols(library)
    want_c = declared_c(include)
    have_c = {m for m, kind, d in syms if kind == "T" and m.startswith("bslz4_")}
    failures += [f"declared in bslz4.h but not exported: {n}" for n in sorted(want_c - have_c)]
    failures += [f"exported but not declared in bslz4.h: {n}" for n in sorted(have_c - want_c)]
    public = declared_cpp(include, gpu)
    used = set()
    others = 0
    for mangled, kind, demangled in syms:
        if mangled in have_c:
            continue
        who = owner(demangled, public)
        if who is None:
            failures.append(f"exported but not public: {demangled} ({kind} {mangled})")
            others += 1
        else:
            used.add(who)
    failures += [f"marked BSLZ4_API in {public[n]} but nothing of it exported: {n}" for n in sorted(set(public) - used)]
    for f in failures:
        print(f)
    print(f"{len(want_c)} C functions declared, {len(have_c)} exported; {len(public)} C++ names public, "
          f"{len(used)} exported; {others} other symbols exported")
    return 1 if failures or not want_c or not public else 0


if __name__ == "__main__":
    sys.exit(main())
