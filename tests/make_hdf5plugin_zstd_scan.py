"""Writes tests/data/hdf5plugin_zstd_scan.h5: a small scan compressed by PyPI's hdf5plugin
(Bitshuffle with cname='zstd', as users' tools write it), for the GPU test that runs
`bslz4 sparse` on it on the GPU and the CPU. Run once under the interop venv (tools/bootstrap.sh
makes it); the file is committed, since the GPU machine has no PyPI."""
import sys

import h5py
import hdf5plugin
import numpy as np

path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/hdf5plugin_zstd_scan.h5"
rng = np.random.default_rng(2026)
frames, ni, nj = 12, 257, 300
data = rng.poisson(0.4, size=(frames, ni, nj)).astype(np.uint16)
for f in range(frames):  # a few Bragg-like spots, some saturated
    for _ in range(40):
        i, j = rng.integers(2, ni - 2), rng.integers(2, nj - 2)
        data[f, i - 1:i + 2, j - 1:j + 2] += rng.integers(5, 3000, dtype=np.uint16)
    data[f, rng.integers(0, ni), rng.integers(0, nj)] = 65535
mask = np.zeros((ni, nj), np.uint32)
mask[:, 140:143] = 1  # a module gap
with h5py.File(path, "w") as h:
    h.create_dataset("/entry/data/data", data=data, chunks=(1, ni, nj), **hdf5plugin.Bitshuffle(cname="zstd", clevel=3))
    h.create_dataset("/entry/instrument/detector/pixel_mask", data=mask)
    h.attrs["writer"] = f"h5py {h5py.version.version}, hdf5plugin {hdf5plugin.version} Bitshuffle(cname='zstd', clevel=3)"
print(path, frames, "frames")
