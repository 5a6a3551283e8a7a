"""The CPU path against the seed package (bslz4_to_sparse) on the same frames, in one run.

Both decoders list the same chunks (made by this project's encoder), and the lists are checked
to be identical (sha256 of the values and indices) before anything is timed. Rates are frames/s:
one thread (one object, one frame a call), and N threads (N Python threads, an object each, as
the seed's documentation says to use it; ours also through its own threads, one multi call of
4 N frames). Each figure is the median of --rounds rounds of --seconds each; the lists' rounds
alternate ours and the seed's, and their ratios are the medians of the rounds' ratios.

    python tools/bench/seed_side_by_side.py [--threads N] [--seconds S] [--rounds R] [--profiles P,...]
                                      [--powder]

Profiles (Eiger 4M, 2162 x 2068, module gaps masked, 8 distinct frames):
  dense        the bench's dense frames, u16, cut 10
  sparse       the bench's sparse frames, u16, cut 0
  sparse-u32   the bench's sparse frames, u32, cut 0
  mean-0.003   flat Poisson background of mean 0.003 with 60 spots, u16, cut 0
  real-u32     the seed's very sparse u32 shape: ratio about 95, 0.06 % of pixels kept, cut 0
  real-u16     the seed's photon-counting u16 shape: ratio about 36, 0.7 % kept, cut 0
  real-dense   the seed's dense fibre shape: ratio about 7.8, 2.6 % kept, cut 5
--powder adds chunk2sparseCSC with a 1D matrix of 2,000 bins and a 2D one of 1,500 x 72 bins
(radial bins of the distance from the beam centre, whole pixels of unit weight, as pyFAI without
pixel splitting), and the 1D one with each pixel split over the bins it covers (fractional
weights, about 2 a pixel, as pyFAI's bbox splitting), against the seed's CSC class.
"""
import argparse
import hashlib
import statistics
import threading
import time

import numpy as np

import bslz4
from bslz4 import _bslz4

NI, NJ = 2162, 2068
FRAMES = 8


def mask_array():
    return np.frombuffer(_bslz4.synthetic_eiger_mask(NI, NJ), np.uint8).reshape(NI, NJ).copy()


def spots(rng, frame, count, peak):
    """Gaussian spots of radius about 2 added at random places."""
    yy, xx = np.mgrid[-4:5, -4:5]
    for _ in range(count):
        i, j = rng.integers(5, NI - 5), rng.integers(5, NJ - 5)
        amp = rng.uniform(0.2, 1.0) * peak
        frame[i - 4:i + 5, j - 4:j + 5] += (amp * np.exp(-(xx ** 2 + yy ** 2) / 3.0)).astype(frame.dtype)


def flat_frames(dtype, mean, nspots, peak, seed):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(FRAMES):
        f = rng.poisson(mean, size=(NI, NJ)).astype(dtype)
        spots(rng, f, nspots, peak)
        out.append(f)
    return out


def ring_frames(dtype, background, ring_counts, seed):
    """A dense fibre-like pattern: background plus rings of given height."""
    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:NI, 0:NJ]
    r = np.hypot(y - NI / 2.0, x - NJ / 2.0)
    mean = background + sum(h * np.exp(-((r - r0) / 4.0) ** 2) for r0, h in ring_counts)
    return [rng.poisson(mean).astype(dtype) for _ in range(FRAMES)]


def synthetic(dtype, profile):
    name = {np.uint16: "u16", np.uint32: "u32"}[dtype]
    return [np.frombuffer(_bslz4.synthetic_eiger_frame(NI, NJ, name, k, profile), dtype).reshape(NI, NJ)
            for k in range(FRAMES)]


PROFILES = {
    "dense": (lambda: synthetic(np.uint16, "dense"), np.uint16, 10),
    "sparse": (lambda: synthetic(np.uint16, "sparse"), np.uint16, 0),
    "sparse-u32": (lambda: synthetic(np.uint32, "sparse"), np.uint32, 0),
    "mean-0.003": (lambda: flat_frames(np.uint16, 0.003, 60, 400, 3), np.uint16, 0),
    "real-u32": (lambda: flat_frames(np.uint32, 0.0004, 30, 3000, 4), np.uint32, 0),
    "real-u16": (lambda: flat_frames(np.uint16, 0.006, 300, 60, 5), np.uint16, 0),
    "real-dense": (lambda: ring_frames(np.uint16, 1.2, [(300, 6), (520, 9), (800, 5)], 6), np.uint16, 5),
}


