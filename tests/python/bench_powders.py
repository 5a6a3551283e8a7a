"""The GPU powders from Python, as issue 33 measures them: bslz4.cuda.chunk2sparseCSC's multi
(lists and powders to the host) and integrate (powders left on the GPU) against chunk2sparse's
multi (lists alone), with a 1D matrix of 2,000 radial bins and a 2D one of 1,500 x 72, whole
pixels of unit weight (pyFAI without splitting), on dense synthetic Eiger 4M u16 frames, cut 10.
Calls of 64 and 256 frames; multi's time beyond the slower of the two (lists alone, integrate)
is what returning the powders adds, given as the rate a copy of them that long would run at
("hidden" when there is none). numpy only (the matrices are CSR without scipy).

    python tests/python/bench_powders.py [--seconds S] [--frames K] [--acc f64|f32]"""
import argparse
import time

import numpy as np

from bslz4 import _bslz4


class Csr:
    """bins x pixels, each unmasked pixel in one bin with weight 1 (what normalise_matrix reads)."""
    format = "csr"

    def __init__(self, rows, keep, bins):
        pixels = rows.size
        order = np.argsort(np.where(keep, rows, bins), kind="stable")
        counts = np.bincount(rows[keep], minlength=bins)
        self.indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        self.indices = order[:int(counts.sum())].astype(np.int32)
        self.data = np.ones(self.indices.size, np.float32)
        self.shape = (bins, pixels)


def radial_matrix(mask, nrad, nazim):
    ni, nj = mask.shape
    y, x = np.mgrid[0:ni, 0:nj]
    r = np.hypot(y - ni / 2.0, x - nj / 2.0).ravel()
    rbin = np.minimum((r / (r.max() + 1e-9) * nrad).astype(np.int64), nrad - 1)
    rows = rbin
    if nazim > 1:
        a = (np.arctan2(y - ni / 2.0, x - nj / 2.0).ravel() + np.pi) / (2 * np.pi)
        rows = np.minimum((a * nazim).astype(np.int64), nazim - 1) * nrad + rbin
    return Csr(rows, mask.ravel() != 0, nrad * nazim)


def rate(call, seconds):
    call()
    n = 0
    t0 = time.perf_counter()
    while True:
        call()
        n += 1
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return n / elapsed


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--frames", type=int, default=16, help="distinct frames, cycled through the calls")
    p.add_argument("--acc", default="f64", choices=["f64", "f32"])
    a = p.parse_args()
    from bslz4 import cuda

    ni, nj = _bslz4.eiger4m_shape
    mask = np.frombuffer(_bslz4.synthetic_eiger_mask(ni, nj), np.uint8).reshape(ni, nj)
    chunks = [_bslz4.encode_chunk(_bslz4.synthetic_eiger_frame(ni, nj, "u16", k, "dense"), 2, "lz4")
              for k in range(a.frames)]
    cut = 10.0
    print("%s; dense Eiger 4M u16, cut %g, acc %s, %d distinct frames, %g s a figure" % (
        cuda.device_name(), cut, a.acc, a.frames, a.seconds))
    lists = cuda.chunk2sparse(mask, np.uint16)
    for name, nrad, nazim in (("1D 2,000", 2000, 1), ("2D 1,500 x 72", 1500, 72)):
        csc = radial_matrix(mask, nrad, nazim)
        gpu = cuda.chunk2sparseCSC(mask, csc, np.uint16, acc=a.acc)
        row_bytes = nrad * nazim * np.dtype(a.acc == "f64" and np.float64 or np.float32).itemsize
        figures = {}
        for frames in (64, 256):
            batch = [chunks[k % len(chunks)] for k in range(frames)]
            figures[("multi", frames)] = frames * rate(lambda: gpu.multi(batch, cut), a.seconds)
            figures[("integrate", frames)] = frames * rate(lambda: gpu.integrate(batch), a.seconds)
            figures[("lists", frames)] = frames * rate(lambda: lists.multi(batch, cut), a.seconds)
        for frames in (64, 256):
            m, i, l = (figures[(k, frames)] for k in ("multi", "integrate", "lists"))
            extra = 1 / m - 1 / min(l, i)  # s a frame the powders' return adds to the slower of the two
            back = row_bytes / extra / 1e9 if extra > 0 else float("inf")
            print("%-14s %3d frames a call: multi %7.0f, integrate %7.0f, lists alone %7.0f frames/s; "
                  "multi = %.2f x integrate; powders back %s (%.1f MB a call)" % (
                      name, frames, m, i, l, m / i, "%.1f GB/s" % back if back != float("inf") else "hidden",
                      frames * row_bytes / 1e6))
        print("%-14s multi of 64 frames = %.2f x the 256-frame call's rate" % (
            name, figures[("multi", 64)] / figures[("multi", 256)]))


if __name__ == "__main__":
    main()
