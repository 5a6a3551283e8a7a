#!/usr/bin/python3
"""`bslz4 peaks` against ImageD11 2.1's own properties step (ImageD11.sinograms.properties.main,
PyPI ImageD11 in the venv) on the same dataset file and sparse file: Bliss-like scanning-3DXRD
datasets (several rotation rows, back-and-forth omega, spots that last several frames and reach
the neighbouring rows, empty frames, pixels on the frame's edges, a frame with every pixel listed,
saturated pixels), u16 and u32 (with values float32 rounds), both algorithms, with and without
wtmax, and a dataset of one scan (ImageD11's other path). The peaks table (ipk, pk_props, npk,
glabel, nlabel) must equal ImageD11's, value and type, and the 2D and 4D columnfiles that
DataSet.pk2d / pk4d make from each must be equal too.

Then `bslz4 sparse --peaks` on a scan hdf5plugin wrote (150 frames: batches of the job end inside
spots): its labels, nlabels, peak_props and peak_pairs must be those ImageD11's SparseScan and
properties.props make from the lists it wrote, and `bslz4 peaks` on that file (its labels used,
not made again) must write ImageD11's peaks table. Exits 77 without h5py, hdf5plugin or ImageD11.
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


def same_pairs(ours, theirs):
    """Our peak_pairs rows (frame a, frame b, label a, label b, pixels) against pairrow's dict."""
    mine = {}
    for fa, fb, la, lb, c in ours:
        mine.setdefault((0, int(fa), 0, int(fb)), []).append((int(la), int(lb), int(c)))
    return mine == {k: [tuple(int(x) for x in r) for r in v[1]] for k, v in theirs.items() if v[0] > 0}


def sparse_peaks_cases(tmp, rng):
    try:
        import hdf5plugin
        from ImageD11 import sparseframe
    except ImportError as e:
        print(f"skipped the bslz4 sparse --peaks cases: {e}")
        return
    n, ni, nj = 150, 50, 70
    f = (rng.random((n, ni, nj)) < 0.02) * rng.integers(1, 4, (n, ni, nj))
    for _ in range(300):
        k, i, j = rng.integers(0, n), rng.integers(0, ni), rng.integers(0, nj)
        for dk in range(4):
            if k + dk < n:
                box = f[k + dk, max(i - 2, 0):i + 3, max(j - 2, 0):j + 3]
                box += rng.integers(2, 50, box.shape)
    f[62:67] += 1  # every pixel listed, across the end of the first batch
    f[100] = 0
    scan = os.path.join(tmp, "scan.h5")
    with h5py.File(scan, "w") as h:
        h.create_dataset("/entry/data/data", data=f.astype(np.uint16), chunks=(1, ni, nj), **hdf5plugin.Bitshuffle(cname="lz4"))
    out = os.path.join(tmp, "sparse_peaks.h5")
    # A peak whose weights sum below 1 (float pixels of 0.5): ImageD11 refuses it ("bad data"),
    # so does the job, naming it; the output it would have replaced is left as it was.
    halves = os.path.join(tmp, "halves.h5")
    with h5py.File(halves, "w") as h:
        h.create_dataset("/entry/data/data", data=np.full((3, 8, 8), 0.5, np.float32), chunks=(1, 8, 8),
                         **hdf5plugin.Bitshuffle(cname="lz4"))
    with open(out, "wb") as keep:
        keep.write(b"an earlier result")
    run = subprocess.run([TOOL, "sparse", halves, "-o", out, "--cut", "0", "--peaks", "lmlabel", "--overwrite", "--cpu"],
                         capture_output=True, text=True)
    check(run.returncode == 1 and "below 1" in run.stderr and open(out, "rb").read() == b"an earlier result",
          f"sparse --peaks refuses weights summing below 1 and leaves the output as it was ({run.stderr.strip()[-200:]})")
    for algorithm in ("lmlabel", "cplabel"):
        for wtmax in (None, 30):
            label = f"sparse --peaks {algorithm} wtmax {wtmax}"
            cmd = [TOOL, "sparse", scan, "-o", out, "--cut", "0", "--peaks", algorithm, "--overwrite", "--cpu", "--quiet"]
            if wtmax is not None:
                cmd += ["--wtmax", str(wtmax)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            if run.returncode != 0:
                check(False, f"{label}: exits 0 ({run.stderr.strip()})")
                continue
            s = sparseframe.SparseScan(out, "/entry/data/data")
            s.motors["omega"] = np.arange(n, dtype=float)
            with contextlib.redirect_stdout(io.StringIO()):
                props, pairs = properties.props(s, 0, algorithm=algorithm, wtmax=wtmax)
            with h5py.File(out, "r") as h:
                g = h["/entry/data/data"]
                check(np.array_equal(g["labels"][()], s.labels) and np.array_equal(g["nlabels"][()], s.nlabels),
                      f"{label}: labels and nlabels equal SparseScan.{algorithm}'s ({len(s.labels)} pixels)")
                check(np.array_equal(g["peak_props"][()].T, props), f"{label}: peak_props equal props' ({props.shape[1]} peaks)")
                check(same_pairs(g["peak_pairs"][()], pairs), f"{label}: peak_pairs equal pairrow's ({len(g['peak_pairs'])})")
            # bslz4 peaks on it: the labels are taken, and the table is ImageD11's.
            ds = dataset.DataSet(dataroot=tmp, analysisroot=tmp, sample="s", dset="p")
            ds.scans = ["/entry/data/data"]
            ds.shape = (1, n)
            ds.omega = np.arange(n, dtype=float)[None, :]
            ds.dty = np.zeros((1, n))
            dsfile = os.path.join(tmp, "ds_peaks.h5")
            if os.path.exists(dsfile):
                os.remove(dsfile)
            with contextlib.redirect_stdout(io.StringIO()):
                ds.save(dsfile)
            ref, ours = os.path.join(tmp, "ref_sp.h5"), os.path.join(tmp, "ours_sp.h5")
            for p in (ref, ours):
                if os.path.exists(p):
                    os.remove(p)
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                properties.main(dsfile, out, ref, options={"algorithm": algorithm, "wtmax": wtmax, "nproc": 1})
            cmd = [TOOL, "peaks", dsfile, "--sparse", out, "-o", ours, "--algorithm", algorithm]
            if wtmax is not None:
                cmd += ["--wtmax", str(wtmax)]
            run = subprocess.run(cmd, capture_output=True, text=True)
            (rt, rn), (ot, on) = read_table(ref), read_table(ours)
            check(run.returncode == 0 and "their labels were used" in run.stdout and
                  all(np.array_equal(rt[k], ot[k]) for k in rt) and int(rn) == int(on),
                  f"{label}: bslz4 peaks takes its labels and writes ImageD11's table ({run.stdout.strip()}{run.stderr.strip()})")


def main():
    rng = np.random.default_rng(30)
    cases = [("u16", np.uint16, False, 5, 24), ("u32", np.uint32, True, 4, 20), ("u16 one scan", np.uint16, False, 1, 30)]
    for name, dtype, big, nscans, nframes in cases:
        with tempfile.TemporaryDirectory() as tmp:
            dsfile, sparse = make_dataset(tmp, rng, nscans, nframes, dtype, big)
            for algorithm in ("lmlabel", "cplabel"):
                for wtmax in (None, 50):
                    compare(tmp, dsfile, sparse, algorithm, wtmax, f"{name} {algorithm} wtmax {wtmax}")
    with tempfile.TemporaryDirectory() as tmp:
        sparse_peaks_cases(tmp, rng)
    interop_env.finish()


if __name__ == "__main__":
    main()
