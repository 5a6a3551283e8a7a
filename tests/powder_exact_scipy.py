#!/usr/bin/python3
"""Exact powders, against scipy, exact sums and the seed's package (bslz4-to-sparse from PyPI).

Our integrators run through tests/powder_probe (the CPU class, and the GPU class where the probe
was built with one and a GPU is present) on csc matrices kept as scipy keeps them:
  - a pyFAI-like split matrix with duplicate (bin, pixel) entries: acc f64 must equal scipy's
    csc.astype(float64) @ frame within 1e-9 relative (measured against |csc| @ |frame|, so that
    signed pixels are judged by the sum's own scale), and the exact sum of the float64 products
    within 1e-12;
  - unit weights (a histogram) of u32 pixels whose bin sum passes 2**53: acc f64 is the exact
    integer sum rounded once (what the seed's int64 histogram gives), where scipy rounds each add;
  - acc i64 for every integer pixel type: the fixed-point scale at least the seed's
    fixed_point_matrix's, and powder / scale within half a weight step of the exact sum.
With the seed installed its f64 and i64 powders are measured the same way, and its refusal of
negative cuts is pinned (its CPU classes refuse them at the call, "-100: the cut must not be
negative or NaN", for cut < 0 after flooring for integer pixels; -0.0 passes).
Runs under the venv that tools/bootstrap.sh makes ($BSLZ4_INTEROP_VENV) or any Python with numpy
and scipy (the GPU machine's); exits 77 (skipped) without them. Prints every number it checks.
"""
import math
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import interop_env

interop_env.enter_venv()
try:
    import numpy as np
    import scipy.sparse as ss
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs numpy and scipy)")
try:
    import bslz4_to_sparse as seed
except ImportError:
    seed = None

PROBE = os.environ["BSLZ4_POWDER_PROBE"]
TYPES = interop_env.pixel_types(np)
INTEGER_TYPES = ["u8", "u16", "u32", "i8", "i16", "i32"]
F64_TYPES = ["u8", "u16", "u32", "i16", "i32", "f32"]
failures = []
skipped = set()  # devices the probe has not here


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def split_matrix(ni, nj, bins, rng, duplicates=0.5):
    """pyFAI-like: each pixel's intensity split over 1 to 3 neighbouring bins of its radius, and
    with probability `duplicates` one of its entries split in two entries of the same bin (as
    matrices built by accumulating contributions can hold). Columns left as they come."""
    y, x = np.mgrid[0:ni, 0:nj]
    r = np.hypot(y - ni / 2, x - nj / 2).ravel()
    first = np.minimum((r / r.max() * (bins - 3)).astype(np.int64), bins - 3)
    data, indices, indptr = [], [], [0]
    for p in range(ni * nj):
        n = int(rng.integers(1, 4))
        w = rng.random(n) + 0.05
        w /= w.sum()
        entries = [(int(first[p]) + k, w[k]) for k in range(n)]
        if rng.random() < duplicates:
            b, v = entries.pop(int(rng.integers(0, n)))
            part = rng.random()
            entries += [(b, v * part), (b, v * (1 - part))]
        rng.shuffle(entries)
        for b, v in entries:
            indices.append(b)
            data.append(v)
        indptr.append(len(indices))
    return ss.csc_matrix((np.array(data, np.float32), np.array(indices, np.int32), np.array(indptr, np.int32)),
                         shape=(bins, ni * nj))


def random_frames(name, nframes, npix, rng):
    dt = np.dtype(TYPES[name])
    if dt.kind == "f":
        return (rng.random((nframes, npix)) * 1e4 - 100).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(int(info.min), int(info.max), (nframes, npix), endpoint=True, dtype=np.int64).astype(dt)


def exact_sums(csc, frames):
    """The exact sum of the float64 products of each bin, rounded once to float64: every float32
    weight times 2**149 is an integer, so integers carry the sums exactly."""
    csr = csc.tocsr()  # keeps duplicate entries as they are (no sum_duplicates)
    w = [int(v) for v in csr.data.astype(np.float64) * 2.0 ** 149]
    out = np.zeros((len(frames), csc.shape[0]))
    for f, frame in enumerate(frames):
        px = [int(v) if frame.dtype.kind != "f" else Fraction(float(v)) for v in frame]
        for b in range(csc.shape[0]):
            total = sum(w[k] * px[csr.indices[k]] for k in range(csr.indptr[b], csr.indptr[b + 1]))
            out[f, b] = float(Fraction(total) / 2 ** 149)
    return out


def scale_of(csc, frames):
    """|csc| @ |frame| per frame: the size a bin's rounding errors are measured against."""
    a = abs(csc.astype(np.float64))
    return np.stack([a @ np.abs(f.astype(np.float64)) for f in frames])


