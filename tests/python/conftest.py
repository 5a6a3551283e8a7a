"""Shared fixtures of the Python package's tests: the reference data (../shared/testdata, or
BSLZ4_TESTDATA), the seed package when installed, frames compressed by hdf5plugin."""
import os
import pathlib

import numpy as np
import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DTYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i8": np.int8, "i16": np.int16,
          "i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}
GPU_DTYPES = ("u8", "u16", "u32", "i8", "i16", "i32", "f32")


def testdata_dir():
    d = pathlib.Path(os.environ.get("BSLZ4_TESTDATA", REPO.parent / "shared" / "testdata"))
    return d if (d / "cases.tsv").is_file() else None


@pytest.fixture(scope="session")
def testdata():
    d = testdata_dir()
    if d is None:
        pytest.skip("no reference data: ../shared/testdata (or BSLZ4_TESTDATA) is not in this clone")
    return d


def read_cases(d):
    """(name, dtype name, ni, nj, chunk bytes, pixels or None) of every case of cases.tsv."""
    lines = (d / "cases.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    out = []
    for line in lines[1:]:
        row = dict(zip(head, line.split("\t")))
        chunk = (d / "chunks" / (row["name"] + ".bslz4")).read_bytes()
        raw = d / "chunks" / (row["name"] + ".raw")
        pixels = np.frombuffer(raw.read_bytes(), DTYPES[row["dtype"]]) if row["raw_file"] == "yes" else None
        out.append((row["name"], row["dtype"], int(row["ni"]), int(row["nj"]), chunk, pixels))
    return out


@pytest.fixture(scope="session")
def cases(testdata):
    return read_cases(testdata)


def expected_lists(pixels, mask, cut):
    """numpy's answer: flat indices and values of the pixels above cut where the mask is nonzero."""
    flat = pixels.reshape(-1)
    keep = np.flatnonzero((mask.reshape(-1) != 0) & (flat > cut))
    return keep.astype(np.uint32), flat[keep]


def hdf5plugin_chunks(frames, codec="lz4", tmp_path=None):
    """The raw chunks hdf5plugin's bitshuffle filter writes for frames (nframes, ni, nj)."""
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    hdf5plugin = pytest.importorskip("hdf5plugin", reason="hdf5plugin is not installed")
    path = tmp_path / ("frames_%s_%s.h5" % (frames.dtype.str.strip("<>|="), codec))
    with h5py.File(path, "w") as f:
        ds = f.create_dataset("data", data=frames, chunks=(1,) + frames.shape[1:],
                              **hdf5plugin.Bitshuffle(cname=codec))
        return [ds.id.read_direct_chunk((k, 0, 0))[1] for k in range(frames.shape[0])]


def random_frames(dtype, nframes, ni, nj, seed):
    """Frames of mostly small values, some large and (for signed and float types) negative."""
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    base = rng.poisson(0.6, (nframes, ni, nj)).astype(np.float64)
    spots = rng.random((nframes, ni, nj)) < 0.01
    base[spots] = rng.integers(5, 100, spots.sum())
    if dt.kind in "if":
        neg = rng.random((nframes, ni, nj)) < 0.05
        base[neg] = -rng.integers(1, 50, neg.sum())
    if dt.kind == "f":
        return (base + rng.random(base.shape) * 0.5).astype(dt)
    return base.astype(dt)


@pytest.fixture(scope="session")
def seed_package():
    return pytest.importorskip("bslz4_to_sparse", reason="the seed package bslz4-to-sparse is not installed")
