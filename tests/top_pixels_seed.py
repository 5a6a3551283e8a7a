#!/usr/bin/python3
"""Top pixels (howmany, thresholds) against the seed's own package, bslz4-to-sparse from PyPI,
whose CPU class is the definition: on chunks that hdf5plugin's bitshuffle wrote, for every pixel
type, frames built to have howmany - 1, howmany and howmany + 1 pixels above each threshold (and
none, and all), NaN and infinities in the float ones, the seed's lists, last_cut and last_nabove
are compared with our library's (through tests/top_pixels_probe) and the lists with what
`bslz4 sparse --howmany` writes. Runs under the venv that tools/bootstrap.sh makes
($BSLZ4_INTEROP_VENV); exits 77 (skipped) without h5py, hdf5plugin or bslz4_to_sparse.
"""
import math
import os
import subprocess
import sys
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    import bslz4_to_sparse
except ImportError as e:
    interop_env.skip(f"{e} (the seed's package: pip install --pre bslz4-to-sparse==0.0.22a2 into $BSLZ4_INTEROP_VENV)")

TOOL = os.environ["BSLZ4_TOOL"]
PROBE = os.environ["BSLZ4_TOP_PIXELS_PROBE"]
TYPES = interop_env.pixel_types(np)
NI, NJ = 24, 32
INF = float("inf")
HOWMANY = [None, 0, 1, 5, 50]
THRESHOLDS = [None, [], [3, 10, 100], [2.5, 10.5, 99.5], [-INF, 3, 10, INF], [5, 5, 20]]
CUTS = [0, 2]
# Pixel values above 3 only, above 10 too, above 100 too (all fit i8).
LEVELS = (5, 20, 120)


def frames_for(dtype, rng):
    """Frames with a, b, c pixels at the three LEVELS for a, b, c around each howmany, then a few
    random ones; background 0 to 2 (negative too for signed types), NaN and -inf in the float
    ones, some +inf among their top level."""
    counts = set()
    for h in (1, 5, 50):
        near = sorted({max(0, h - 1), h, h + 1, 0})
        counts.update((a, b, c) for a in near for b in near for c in near)
    out = []
    for a, b, c in sorted(counts) + [(None, None, None)] * 6:
        f = rng.integers(0, 3, NI * NJ).astype(np.float64)
        f[rng.random(NI * NJ) < 0.7] = 0
        if a is None:  # random: a detector-like spread
            f = np.floor(rng.exponential(6.0, NI * NJ))
            f[rng.random(NI * NJ) < 0.02] = 120
        else:
            at = rng.permutation(NI * NJ)[: a + b + c]
            f[at[:a]], f[at[a:a + b]], f[at[a + b:]] = LEVELS
        if np.dtype(dtype).kind == "i":
            f[rng.random(NI * NJ) < 0.05] = -7
        if np.dtype(dtype).kind == "f":
            f[(rng.random(NI * NJ) < 0.03) & (f < 3)] = np.nan
            f[(rng.random(NI * NJ) < 0.03) & (f < 3)] = -INF
            f[(rng.random(NI * NJ) < 0.3) & (f == 120)] = INF
        out.append(f.astype(dtype))
    return np.stack(out).reshape(-1, NI, NJ)


def write_scan(path, frames, use):
    with h5py.File(path, "w") as h:
        d = h.create_dataset("entry/data/data", data=frames, chunks=(1, NI, NJ),
                             **hdf5plugin.Bitshuffle(nelems=0, cname="lz4"))
        h["mask"] = (use == 0).astype(np.uint8)  # NeXus: nonzero = do not use
        return [bytes(d.id.read_direct_chunk((k, 0, 0))[1]) for k in range(len(frames))]


def probe(name, maskfile, cut, howmany, thresholds, chunkfiles):
    thr = "default" if thresholds is None else ",".join(repr(float(t)) for t in thresholds)
    hm = "none" if howmany is None else str(howmany)
    r = subprocess.run([PROBE, name, str(NI), str(NJ), maskfile, str(cut), hm, thr, *chunkfiles],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit(f"FAIL: top_pixels_probe {name}: {r.stderr.strip()}")
    lines = r.stdout.split("\n")
    frames = []
    for k in range(0, len(lines) - 1, 3):
        n, cut_used, nabove = lines[k].split()
        frames.append((int(n), float(cut_used), int(nabove), [int(x) for x in lines[k + 1].split()],
                       [float(x) if "f" in name else int(x) for x in lines[k + 2].split()]))
    return frames


def same_value(a, b):
    return a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))


