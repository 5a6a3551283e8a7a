"""The installed wheel's GPU classes (tests/wheel/check_wheel.sh --gpu on a GPU host): on
synthetic Eiger frames of each GPU pixel type and both codecs, bslz4.cuda.chunk2sparse lists and
decompresses as bslz4.chunk2sparse does, and bslz4.cuda.chunk2sparseCSC gives the CPU class's
powders and top pixels, with a CSC matrix made by numpy (the fresh venv has no scipy). Skipped
without a usable GPU, failed instead when BSLZ4_WHEEL_REQUIRE_GPU=1."""
import importlib.util
import os
import pathlib
import sys

import numpy as np
import pytest

import bslz4

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))
from conftest import DTYPES, GPU_DTYPES  # noqa: E402
sys.path.insert(0, str(REPO / "tests" / "wheel"))
import test_installed_wheel as cpu_side  # noqa: E402  its sparse_scan runner

try:
    import bslz4.cuda as gpu
except ImportError as e:  # no GPU runtime in the wheel, or no driver or device here
    if os.environ.get("BSLZ4_WHEEL_REQUIRE_GPU") == "1":
        raise
    pytest.skip(str(e), allow_module_level=True)


def synthetic(n, type_name, codec, shape=(514, 1030)):
    ni, nj = shape
    ext = bslz4._bslz4
    frames = np.stack([np.frombuffer(ext.synthetic_eiger_frame(ni, nj, type_name, k, "dense"),
                                     DTYPES[type_name]).reshape(ni, nj) for k in range(n)])
    mask = np.frombuffer(ext.synthetic_eiger_mask(ni, nj), np.uint8).reshape(ni, nj)
    chunks = [ext.encode_chunk(f.tobytes(), f.dtype.itemsize, codec) for f in frames]
    return frames, mask, chunks


class CSCMatrix:
    """What chunk2sparseCSC reads of a scipy csc_matrix (bins x pixels): format, shape and the
    three arrays; `per_pixel` random bins a pixel, rows sorted in each column, repeats allowed."""
    format = "csc"

    def __init__(self, bins, npix, per_pixel=2, seed=1):
        rng = np.random.default_rng(seed)
        self.shape = (bins, npix)
        self.indices = np.sort(rng.integers(0, bins, (npix, per_pixel)), axis=1).reshape(-1).astype(np.int32)
        self.data = rng.random(npix * per_pixel).astype(np.float32)
        self.indptr = np.arange(0, npix * per_pixel + 1, per_pixel, dtype=np.int32)


def assert_same_lists(got, want, nframes):
    n_g, (v_g, i_g) = got[0], got[1]
    n_c, (v_c, i_c) = want[0], want[1]
    np.testing.assert_array_equal(n_g, n_c)
    for f in range(nframes):
        np.testing.assert_array_equal(i_g[f, : n_g[f]], i_c[f, : n_c[f]])
        np.testing.assert_array_equal(v_g[f, : n_g[f]].view(np.uint8), v_c[f, : n_c[f]].view(np.uint8))


def test_the_wheel_runs_on_this_gpu():
    print("device:", gpu.device_name(0), "of", gpu.device_count(), "; kernels:", gpu.built_architectures())
    assert gpu.backend == "driver" and gpu.device_count() >= 1


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
@pytest.mark.parametrize("type_name", GPU_DTYPES)
def test_gpu_lists_and_frames_equal_the_cpu_class(type_name, codec):
    frames, mask, chunks = synthetic(6, type_name, codec)
    dtype = DTYPES[type_name]
    cpu = bslz4.chunk2sparse(mask, dtype)
    g = gpu.chunk2sparse(mask, dtype)
    for cut in (0, 10, 100):
        assert_same_lists(g.multi(chunks, cut), cpu.multi(chunks, cut), len(chunks))
    base = b"".join(chunks)
    lengths = [len(c) for c in chunks]
    offsets = np.cumsum([0] + lengths[:-1])
    assert_same_lists(g.from_buffer(base, offsets, lengths, 10), cpu.from_buffer(base, offsets, lengths, 10),
                      len(chunks))
    n_g, (v_g, i_g) = g(chunks[2], 10)
    n_c, (v_c, i_c) = cpu(chunks[2], 10)
    assert int(n_g) == int(n_c)
    np.testing.assert_array_equal(np.asarray(i_g)[:n_c], i_c[:n_c])
    got, want = g.coo(chunks[4], 10), cpu.coo(chunks[4], 10)
    assert int(got[0]) == int(want[0])
    for a, b in zip(got[1:], want[1:]):  # row, col, values
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    dense = g.decompress(chunks)
    assert dense.shape == frames.shape and dense.dtype == dtype
    np.testing.assert_array_equal(dense.get().view(np.uint8), frames.view(np.uint8))


def test_gpu_powders_and_top_pixels_equal_the_cpu_class():
    frames, mask, chunks = synthetic(6, "u32", "lz4")
    matrix = CSCMatrix(300, mask.size)
    fixed = bslz4.fixed_point_matrix(matrix, mask, np.uint32)
    for csc, acc in ((matrix, "f64"), (fixed, None)):
        cpu = bslz4.chunk2sparseCSC(mask, csc, np.uint32, howmany=200, acc=acc)
        g = gpu.chunk2sparseCSC(mask, csc, np.uint32, howmany=200, acc=acc)
        n_c, (v_c, i_c), p_c = cpu.multi(chunks, 3)
        n_g, (v_g, i_g), p_g = g.multi(chunks, 3)
        np.testing.assert_array_equal(n_g, n_c)
        np.testing.assert_array_equal(g.last_cut, cpu.last_cut)
        np.testing.assert_array_equal(g.last_nabove, cpu.last_nabove)
        assert_same_lists((n_g, (v_g, i_g)), (n_c, (v_c, i_c)), len(chunks))
        if p_c.dtype == np.int64:
            np.testing.assert_array_equal(p_g, p_c)
        else:
            assert p_c.dtype == np.float64 and np.count_nonzero(p_c) > 0
            np.testing.assert_allclose(p_g, p_c, rtol=1e-13)
        np.testing.assert_allclose(g.integrate(chunks).get(), p_c, rtol=1e-13)


def test_sparse_scan_on_the_gpu_lists_what_the_cpu_lists(tmp_path):
    if importlib.util.find_spec("bslz4._scan") is None:
        pytest.skip("this wheel has no bslz4._scan (built without HDF5)")
    empty = tmp_path / "no-plugins"
    empty.mkdir()
    rc, summary, err = cpu_side.sparse_scan(tmp_path / "gpu.h5", empty, where="gpu")
    assert rc == 0, err[-3000:]
    assert "GPU" in summary["decoder"] or "gpu" in summary["decoder"], summary
    cpu_side.check_scan_output(tmp_path / "gpu.h5", summary)