def rel_error(got, want, scale):
    with np.errstate(invalid="ignore", divide="ignore"):
        e = np.abs(np.asarray(got, np.float64) - want) / scale
    return float(np.nanmax(np.where(scale > 0, e, 0)))


def probe(tmp, csc, frames, name, ni, nj, acc, device):
    """(powders, scale) from powder_probe, or None where it has no GPU."""
    csc.data.astype(np.float32).tofile(os.path.join(tmp, "data.f32"))
    csc.indices.astype(np.int32).tofile(os.path.join(tmp, "indices.i32"))
    csc.indptr.astype(np.int32).tofile(os.path.join(tmp, "indptr.i32"))
    np.ascontiguousarray(frames).tofile(os.path.join(tmp, "frames.raw"))
    r = subprocess.run([PROBE, tmp, name, str(ni), str(nj), str(len(frames)), str(csc.shape[0]), acc, device],
                       capture_output=True, text=True)
    if r.returncode == 77:
        if device not in skipped:
            skipped.add(device)
            print(f"     {device}: skipped ({r.stdout.strip()})")
        return None
    if r.returncode:
        raise SystemExit(f"FAIL: powder_probe {name} {acc} {device}: {r.stderr.strip()}")
    scale = float(r.stdout.split()[1])
    dt = {"f64": np.float64, "f32": np.float32, "i64": np.int64}[acc]
    p = np.fromfile(os.path.join(tmp, f"powder_{acc}_{device}.bin"), dt).reshape(len(frames), csc.shape[0])
    return p, scale


def seed_powder(csc, frames, name, ni, nj, fixed=False):
    mask = np.ones((ni, nj), np.uint8)
    dt = TYPES[name]
    m = seed.fixed_point_matrix(csc, mask, dt) if fixed else csc
    c = seed.chunk2sparseCSC(mask, m, dt)
    p = c.from_frames(frames.reshape(-1, ni, nj), 0)[2].copy()
    return p, (m.scale if fixed else 1)


def f64_against_scipy(tmp, rng, devices):
    ni, nj, bins = 40, 64, 90
    csc = split_matrix(ni, nj, bins, rng)
    dup = csc.nnz - csc.copy().tocoo().tocsc().nnz  # tocoo().tocsc() sums duplicates
    print(f"split matrix: {bins} bins x {ni * nj} pixels, {csc.nnz} entries, {dup} of them duplicates")
    for name in F64_TYPES:
        frames = random_frames(name, 3, ni * nj, rng)
        want = np.stack([csc.astype(np.float64) @ f.astype(np.float64) for f in frames])
        exact = exact_sums(csc, frames)
        size = scale_of(csc, frames)
        for device in devices:
            got = probe(tmp, csc, frames, name, ni, nj, "f64", device)
            if got is None:
                continue
            e_scipy, e_exact = rel_error(got[0], want, size), rel_error(got[0], exact, size)
            check(e_scipy < 1e-9, f"f64 {name} {device}: ours vs scipy {e_scipy:.3g}, vs the exact sum {e_exact:.3g} "
                                  f"(relative; below 1e-9 wanted)")
            check(e_exact < 1e-12, f"f64 {name} {device}: ours within 1e-12 of the exact sum")
        if seed is not None:
            p, _ = seed_powder(csc, frames, name, ni, nj)
            print(f"     seed f64 {name}: vs scipy {rel_error(p, want, size):.3g}, vs the exact sum "
                  f"{rel_error(p, exact, size):.3g}")


def unit_weights_past_2_53(tmp, rng, devices):
    ni, nj = 2048, 1100  # bin 0 takes 15 of 16 pixels: 2,112,000 > 2**21 u32 pixels near 2**32
    npix = ni * nj
    p = np.arange(npix)
    csc = ss.csc_matrix((np.ones(npix, np.float32), (p % 16 == 0).astype(np.int32), np.arange(npix + 1, dtype=np.int32)),
                        shape=(2, npix))
    frames = rng.integers(2**32 - 2**20, 2**32, (2, npix), dtype=np.uint64).astype(np.uint32)
    exact = np.array([[int(f[p % 16 != 0].astype(np.uint64).sum()), int(f[p % 16 == 0].astype(np.uint64).sum())]
                      for f in frames])
    want = exact.astype(np.float64)  # each exact integer sum rounded once
    scipy_f64 = np.stack([csc.astype(np.float64) @ f.astype(np.float64) for f in frames])
    print(f"unit weights: bin 0 sums {exact[0, 0]} (2**53 = {2**53}); scipy is off by "
          f"{float(np.max(np.abs(scipy_f64 - want)))} ({float(np.max(np.abs(scipy_f64 - want) / want)):.3g} relative)")
    for device in devices:
        got = probe(tmp, csc, frames, "u32", ni, nj, "f64", device)
        if got is None:
            continue
        off = float(np.max(np.abs(got[0] - want)))
        check(off == 0, f"f64 u32 unit weights {device}: ours off the exact sum rounded once by {off} "
                        f"({off / float(want.max()):.3g} relative); scipy within 1e-9: "
                        f"{float(np.max(np.abs(got[0] - scipy_f64) / want)):.3g}")
        p, s = probe(tmp, csc, frames, "u32", ni, nj, "i64", device)
        check(all(int(p[f, b]) == int(exact[f, b]) * int(s) for f in range(2) for b in range(2)),
              f"i64 u32 unit weights {device}: ours the exact integer sums x the scale 2**{int(math.log2(s))}")
    if seed is not None:
        s, _ = seed_powder(csc, frames, "u32", ni, nj)
        print(f"     seed f64 u32 unit weights: off the exact sum rounded once by {float(np.max(np.abs(s - want)))}")