def main():
    rng = np.random.default_rng(12)
    failures, compared, tool_compared = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        use = (rng.random((NI, NJ)) > 0.1).astype(np.uint8)
        maskfile = os.path.join(tmp, "mask.bin")
        use.tofile(maskfile)
        for name, dtype in TYPES.items():
            frames = frames_for(dtype, rng)
            scan = os.path.join(tmp, f"scan_{name}.h5")
            chunks = write_scan(scan, frames, use)
            chunkfiles = []
            for k, ch in enumerate(chunks):
                chunkfiles.append(os.path.join(tmp, f"{name}_{k}.chunk"))
                with open(chunkfiles[-1], "wb") as f:
                    f.write(ch)
            for cut in CUTS:
                for howmany in HOWMANY:
                    for thresholds in THRESHOLDS if howmany is not None else [None]:
                        seed = bslz4_to_sparse.chunk2sparse(use, dtype, howmany=howmany, thresholds=thresholds)
                        npx, (values, indices) = seed.multi(chunks, cut)
                        ours = probe(name, maskfile, cut, howmany, thresholds, chunkfiles)
                        what = f"{name} cut {cut} howmany {howmany} thresholds {thresholds}"
                        for k, (n, cut_used, nabove, idx, vals) in enumerate(ours):
                            want = (int(npx[k]), float(seed.last_cut[k]), int(seed.last_nabove[k]),
                                    indices[k][: npx[k]].tolist(), values[k][: npx[k]].tolist())
                            got = (n, cut_used, nabove, idx, vals)
                            if got[:4] != want[:4] or not all(map(same_value, got[4], want[4])):
                                failures.append(f"{what} frame {k}: ours (n, last_cut, last_nabove) {got[:3]}, "
                                                f"the seed's {want[:3]}; lists equal: {got[3:] == want[3:]}")
                            compared += 1
            # The command's lists, for a few settings.
            for howmany, thresholds in ((5, [3, 10, 100]), (50, None), (1, [])):
                out = os.path.join(tmp, f"out_{name}.h5")
                cmd = [TOOL, "sparse", "--overwrite", scan, "-o", out, "--cut", "2", "--mask", scan + ":/mask", "--cpu", "--quiet",
                       "--howmany", str(howmany)]
                if thresholds is not None:
                    cmd += ["--thresholds", ",".join(str(t) for t in thresholds)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    raise SystemExit(f"FAIL: {' '.join(cmd)}: {r.stderr.strip()}")
                seed = bslz4_to_sparse.chunk2sparse(use, dtype, howmany=howmany, thresholds=thresholds)
                npx, (values, indices) = seed.multi(chunks, 2)
                with h5py.File(out, "r") as h:
                    g = h["entry/data/data"]
                    nnz, row, col, val = g["nnz"][:], g["row"][:], g["col"][:], g["intensity"][:]
                flat = row.astype(np.int64) * NJ + col
                want_idx = np.concatenate([indices[k][: npx[k]] for k in range(len(chunks))])
                want_val = np.concatenate([values[k][: npx[k]] for k in range(len(chunks))])
                if not (np.array_equal(nnz, npx) and np.array_equal(flat, want_idx)
                        and np.array_equal(val, want_val, equal_nan=np.dtype(dtype).kind == "f")):
                    failures.append(f"bslz4 sparse {name} --howmany {howmany} --thresholds {thresholds}: "
                                    "lists differ from the seed's")
                tool_compared += 1
    for f in failures[:20]:
        print(f)
    from importlib.metadata import version
    print(f"{compared} frame results compared with bslz4-to-sparse {version('bslz4-to-sparse')} "
          f"through the probe, {tool_compared} bslz4 sparse runs; {len(failures)} differ")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
