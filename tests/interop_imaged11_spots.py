#!/usr/bin/python3
"""`bslz4 sparse --howmany N --thresholds T --pixels-in-spot K` against ImageD11's own segmenter
step (ImageD11.sinograms.lima_segmenter.clean: its top_pixels, then sparseframe's
sparse_connected_pixels with threshold 0 and the pixels_in_spot cut), from PyPI: scans written by
hdf5plugin's bitshuffle with blobs of every size, for the pixel types a detector writes (and the
signed and float ones with cuts below 0, where ImageD11 counts the listed pixels not above 0 as
one group). Every frame's row, col and intensity must be the segmenter's. Runs under the venv
that tools/bootstrap.sh makes ($BSLZ4_INTEROP_VENV); exits 77 (skipped) without h5py,
hdf5plugin or ImageD11.
"""
import os
import subprocess
import tempfile
import types

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    from ImageD11.sinograms import lima_segmenter
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
NI, NJ, FRAMES = 48, 64, 12
# (type, cut, frames): cuts below 0 where the type has values there; "few loose": a background
# above 0 with a few pixels at 0 or below, so that the group of those is sometimes under K
CASES = [("u16", 2, "blobs"), ("u32", 3, "blobs"), ("i32", -3, "blobs"), ("f32", 0.5, "blobs"), ("f32", -1.5, "blobs"),
         ("f64", 0, "blobs"), ("i16", -2, "few loose"), ("f32", -2, "few loose")]
# (howmany, thresholds, pixels_in_spot); howmany None: every pixel above the cut
OPTIONS = [(None, None, 2), (None, None, 3), (None, None, 6), (60, (4.0, 8.0, 16.0, 32.0), 3), (25, (1.0, 2.0), 4)]


def frames_for(dtype, kind, rng):
    """Background of small counts (negative too for signed and float types), blobs of 1 to 12
    pixels, and in float64 values too small for float32; or (few loose) a background of 1 to 3
    with 0 to 8 pixels at 0 or -1."""
    out = []
    for _ in range(FRAMES):
        if kind == "few loose":
            f = rng.integers(1, 4, (NI, NJ)).astype(np.float64)
            loose = rng.integers(0, 9)
            f.flat[rng.permutation(NI * NJ)[:loose]] = rng.integers(-1, 1, loose)
            out.append(f.astype(dtype))
            continue
        f = np.floor(rng.exponential(1.2, (NI, NJ)))
        if np.dtype(dtype).kind in "if":
            f[rng.random((NI, NJ)) < 0.2] *= -1
        for _ in range(rng.integers(5, 25)):
            r, c = rng.integers(0, NI), rng.integers(0, NJ)
            for _ in range(rng.integers(1, 13)):
                f[r, c] = rng.integers(5, 60)
                r = min(NI - 1, max(0, r + rng.integers(-1, 2)))
                c = min(NJ - 1, max(0, c + rng.integers(-1, 2)))
        if np.dtype(dtype) == np.float64:
            f[rng.random((NI, NJ)) < 0.05] = 1e-50
        out.append(f.astype(dtype))
    return np.stack(out)


def segmenter(frame, cut, howmany, thresholds, pixels_in_spot):
    """ImageD11's lists for one frame: its selection (value > cut, mask all ones), then clean()."""
    row, col = np.nonzero(frame > cut)
    val = frame[row, col]
    opts = types.SimpleNamespace(howmany=howmany if howmany is not None else 10**9, thresholds=thresholds or (0.0,),
                                 pixels_in_spot=pixels_in_spot, mask=np.ones((NI, NJ), np.uint8))
    row, col = row.astype(np.uint16), col.astype(np.uint16)
    try:
        s = lima_segmenter.clean(len(row), row.copy(), col.copy(), val.copy(), opts)
    except ValueError:
        # ImageD11 2.1.3's clean fails making a sparse_frame of no pixels, when its top pixels
        # keep none (no pixel above the threshold chosen): that frame has none.
        if lima_segmenter.top_pixels(len(row), row, col, val.copy(), opts.howmany, opts.thresholds) != 0:
            raise
        s = None
    if s is None:
        return np.zeros(0, np.uint16), np.zeros(0, np.uint16), np.zeros(0, frame.dtype)
    return s.row, s.col, s.pixels["intensity"]


def output_group(f):
    """The group of our output holding nnz (wherever the layout puts it)."""
    found = []
    f.visititems(lambda name, obj: found.append(name) if isinstance(obj, h5py.Group) and "nnz" in obj else None)
    if len(found) != 1:
        raise SystemExit(f"FAIL: expected one group with nnz in the output, found {found}")
    return f[found[0]]


def main():
    rng = np.random.default_rng(13)
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for n_case, (tname, cut, kind) in enumerate(CASES):
            dtype = interop_env.pixel_types(np)[tname]
            frames = frames_for(dtype, kind, rng)
            scan = os.path.join(tmp, f"scan_{n_case}.h5")
            with h5py.File(scan, "w") as h:
                h.create_dataset("entry/data/data", data=frames, chunks=(1, NI, NJ), **hdf5plugin.Bitshuffle(nelems=0, cname="lz4"))
            dropped = 0  # by the segmenter's pixels_in_spot in this scan, over the settings
            for howmany, thresholds, k in OPTIONS:
                out = os.path.join(tmp, "out.h5")
                args = [TOOL, "sparse", "--overwrite", scan, "-o", out, "--cut", repr(cut), "--cpu", "--no-mask", "--quiet",
                        "--pixels-in-spot", str(k)]
                if howmany is not None:
                    args += ["--howmany", str(howmany), "--thresholds", ",".join(repr(t) for t in thresholds)]
                what = f"{tname} ({kind}) cut {cut} howmany {howmany} thresholds {thresholds} pixels_in_spot {k}"
                r = subprocess.run(args, capture_output=True, text=True)
                if r.returncode:
                    print(f"FAIL: {what}: bslz4 sparse exit {r.returncode}: {r.stderr.strip()}")
                    failures += 1
                    continue
                with h5py.File(out, "r") as f:
                    g = output_group(f)
                    nnz, row, col, val = g["nnz"][:], g["row"][:], g["col"][:], g["intensity"][:]
                at = 0
                for n, frame in enumerate(frames):
                    want = segmenter(frame, cut, howmany, thresholds, k)
                    dropped += len(segmenter(frame, cut, howmany, thresholds, 1)[0]) - len(want[0])
                    got = (row[at:at + nnz[n]], col[at:at + nnz[n]], val[at:at + nnz[n]])
                    at += nnz[n]
                    if len(got[0]) != len(want[0]) or not all(np.array_equal(a, b) for a, b in zip(got, want)):
                        print(f"FAIL: {what}, frame {n}: {len(got[0])} pixels, the segmenter {len(want[0])}")
                        failures += 1
                    checked += 1
                if at != len(row):
                    print(f"FAIL: {what}: nnz sums to {at}, the lists hold {len(row)}")
                    failures += 1
            if dropped == 0:
                print(f"FAIL: {tname} ({kind}) cut {cut}: the segmenter's pixels_in_spot dropped nothing: the case tests nothing")
                failures += 1
    if failures:
        raise SystemExit(f"{failures} failures")
    print(f"ok: {checked} frames of {len(CASES)} scans x {len(OPTIONS)} settings equal to ImageD11's segmenter")


main()
