"""scan_batches: a whole scan in batches, in frame order, equal to chunk2sparse frame by frame,
with the file's NeXus mask by default, and pyFAI's intensities with a matrix file; a mask of the
wrong shape is named as such."""
import warnings

import numpy as np
import pytest

import bslz4

h5py = pytest.importorskip("h5py")
hdf5plugin = pytest.importorskip("hdf5plugin")


def write_scan(path, frames, pixel_mask=None, where="/entry/data/data"):
    with h5py.File(path, "w") as f:
        f.create_dataset(where, data=frames, chunks=(1,) + frames.shape[1:], **hdf5plugin.Bitshuffle(cname="lz4"))
        if pixel_mask is not None:
            f["/entry/instrument/detector/pixel_mask"] = pixel_mask


def test_every_frame_in_order_equal_to_chunk2sparse_with_the_files_mask(tmp_path):
    rng = np.random.default_rng(3)
    frames = rng.poisson(1.5, (150, 37, 53)).astype(np.uint16)
    bad = np.zeros((37, 53), np.uint32)
    bad[:, 20] = 1
    write_scan(tmp_path / "s.h5", frames, bad)
    use = (bad == 0).astype(np.uint8)
    seen = 0
    for b in bslz4.scan_batches(str(tmp_path / "s.h5"), cut=2, batch=16, workers=3):
        assert b.first == seen
        assert b.powder is None and b.intensity is None
        for k, n in enumerate(b.npixels):
            f = frames[b.first + k].ravel()
            want = np.flatnonzero((f > 2) & (use.ravel() != 0))
            assert n == want.size
            assert np.array_equal(b.indices[k][:n], want)
            assert np.array_equal(b.values[k][:n], f[want])
        seen += len(b.npixels)
    assert seen == 150


def test_a_lima_file_and_a_matrix_file_give_pyfai_intensities(tmp_path):
    pyFAI = pytest.importorskip("pyFAI")
    pytest.importorskip("scipy")
    from pyFAI.integrator.azimuthal import AzimuthalIntegrator
    from bslz4 import matrix_file

    rng = np.random.default_rng(4)
    frames = rng.poisson(2, (20, 195, 487)).astype(np.uint16)
    write_scan(tmp_path / "lima.h5", frames, where="/entry_0000/ESRF-ID11/eiger/data")
    ai = AzimuthalIntegrator(dist=0.1, poni1=0.02, poni2=0.03, detector="Pilatus100k", wavelength=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = matrix_file.make(ai, (195, 487), 90, 12, unit="q_nm^-1")
    matrix_file.write(made, str(tmp_path / "m.h5"))
    got = list(bslz4.scan_batches(str(tmp_path / "lima.h5"), cut=0, matrix=str(tmp_path / "m.h5"), batch=8))
    assert [b.first for b in got] == [0, 8, 16]
    for b in got:
        assert b.powder.shape == (len(b.npixels), 12, 90)
        for k in range(len(b.npixels)):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = ai.integrate2d(frames[b.first + k], 90, 12, method=("bbox", "csr", "cython"), unit="q_nm^-1")
            assert np.array_equal(b.powder[k], ref.sum_signal)
            assert np.array_equal(b.intensity[k].astype(np.float32), ref.intensity)


def test_a_mask_of_the_wrong_shape_is_named(tmp_path):
    write_scan(tmp_path / "s.h5", np.zeros((2, 8, 9), np.uint16))
    with pytest.raises(ValueError, match=r"the mask has shape \(9, 8\) but the frames .* are \(8, 9\)"):
        next(bslz4.scan_batches(str(tmp_path / "s.h5"), cut=0, mask=np.ones((9, 8), np.uint8)))
    with pytest.raises(ValueError, match="give dataset="):
        with h5py.File(tmp_path / "none.h5", "w") as f:
            f["x"] = 1
        next(bslz4.scan_batches(str(tmp_path / "none.h5"), cut=0))
