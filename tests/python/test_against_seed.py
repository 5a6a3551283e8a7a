"""Our classes against the seed's own package (bslz4-to-sparse from PyPI: 0.0.22a2, and 0.0.16
when its folder comes first on PYTHONPATH, as tools/bootstrap.sh runs this file a second time):
npixels, values and indices on every reference case it decodes and on the reference scan, top
pixels, and powders against its chunk2sparseCSC. The seed floors a fractional cut for integer
pixels and refuses negative ones, so the cuts here are whole and >= 0."""
import numpy as np
import pytest

import bslz4
from conftest import DTYPES


def seed_version(seed):
    return tuple(int(x) for x in seed.version.split("a")[0].split(".")[:3])


def seed_types(seed):
    return ("u8", "u16", "u32") if seed_version(seed) < (0, 0, 20) else tuple(DTYPES)


def seed_lists(seed, mask, dtype, chunk, cut):
    """The seed's (npixels, values, indices), or None when it refuses the chunk."""
    c = seed.chunk2sparse(mask, np.dtype(dtype))
    try:
        npixels, (values, indices) = c(chunk, cut)
    except Exception:
        return None
    if npixels < 0:  # 0.0.16 returns a negative code
        return None
    return int(npixels), values[:npixels].copy(), indices[:npixels].copy()


def test_lists_equal_the_seeds_on_every_reference_case_it_decodes(seed_package, cases):
    compared = 0
    for name, type_name, ni, nj, chunk, _ in cases:
        if type_name not in seed_types(seed_package):
            continue
        dtype = DTYPES[type_name]
        mask = np.ones((ni, nj), np.uint8)
        mask.reshape(-1)[1::5] = 0
        ours = bslz4.chunk2sparse(mask, dtype)
        for cut in (0, 2):
            theirs = seed_lists(seed_package, mask, dtype, chunk, cut)
            if theirs is None:
                continue
            n, (values, indices) = ours(chunk, cut)
            assert n == theirs[0], (name, cut)
            np.testing.assert_array_equal(indices[:n], theirs[2], err_msg=name)
            np.testing.assert_array_equal(values[:n].view(np.uint8), theirs[1].view(np.uint8), err_msg=name)
            compared += 1
    assert compared > 50, "the seed decoded only %d cases" % compared


def reference_scan(testdata):
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    with h5py.File(testdata / "eiger_like.h5", "r") as f:
        ds = f["entry/data/data"]
        chunks = [ds.id.read_direct_chunk((k, 0, 0))[1] for k in range(ds.shape[0])]
        use = (f["entry/instrument/detector/pixel_mask"][()] == 0).astype(np.uint8)
        return chunks, use, ds.dtype


def test_the_reference_scan_lists_as_the_seed_does(seed_package, testdata):
    chunks, mask, dtype = reference_scan(testdata)
    ours = bslz4.chunk2sparse(mask, dtype)
    for cut in (0, 1, 10, 1000):
        npixels, (values, indices) = ours.multi(chunks, cut)
        for f, chunk in enumerate(chunks):
            theirs = seed_lists(seed_package, mask, dtype, chunk, cut)
            assert theirs is not None
            assert npixels[f] == theirs[0]
            np.testing.assert_array_equal(indices[f, : npixels[f]], theirs[2])
            np.testing.assert_array_equal(values[f, : npixels[f]], theirs[1])


@pytest.mark.parametrize("howmany,thresholds", [(100, None), (2000, None), (500, [1, 3, 9, 27]), (50, [])])
def test_top_pixels_equal_the_seeds(seed_package, testdata, howmany, thresholds):
    if seed_version(seed_package) < (0, 0, 20):
        pytest.skip("bslz4_to_sparse %s has no top pixels" % seed_package.version)
    chunks, mask, dtype = reference_scan(testdata)
    ours = bslz4.chunk2sparse(mask, dtype, howmany=howmany, thresholds=thresholds)
    theirs = seed_package.chunk2sparse(mask, dtype, howmany=howmany, thresholds=thresholds)
    for cut in (0, 2):
        npixels, (values, indices) = ours.multi(chunks, cut)
        t_npixels, (t_values, t_indices) = theirs.multi(chunks, cut)
        np.testing.assert_array_equal(npixels, t_npixels)
        np.testing.assert_array_equal(ours.last_cut, theirs.last_cut)
        np.testing.assert_array_equal(ours.last_nabove, theirs.last_nabove)
        for f in range(len(chunks)):
            np.testing.assert_array_equal(indices[f, : npixels[f]], t_indices[f, : npixels[f]])
            np.testing.assert_array_equal(values[f, : npixels[f]], t_values[f, : npixels[f]])


def test_powders_equal_the_seeds_chunk2sparsecsc(seed_package, testdata):
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    chunks, mask, dtype = reference_scan(testdata)
    with h5py.File(testdata / "powder.h5", "r") as f:
        shape = tuple(int(x) for x in f["csc"].attrs["shape"])
        csc = scipy_sparse.csc_matrix(tuple(f["csc"][k][()] for k in ("data", "indices", "indptr")), shape=shape)
    old_seed = seed_version(seed_package) < (0, 0, 20)
    if old_seed:
        mask = np.ones_like(mask)  # 0.0.16 does not fold its mask into the matrix
    ours = bslz4.chunk2sparseCSC(mask, csc, dtype)
    theirs = seed_package.chunk2sparseCSC(mask, csc, np.dtype(dtype))
    for f, chunk in enumerate(chunks):
        n, (values, indices), powder = ours(chunk, 5)
        tn, (tv, ti), tpowder = theirs(chunk, 5)
        np.testing.assert_allclose(powder, tpowder, rtol=1e-10)
        if old_seed and np.dtype(dtype) == np.uint32:
            continue  # 0.0.16's uint32 chunk2sparseCSC returns a float for npixels (its defect), not the count
        assert n == tn
        np.testing.assert_array_equal(indices[:n], ti[:n])
        coo = ours.coo(chunk, 5)
        tcoo = theirs.coo(chunk, 5)
        for a, b in zip(coo[1:4], tcoo[1:4]):
            np.testing.assert_array_equal(a, b)