def lists_digest(values, indices, n):
    h = hashlib.sha256()
    h.update(np.ascontiguousarray(values[:n]).tobytes())
    h.update(np.ascontiguousarray(indices[:n]).tobytes())
    return h.hexdigest()


def rate_one(decoder, chunks, cut, seconds):
    decoder(chunks[0], cut)
    k = 0
    t0 = time.perf_counter()
    while True:
        decoder(chunks[k % len(chunks)], cut)
        k += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return k / elapsed


def rate_threads(make, chunks, cut, seconds, threads):
    """N Python threads, an object each, each decoding one frame a call."""
    decoders = [make() for _ in range(threads)]
    counts = [0] * threads
    start = threading.Barrier(threads + 1)
    stop = threading.Event()

    def work(i):
        d = decoders[i]
        d(chunks[i % len(chunks)], cut)
        start.wait()
        k = i
        while not stop.is_set():
            d(chunks[k % len(chunks)], cut)
            k += 1
            counts[i] += 1

    ts = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def rate_multi(decoder, chunks, cut, seconds, threads):
    batch = [chunks[k % len(chunks)] for k in range(4 * threads)]
    decoder.multi(batch, cut)
    frames = 0
    t0 = time.perf_counter()
    while True:
        decoder.multi(batch, cut)
        frames += len(batch)
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return frames / elapsed


def median_of(rounds, f):
    return statistics.median(f() for _ in range(rounds))


def radial_csc(mask, nrad, nazim):
    """pixel -> bin (radial x azimuthal) sparse matrix, weight 1, masked pixels left out."""
    import scipy.sparse

    y, x = np.mgrid[0:NI, 0:NJ]
    r = np.hypot(y - NI / 2.0, x - NJ / 2.0).ravel()
    rbin = np.minimum((r / (r.max() + 1e-9) * nrad).astype(np.int64), nrad - 1)
    if nazim > 1:
        a = (np.arctan2(y - NI / 2.0, x - NJ / 2.0).ravel() + np.pi) / (2 * np.pi)
        abin = np.minimum((a * nazim).astype(np.int64), nazim - 1)
        rows = abin * nrad + rbin
    else:
        rows = rbin
    keep = mask.ravel() != 0
    cols = np.arange(NI * NJ)[keep]
    return scipy.sparse.csc_matrix((np.ones(cols.size, np.float32), (rows[keep], cols)),
                                   shape=(nrad * nazim, NI * NJ))


