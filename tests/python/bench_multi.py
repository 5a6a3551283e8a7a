"""Python-side frames/s of multi, on the frames `bslz4 bench` decodes (tools/cli/cmd_bench.cpp, its
figure (c): synthetic Eiger 4M frames, module gaps masked, cut 10, `--frames` distinct frames
cycled through calls of 4 x group frames from ordinary memory), so that the two rates compare
and the difference is what the binding costs.

    python tests/python/bench_multi.py [--cpu] [--profile dense|sparse|very-sparse|all]
                                       [--type uint16|uint32] [--frames K] [--seconds S] [--cut C]"""
import argparse
import time

import numpy as np

import bslz4
from bslz4 import _bslz4


def stack(dtype, profile, frames):
    ni, nj = _bslz4.eiger4m_shape
    type_name = {"uint16": "u16", "uint32": "u32"}[dtype]
    chunks = [_bslz4.encode_chunk(_bslz4.synthetic_eiger_frame(ni, nj, type_name, k, profile), np.dtype(dtype).itemsize,
                                  "lz4") for k in range(frames)]
    mask = np.frombuffer(_bslz4.synthetic_eiger_mask(ni, nj), np.uint8).reshape(ni, nj)
    return chunks, mask


def measure(decoder, views, cut, seconds):
    """frames/s and pixels a frame of whole multi calls, repeated for `seconds` after one warm-up."""
    decoder.multi(views, cut)
    frames = pixels = 0
    t0 = time.perf_counter()
    while True:
        npixels, _ = decoder.multi(views, cut)[:2]
        frames += len(views)
        pixels += int(npixels.sum())
        elapsed = time.perf_counter() - t0
        if elapsed >= seconds:
            return frames / elapsed, pixels / frames


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cpu", action="store_true", help="the CPU class (default: the GPU's)")
    p.add_argument("--profile", default="dense", choices=["dense", "sparse", "very-sparse", "all"])
    p.add_argument("--type", default="uint16", choices=["uint16", "uint32"])
    p.add_argument("--frames", type=int, default=16, help="distinct frames, cycled (as bench --frames)")
    p.add_argument("--seconds", type=float, default=2.0)
    p.add_argument("--cut", type=float, default=10.0)
    a = p.parse_args()
    profiles = ["dense", "sparse", "very-sparse"] if a.profile == "all" else [a.profile]
    for profile in profiles:
        chunks, mask = stack(a.type, profile, a.frames)
        if a.cpu:
            decoder = bslz4.chunk2sparse(mask, a.type)
            nframes = 64 * max(1, _bslz4.usable_cpu_count() // 16)
            where = "cpu (%d threads)" % _bslz4.usable_cpu_count()
        else:
            from bslz4 import cuda

            decoder = cuda.chunk2sparse(mask, a.type)
            nframes = 4 * decoder.group  # as bench (c): several groups a call
            where = "gpu %s (batch %d, group %d)" % (cuda.device_name(decoder.device), decoder.batch, decoder.group)
        views = [chunks[f % len(chunks)] for f in range(nframes)]
        rate, pixels = measure(decoder, views, a.cut, a.seconds)
        print("python multi, %s, %s %s, calls of %d frames: %9.0f frames/s  (%.0f pixels/frame)"
              % (where, profile, a.type, nframes, rate, pixels))


if __name__ == "__main__":
    main()
