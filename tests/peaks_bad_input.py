#!/usr/bin/python3
"""`bslz4 peaks` on inputs it must refuse, each with exit 1 (2 for an unknown algorithm) and a message naming what is wrong,
and no output file left: a missing dataset file, a dataset without scans or omega, a scan
missing from the sparse file, nnz claiming more pixels than row holds, nnz past the frame's
pixels, pixels out of order, a pixel outside the frame, a peak whose weights sum below 1,
omega rows of the wrong length; an existing output without --overwrite, and the sparse file
itself as the output (exit 1, the file unchanged). Needs h5py only (exit 77 without it).
"""
import hashlib
import os
import subprocess
import tempfile

import interop_env

interop_env.enter_venv()
try:
    import h5py
    import numpy as np
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs h5py from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
check = interop_env.check


def write_dataset(path, scans, omega, sparse=None):
    with h5py.File(path, "w") as h:
        if scans is not None:
            h["scans"] = np.array(scans, dtype=h5py.string_dtype())
        if omega is not None:
            h["omega"] = omega
        if sparse:
            h.attrs["sparsefile"] = sparse


def write_sparse(path, groups):
    with h5py.File(path, "w") as h:
        for name, g in groups.items():
            grp = h.create_group(name)
            for k in ("nframes", "shape0", "shape1"):
                grp.attrs[k] = g[k]
            for k in ("row", "col", "intensity", "nnz"):
                grp[k] = g[k]


def good_scan():
    return {"nframes": 2, "shape0": 8, "shape1": 8, "row": np.array([1, 1, 2, 5], np.uint16),
            "col": np.array([1, 2, 1, 5], np.uint16), "intensity": np.array([5, 9, 3, 4], np.uint16),
            "nnz": np.array([3, 1], np.int32)}


def run(args):
    return subprocess.run([TOOL, "peaks", *args], capture_output=True, text=True)


def refused(tmp, label, want, ds_scans=("1.1",), omega=None, scan=None, extra=(), code=1):
    ds, sp, out = (os.path.join(tmp, n) for n in ("ds.h5", "sparse.h5", "out.h5"))
    if os.path.exists(out):
        os.remove(out)
    write_dataset(ds, list(ds_scans) if ds_scans is not None else None,
                  np.array([[0.0, 1.0]]) if omega is None else omega, sp)
    write_sparse(sp, {"1.1": scan if scan is not None else good_scan()})
    r = run([ds, "-o", out, *extra])
    check(r.returncode == code and want in r.stderr and not os.path.exists(out),
          f"{label}: exit {code} naming '{want}' and no output (exit {r.returncode}: {r.stderr.strip()})")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        r = run([os.path.join(tmp, "missing.h5"), "-o", os.path.join(tmp, "o.h5")])
        check(r.returncode == 1 and "missing.h5" in r.stderr, f"a missing dataset file is named ({r.stderr.strip()})")
        refused(tmp, "no scans", "has no scans", ds_scans=None)
        refused(tmp, "omega rows of the wrong length", "2 frames but 3 omega angles", omega=np.array([[0.0, 1.0, 2.0]]))
        refused(tmp, "a scan not in the sparse file", "no such scan group", ds_scans=("2.1",))
        s = good_scan()
        s["nnz"] = np.array([3, 9], np.int32)
        refused(tmp, "nnz claiming more pixels than row holds", "nnz lists 12 pixels", scan=s)
        s = good_scan()
        s["nnz"] = np.array([3, 65], np.int32)
        refused(tmp, "nnz past the frame's pixels", "lists 65 pixels, not 0 to its 64", scan=s)
        s = good_scan()
        s["col"] = np.array([2, 1, 1, 5], np.uint16)
        refused(tmp, "pixels out of order", "not in row-major order", scan=s)
        s = good_scan()
        s["row"] = np.array([1, 1, 2, 8], np.uint16)
        refused(tmp, "a pixel outside the frame", "outside the frame", scan=s)
        s = good_scan()
        s["intensity"] = np.array([0.2, 0.3, 0.1, 4], np.float32)
        refused(tmp, "a peak of weights below 1", "below 1", scan=s)
        refused(tmp, "an unknown algorithm", "lmlabel or cplabel", extra=("--algorithm", "watershed"), code=2)

        ds, sp, out = (os.path.join(tmp, n) for n in ("ds.h5", "sparse.h5", "out.h5"))
        write_dataset(ds, ["1.1"], np.array([[0.0, 1.0]]), sp)
        write_sparse(sp, {"1.1": good_scan()})
        r = run([ds, "-o", out])
        check(r.returncode == 0 and os.path.exists(out), f"the good input runs ({r.stderr.strip()})")
        with h5py.File(out, "r") as h:
            check(list(h["pks2d/npk"][0]) == [2, 0, 0] and int(h["pks2d"].attrs["nlabel"]) == 2,
                  "one peak in each frame, sharing no pixel: two 3D peaks")
        before = hashlib.sha256(open(out, "rb").read()).hexdigest()
        r = run([ds, "-o", out])
        check(r.returncode == 1 and "--overwrite" in r.stderr and hashlib.sha256(open(out, "rb").read()).hexdigest() == before,
              f"an existing output is kept without --overwrite ({r.stderr.strip()})")
        check(run([ds, "-o", out, "--overwrite"]).returncode == 0, "and replaced with it")
        sparse_before = hashlib.sha256(open(sp, "rb").read()).hexdigest()
        r = run([ds, "-o", sp, "--overwrite"])
        check(r.returncode == 1 and "which this run reads" in r.stderr and
              hashlib.sha256(open(sp, "rb").read()).hexdigest() == sparse_before,
              f"the sparse file is never the output, even with --overwrite ({r.stderr.strip()})")
    interop_env.finish()


if __name__ == "__main__":
    main()