def radial_split_csc(mask, nrad):
    """pixel -> radial bins, each pixel split over the bins its radial extent (one pixel wide)
    covers, weights the fractions (pyFAI's bbox splitting, about 2 entries a pixel)."""
    import scipy.sparse

    y, x = np.mgrid[0:NI, 0:NJ]
    r = np.hypot(y - NI / 2.0, x - NJ / 2.0).ravel()
    scale = nrad / (r.max() + 1.0)
    b0, b1 = (r - 0.5) * scale, (r + 0.5) * scale
    keep = mask.ravel() != 0
    rows, cols, data = [], [], []
    for k in range(3):
        b = np.floor(b0).astype(np.int64) + k
        overlap = np.minimum(b1, b + 1) - np.maximum(b0, b)
        use = keep & (overlap > 0) & (b >= 0) & (b < nrad)
        rows.append(b[use])
        cols.append(np.flatnonzero(use))
        data.append((overlap[use] / (b1 - b0)[use]).astype(np.float32))
    return scipy.sparse.csc_matrix((np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
                                   shape=(nrad, NI * NJ))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=_bslz4.usable_cpu_count())
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--profiles", default=",".join(PROFILES))
    p.add_argument("--powder", action="store_true")
    a = p.parse_args()
    import bslz4_to_sparse as seed

    mask = mask_array()
    from importlib.metadata import version

    print("bslz4 %s (CPU path %s) against bslz4_to_sparse %s (%s); %d threads, median of %d rounds of %g s"
          % (bslz4.__version__, _bslz4.cpu_path(), version("bslz4-to-sparse"), seed.__file__, a.threads, a.rounds,
             a.seconds))
    print("%-11s %6s %8s | %8s %8s %8s | %8s %8s | %6s %6s" % ("profile", "ratio", "kept", "ours 1", "ours N",
                                                              "ours mN", "seed 1", "seed N", "x 1", "x N"))
    for name in a.profiles.split(","):
        make_frames, dtype, cut = PROFILES[name]
        frames = make_frames()
        chunks = [_bslz4.encode_chunk(np.ascontiguousarray(f), np.dtype(dtype).itemsize, "lz4") for f in frames]
        ratio = sum(f.nbytes for f in frames) / sum(len(c) for c in chunks)
        ours = bslz4.chunk2sparse(mask, dtype, threads=1)
        theirs = seed.chunk2sparse(mask, dtype)
        kept = []
        for c in chunks:
            n1, (v1, i1) = ours(c, cut)
            n2, (v2, i2) = theirs(c, cut)
            if n1 != n2 or lists_digest(v1, i1, n1) != lists_digest(v2, i2, n2):
                raise SystemExit("%s: the lists differ (%d and %d pixels)" % (name, n1, n2))
            kept.append(n1)
        multi = bslz4.chunk2sparse(mask, dtype, threads=a.threads)
        # Ours and the seed's in turn, round by round, so a drift of the host's clock or load
        # between them reaches both: the ratios are the medians of the rounds' ratios.
        rounds = []
        for _ in range(a.rounds):
            o1 = rate_one(ours, chunks, cut, a.seconds)
            s1 = rate_one(theirs, chunks, cut, a.seconds)
            on = rate_threads(lambda: bslz4.chunk2sparse(mask, dtype, threads=1), chunks, cut, a.seconds, a.threads)
            om = rate_multi(multi, chunks, cut, a.seconds, a.threads)
            sn = rate_threads(lambda: seed.chunk2sparse(mask, dtype), chunks, cut, a.seconds, a.threads)
            rounds.append((o1, on, om, s1, sn, o1 / s1, max(on, om) / sn))
        o1, on, om, s1, sn, x1, xn = (statistics.median(r[k] for r in rounds) for k in range(7))
        print("%-11s %6.1f %8d | %8.0f %8.0f %8.0f | %8.0f %8.0f | %6.2f %6.2f"
              % (name, ratio, int(np.mean(kept)), o1, on, om, s1, sn, x1, xn), flush=True)
        if a.powder:
            for nrad, nazim, split in ((2000, 1, False), (1500, 72, False), (2000, 1, True)):
                csc = radial_split_csc(mask, nrad) if split else radial_csc(mask, nrad, nazim)
                ours_p = bslz4.chunk2sparseCSC(mask, csc, dtype, threads=1)
                theirs_p = seed.chunk2sparseCSC(mask, csc, dtype)
                # The powders agree (f64 sums of f32 weights: bit for bit where the order of the
                # adds is the same, else within a few ulps).
                for c in chunks[:2]:
                    mine, seeds = np.asarray(ours_p(c, cut)[-1]), np.asarray(theirs_p(c, cut)[-1])
                    if not np.allclose(mine, seeds, rtol=1e-12, atol=0):
                        raise SystemExit("%s: the powders differ (%d x %d)" % (name, nrad, nazim))
                po = median_of(a.rounds, lambda: rate_one(ours_p, chunks, cut, a.seconds))
                ps = median_of(a.rounds, lambda: rate_one(theirs_p, chunks, cut, a.seconds))
                pn = median_of(a.rounds, lambda: rate_threads(
                    lambda: bslz4.chunk2sparseCSC(mask, csc, dtype, threads=1), chunks, cut, a.seconds, a.threads))
                psn = median_of(a.rounds, lambda: rate_threads(
                    lambda: seed.chunk2sparseCSC(mask, csc, dtype), chunks, cut, a.seconds, a.threads))
                print("  powder %4d x %-3d %-7s | %8.0f %8.0f %8s | %8.0f %8.0f | %6.2f %6.2f"
                      % (nrad, nazim, "split" if split else "whole", po, pn, "-", ps, psn, po / ps, pn / psn),
                      flush=True)


if __name__ == "__main__":
    main()