def fixed_point(tmp, rng, devices):
    ni, nj, bins = 40, 64, 90
    csc = split_matrix(ni, nj, bins, rng)
    for name in INTEGER_TYPES:
        frames = random_frames(name, 3, ni * nj, rng)
        exact = exact_sums(csc, frames)
        size = scale_of(csc, frames)
        absx = np.stack([abs(csc.astype(np.float64)).astype(bool).astype(np.float64) @ np.abs(f.astype(np.float64))
                         for f in frames])  # sum of |pixel| over each bin's entries
        seed_scale = None
        if seed is not None:
            sp, seed_scale = seed_powder(csc, frames, name, ni, nj, fixed=True)
            print(f"     seed i64 {name}: scale 2**{int(math.log2(seed_scale))}, powder / scale vs the exact sum "
                  f"{rel_error(sp / seed_scale, exact, size):.3g}")
        for device in devices:
            got = probe(tmp, csc, frames, name, ni, nj, "i64", device)
            if got is None:
                continue
            p, s = got
            e = rel_error(p / s, exact, size)
            # each weight is rounded to the nearest 1/s: a bin is off by at most half that per |pixel|
            bound = bool(np.all(np.abs(p / s - exact) <= 0.5 / s * absx * (1 + 1e-9) + 1e-300 + np.abs(exact) * 2**-52))
            check(bound, f"i64 {name} {device}: scale 2**{int(math.log2(s))}, powder / scale vs the exact sum {e:.3g}, "
                         f"within half a weight step")
            if seed_scale is not None:
                check(s >= seed_scale, f"i64 {name} {device}: our scale 2**{int(math.log2(s))} at least the seed's "
                                       f"2**{int(math.log2(seed_scale))}")


def seed_negative_cuts():
    """The seed's CPU classes refuse a negative cut at the call (after flooring, for integer
    pixels); -0.0 passes. Its GPU classes floor the cut and take it (read in cuda/_gpu.py: no GPU
    here to run them)."""
    ni, nj = 8, 16
    mask = np.ones((ni, nj), np.uint8)
    csc = ss.csc_matrix((np.ones(ni * nj, np.float32), np.zeros(ni * nj, np.int32), np.arange(ni * nj + 1, dtype=np.int32)),
                        shape=(1, ni * nj))
    for name in ["u16", "i16", "i32", "f32"]:
        frames = (np.arange(ni * nj) % 7 - 3).astype(TYPES[name]).reshape(1, ni, nj)
        for cls in ("chunk2sparse", "chunk2sparseCSC"):
            c = seed.chunk2sparse(mask, TYPES[name]) if cls == "chunk2sparse" else seed.chunk2sparseCSC(mask, csc, TYPES[name])
            for cut in (-3, -0.5, float("-inf")):
                try:
                    c.from_frames(frames, cut)
                    refused = ""
                except Exception as e:  # the seed raises a bare Exception here
                    refused = f"{type(e).__name__}: {e}"
                check("-100: the cut must not be negative or NaN" in refused,
                      f"seed {cls} {name} cut {cut} refused: {refused!r}")
            n = c.from_frames(frames, -0.0)[0][0]
            check(n == int((frames > 0).sum()), f"seed {cls} {name} cut -0.0 accepted ({n} pixels)")


def main():
    rng = np.random.default_rng(26)
    devices = ["cpu", "gpu"]
    with tempfile.TemporaryDirectory() as tmp:
        f64_against_scipy(tmp, rng, devices)
        unit_weights_past_2_53(tmp, rng, devices)
        fixed_point(tmp, rng, devices)
    if seed is not None:
        seed_negative_cuts()
    else:
        print("the seed's package is not installed: its powders, scales and cuts not compared")
    print(f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
