#!/usr/bin/python3
"""`bslz4 peaks` against ImageD11 2.1's own properties step (ImageD11.sinograms.properties.main,
PyPI ImageD11 in the venv) on the same dataset file and sparse file: Bliss-like scanning-3DXRD
datasets (several rotation rows, back-and-forth omega, spots that last several frames and reach
the neighbouring rows, empty frames, pixels on the frame's edges, a frame with every pixel listed,
saturated pixels), u16 and u32 (with values float32 rounds), both algorithms, with and without
wtmax, and a dataset of one scan (ImageD11's other path). The peaks table (ipk, pk_props, npk,
glabel, nlabel) must equal ImageD11's, value and type, and the 2D and 4D columnfiles that
DataSet.pk2d / pk4d make from each must be equal too. Exits 77 without h5py or ImageD11.
"""
import contextlib
import io
import os
import subprocess
import tempfile

import interop_env

interop_env.enter_venv()
try:
    import h5py
    import numpy as np
    from ImageD11.sinograms import dataset, properties
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
NI, NJ = 40, 56
check = interop_env.check


def frames_of_dataset(rng, nscans, nframes, dtype, big):
    """Dense frames (scans, frames, NI, NJ): a sparse background, spots that cover 2-4 frames and
    2 rows, some on the edges, a few saturated pixels, a blank frame per scan, and in scan 0 one
    frame lit everywhere."""
    f = (rng.random((nscans, nframes, NI, NJ)) < 0.01).astype(np.int64) * rng.integers(1, 4, (nscans, nframes, NI, NJ))
    for _ in range(nscans * 6):
        s, k = rng.integers(0, nscans), rng.integers(0, nframes)
        i, j = rng.integers(-1, NI + 1), rng.integers(-1, NJ + 1)  # centres on and past the edges
        w = rng.integers(1, 3)
        for ds in (0, 1):
            for dk in range(rng.integers(2, 5)):
                if s + ds < nscans and k + dk < nframes:
                    a, b = max(i - w, 0), max(j - w, 0)
                    f[s + ds, k + dk, a:i + w + 1, b:j + w + 1] += rng.integers(2, 60, f[s + ds, k + dk, a:i + w + 1, b:j + w + 1].shape)
    if big:  # past 2^24: float32 rounds these
        f[f > 40] += (1 << 25) + 3
    f[:, 3] = 0  # empty frames
    f[0, 5] += 1  # every pixel listed
    for _ in range(5):
        f[rng.integers(0, nscans), rng.integers(0, nframes), rng.integers(0, NI), rng.integers(0, NJ)] = 65535
    return f.astype(dtype)


def write_sparse(path, frames, scans, cut=0):
    with h5py.File(path, "w") as h:
        for s, name in enumerate(scans):
            rows, cols, vals, nnz = [], [], [], []
            for fr in frames[s]:
                i, j = np.nonzero(fr > cut)
                rows.append(i)
                cols.append(j)
                vals.append(fr[i, j])
                nnz.append(len(i))
            g = h.create_group(name)
            g.attrs["nframes"] = len(frames[s])
            g.attrs["shape0"] = NI
            g.attrs["shape1"] = NJ
            g["row"] = np.concatenate(rows).astype(np.uint16)
            g["col"] = np.concatenate(cols).astype(np.uint16)
            g["intensity"] = np.concatenate(vals)
            g["nnz"] = np.array(nnz, np.int32)


def make_dataset(tmp, rng, nscans, nframes, dtype, big):
    scans = ["%d.1" % (s + 1) for s in range(nscans)]
    sparse = os.path.join(tmp, "sparse.h5")
    write_sparse(sparse, frames_of_dataset(rng, nscans, nframes, dtype, big), scans)
    ds = dataset.DataSet(dataroot=tmp, analysisroot=tmp, sample="s", dset="d")
    ds.scans = scans
    ds.shape = (nscans, nframes)
    step = 360.0 / nframes
    omega = np.empty(ds.shape)
    for s in range(nscans):  # back and forth, each row a little off the one before
        o = np.arange(nframes) * step + 0.01 * (s % 3)
        omega[s] = o if s % 2 == 0 else o[::-1]
    ds.omega = omega
    ds.dty = np.repeat(np.arange(nscans, dtype=float)[:, None], nframes, axis=1)
    ds.sparsefile = sparse
    dsfile = os.path.join(tmp, "ds.h5")
    with contextlib.redirect_stdout(io.StringIO()):
        ds.save(dsfile)
    return dsfile, sparse


def read_table(path):
    with h5py.File(path, "r") as h:
        g = h["pks2d"]
        return {n: g[n][()] for n in ("ipk", "pk_props", "npk", "glabel")}, g.attrs["nlabel"]


def columnfiles(dsfile, pksfile):
    ds = dataset.load(dsfile)
    ds.pksfile = pksfile
    ds.splinefile = None  # no spatial correction: the columns as the peaks table gives them
    with contextlib.redirect_stdout(io.StringIO()):
        return ds.get_colfile_from_peaks_dict(), ds.get_colfile_from_peaks_dict(peaks_dict=ds.pk4d)


def same_columns(a, b):
    return sorted(a.titles) == sorted(b.titles) and all(np.array_equal(a[t], b[t]) for t in a.titles)


def compare(tmp, dsfile, sparse, algorithm, wtmax, label):
    ref, ours = os.path.join(tmp, f"ref_{label}.h5"), os.path.join(tmp, f"ours_{label}.h5")
    options = {"algorithm": algorithm, "wtmax": wtmax, "nproc": 2}
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        properties.main(dsfile, sparse, ref, options=options)
    cmd = [TOOL, "peaks", dsfile, "--sparse", sparse, "-o", ours, "--algorithm", algorithm, "--threads", "3"]
    if wtmax is not None:
        cmd += ["--wtmax", str(wtmax)]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        check(False, f"{label}: bslz4 peaks exits 0 ({run.stderr.strip()})")
        return
    (rt, rn), (ot, on) = read_table(ref), read_table(ours)
    for name in rt:
        check(rt[name].dtype == ot[name].dtype and np.array_equal(rt[name], ot[name]),
              f"{label}: pks2d/{name} equals ImageD11's ({rt[name].shape} {rt[name].dtype})")
    check(int(rn) == int(on), f"{label}: nlabel {int(on)} equals ImageD11's {int(rn)}")
    (r2, r4), (o2, o4) = columnfiles(dsfile, ref), columnfiles(dsfile, ours)
    check(same_columns(r2, o2) and same_columns(r4, o4),
          f"{label}: the 2D ({r2.nrows} peaks) and 4D ({r4.nrows} peaks) columnfiles equal ImageD11's")


def main():
    rng = np.random.default_rng(30)
    cases = [("u16", np.uint16, False, 5, 24), ("u32", np.uint32, True, 4, 20), ("u16 one scan", np.uint16, False, 1, 30)]
    for name, dtype, big, nscans, nframes in cases:
        with tempfile.TemporaryDirectory() as tmp:
            dsfile, sparse = make_dataset(tmp, rng, nscans, nframes, dtype, big)
            for algorithm in ("lmlabel", "cplabel"):
                for wtmax in (None, 50):
                    compare(tmp, dsfile, sparse, algorithm, wtmax, f"{name} {algorithm} wtmax {wtmax}")
    interop_env.finish()


if __name__ == "__main__":
    main()
