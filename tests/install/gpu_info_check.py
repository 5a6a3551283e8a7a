#!/usr/bin/env python3
"""`bslz4 info --gpu` on whatever host runs it, GPU or not.

- The first line is the verdict: "gpu: ok: ..." with exit 0 and a device line saying a test
  frame decodes as on the CPU, or "gpu: none usable: WHY" (WHY not empty) with exit 1.
- `--sm N` answers for GPUs that are not here, from the kernels' architectures: each SASS
  architecture runs its own SASS, a later minor of the newest one runs that SASS, a GPU newer
  than every SASS runs the PTX by JIT, and one older than everything cannot run (exit 1).
- A bslz4 built without the GPU runtime says so, exit 1, for --gpu and --sm alike.

usage: gpu_info_check.py BSLZ4
"""
import re
import subprocess
import sys

tool = sys.argv[1]
failures = []


def run(*args):
    p = subprocess.run([tool, "info", *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def expect(cond, what):
    if not cond:
        failures.append(what)


code, out, err = run("--gpu")
first = out.splitlines()[0] if out else ""
print(out, end="")
if "built without the GPU runtime" in first:
    expect(code == 1, f"a bslz4 without the GPU runtime exits {code}, not 1")
    code, out, _ = run("--gpu", "--sm", "90")
    expect(code == 1 and "built without the GPU runtime" in out, "--sm in a build without the GPU runtime: " + out)
else:
    if code == 0:
        expect(first.startswith("gpu: ok: "), "exit 0 but the first line is " + first)
        expect(any(l.startswith("device ") and "a test frame decodes as on the CPU" in l for l in out.splitlines()),
               "exit 0 but no device line says a test frame decodes")
        # The kernel module's version, when given, is a version (the open module's line once gave "for").
        module = re.search(r"driver CUDA \d+\.\d+ \(([^)]*)\)", first)
        expect(module is None or re.fullmatch(r"\d+\.\d+(\.\d+)*", module.group(1)) is not None,
               "the driver's version reads " + (module.group(1) if module else ""))
    else:
        expect(code == 1, f"--gpu exits {code}, neither 0 nor 1 (stderr: {err})")
        expect(re.match(r"gpu: none usable: \S", first) is not None, "exit 1 but the first line is " + first)
    built = re.search(r"kernels CUDA (\S+) for (.*)$", first)
    expect(built is not None, "the first line does not name the kernels: " + first)
    if built:
        archs = built.group(2)
        ptx = [int(a) for a in re.findall(r"\d+", archs[archs.find("(PTX"):])] if "(PTX" in archs else []
        sass = [int(a) for a in re.findall(r"\d+", archs.split("(PTX")[0])]
        for a in sass:
            c, o, _ = run("--gpu", "--sm", str(a))
            expect(c == 0 and f"runs its SASS sm_{a}" in o, f"--sm {a}: {c} {o}")
        if sass:
            newest = max(sass)
            c, o, _ = run("--gpu", "--sm", str(newest + 1))
            expect(c == 0 and f"runs its SASS sm_{newest}" in o, f"--sm {newest + 1}: {c} {o}")
        if ptx:
            later = (max(sass + ptx) // 10 + 1) * 10
            c, o, _ = run("--gpu", "--sm", str(later))
            expect(c == 0 and f"runs by JIT from PTX compute_{max(ptx)}" in o, f"--sm {later}: {c} {o}")
        oldest = min(sass + ptx) - 1
        c, o, _ = run("--gpu", "--sm", str(oldest))
        expect(c == 1 and "cannot run" in o and f"-Dgpu_archs including {oldest}" in o, f"--sm {oldest}: {c} {o}")
c, _, e = run("--gpu", "--sm", "5")
expect(c == 2 if "built without" not in first else c in (1, 2), f"--sm 5 exits {c}: {e}")

for f in failures:
    print("FAILED:", f)
sys.exit(1 if failures else 0)
