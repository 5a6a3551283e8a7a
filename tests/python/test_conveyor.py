"""bslz4.conveyor, the seed's file pipeline over our classes, against the seed's own
(bslz4_to_sparse.conveyor) on the same files: the sidecar index (either reads the other's),
the work units, run (threads and processes) and iterate with the CPU and decompress backends,
the ImageD11 sparse files it writes, the integrator files and ring matrices."""
import os

import numpy as np
import pytest

import bslz4
from bslz4 import conveyor
from conftest import random_frames

h5py = pytest.importorskip("h5py", reason="h5py is not installed")
hdf5plugin = pytest.importorskip("hdf5plugin", reason="hdf5plugin is not installed")
DSET = "entry/data/data"


@pytest.fixture(scope="module")
def seed_conveyor():
    try:
        from bslz4_to_sparse import conveyor as theirs
    except ImportError as e:
        pytest.skip("the seed's conveyor does not import: %s" % e)
    return theirs


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Two scan files of 12 and 7 frames (40 x 36 u16), and the mask."""
    d = tmp_path_factory.mktemp("conveyor")
    paths = []
    for k, n in enumerate((12, 7)):
        frames = random_frames(np.uint16, n, 40, 36, seed=20 + k)
        path = str(d / ("scan%d.h5" % k))
        with h5py.File(path, "w") as f:
            f.create_dataset(DSET, data=frames, chunks=(1, 40, 36), **hdf5plugin.Bitshuffle(cname="lz4"))
        paths.append(path)
    mask = np.ones((40, 36), np.uint8)
    mask[10:14, :] = 0
    return paths, mask


def batches(results):
    """{(file, frame): (npx, values, indices, powder row)} of iterate's tuples."""
    out = {}
    for file, frame0, npx, values, indices, powder in results:
        for k in range(len(npx)):
            n = int(npx[k])
            out[(file, frame0 + k)] = (n, values[k, :n].copy() if indices is not None else values[k].copy(),
                                       None if indices is None else indices[k, :n].copy(),
                                       None if powder is None else powder[k].copy())
    return out


def test_each_reads_the_others_sidecar_index(files, seed_conveyor, tmp_path):
    paths, _ = files
    ours = conveyor.harvest(paths[0], DSET)
    theirs = seed_conveyor.harvest(paths[0], DSET)
    assert ours.meta == theirs.meta
    np.testing.assert_array_equal(ours.offsets, theirs.offsets)
    np.testing.assert_array_equal(ours.lengths, theirs.lengths)
    conveyor.write_index(ours, paths[0], index_dir=str(tmp_path / "ours"))
    seed_conveyor.write_index(theirs, paths[0], index_dir=str(tmp_path / "theirs"))
    read_theirs = conveyor.read_index(paths[0], index_dir=str(tmp_path / "theirs"))
    read_ours = seed_conveyor.read_index(paths[0], index_dir=str(tmp_path / "ours"))
    for a in (read_theirs, read_ours):
        assert a.meta == ours.meta and a.shape == (12, 40, 36) and a.dtype == np.uint16
        np.testing.assert_array_equal(a.offsets, ours.offsets)
    with open(conveyor.sidecar_path(paths[0], str(tmp_path / "ours")), "rb") as f1, \
            open(seed_conveyor.sidecar_path(paths[0], str(tmp_path / "theirs")), "rb") as f2:
        assert f1.read() == f2.read()


def test_a_stale_index_is_refused(files, tmp_path):
    paths, _ = files
    copy = str(tmp_path / "copy.h5")
    with open(paths[1], "rb") as f, open(copy, "wb") as g:
        g.write(f.read())
    conveyor.write_index(conveyor.harvest(copy, DSET), copy)
    with open(copy, "ab") as g:
        g.write(b"more")
    with pytest.raises(conveyor.StaleIndex):
        conveyor.read_index(copy)
    with pytest.raises(FileNotFoundError):
        conveyor.make_work_units([str(tmp_path / "none.h5")], DSET)


def test_work_units_are_the_seeds(files, seed_conveyor):
    paths, _ = files
    for limit in (256 << 20, 3000):
        ours, shape, dtype = conveyor.make_work_units(paths, DSET, max_unit_bytes=limit, harvest=True)
        theirs, t_shape, t_dtype = seed_conveyor.make_work_units(paths, DSET, max_unit_bytes=limit, harvest=True)
        assert (shape, dtype) == (t_shape, t_dtype) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            for name in ("file", "path", "frame0", "n", "nfile", "start", "span"):
                assert getattr(a, name) == getattr(b, name), name
            np.testing.assert_array_equal(a.offsets, b.offsets)
            np.testing.assert_array_equal(a.lengths, b.lengths)
    assert len(ours) > 2  # the small limit cut the files


@pytest.mark.parametrize("mode", ["threads", "processes"])
def test_run_counts_the_seeds_frames_and_pixels(files, seed_conveyor, mode):
    paths, mask = files
    units, _, dtype = conveyor.make_work_units(paths, DSET, max_unit_bytes=5000, harvest=True)
    ours = conveyor.run(units, conveyor.CpuBackend(mask, dtype, cut=1), workers=2, mode=mode, batch=4)
    theirs = seed_conveyor.run(units, seed_conveyor.CpuBackend(mask, dtype, cut=1), workers=2, mode=mode, batch=4)
    assert ours["frames"] == theirs["frames"] == 19
    assert set(ours) == set(theirs) and set(ours["busy_frac"]) == set(theirs["busy_frac"])
    assert ours["in_bytes"] == theirs["in_bytes"] and ours["out_bytes"] == theirs["out_bytes"]
    assert "frames/s" in conveyor.report(ours)


def test_iterate_gives_the_seeds_lists_and_dense_frames(files, seed_conveyor):
    paths, mask = files
    units, shape, dtype = conveyor.make_work_units(paths, DSET, max_unit_bytes=4000, harvest=True)
    for make in (lambda c: c.CpuBackend(mask, dtype, cut=2, howmany=30),
                 lambda c: c.DecompressBackend(dtype, shape, batch=4),
                 lambda c: c.DecompressBackend(dtype, shape, unshuffle=False, batch=4)):
        ours = batches(conveyor.iterate(units, make(conveyor), workers=2, batch=4))
        theirs = batches(seed_conveyor.iterate(units, make(seed_conveyor), workers=2, batch=4))
        assert sorted(ours) == sorted(theirs) and len(ours) == 19
        for key, (n, v, i, _) in ours.items():
            tn, tv, ti, _ = theirs[key]
            assert n == tn
            np.testing.assert_array_equal(v, tv)
            if i is not None:
                np.testing.assert_array_equal(i, ti)


def test_float_powders_through_the_conveyor_are_the_seeds(files, seed_conveyor):
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    paths, mask = files
    npix = mask.size
    rng = np.random.default_rng(7)
    csc = scipy_sparse.csc_matrix((rng.random(npix).astype(np.float32), (np.arange(npix) % 17, np.arange(npix))),
                                  shape=(17, npix))
    units, _, dtype = conveyor.make_work_units(paths, DSET, harvest=True)
    ours = batches(conveyor.iterate(units, conveyor.CpuBackend(mask, dtype, csc=csc, cut=1, exact=False), workers=1))
    theirs = batches(seed_conveyor.iterate(units, seed_conveyor.CpuBackend(mask, dtype, csc=csc, cut=1, exact=False),
                                           workers=1))
    for key in ours:
        np.testing.assert_allclose(ours[key][3], theirs[key][3], rtol=1e-12)
    exact = batches(conveyor.iterate(units, conveyor.CpuBackend(mask, dtype, csc=csc, cut=1), workers=1))
    assert all(v[3].dtype == np.int64 for v in exact.values())  # fixed-point sums for u16 by default


def test_imaged11_sparse_files_are_the_seeds(files, seed_conveyor, tmp_path):
    paths, mask = files
    units, _, dtype = conveyor.make_work_units(paths, DSET, harvest=True)
    ours = conveyor.run(units, conveyor.CpuBackend(mask, dtype, cut=3), workers=2,
                        sink=lambda k: conveyor.ImageD11SparseSink(str(tmp_path / "ours"), DSET, compression=None))
    seed_conveyor.run(units, seed_conveyor.CpuBackend(mask, dtype, cut=3), workers=2,
                      sink=lambda k: seed_conveyor.ImageD11SparseSink(str(tmp_path / "theirs"), DSET,
                                                                      compression=None))
    assert ours["frames"] == 19
    for p in paths:
        name = conveyor.imaged11_name(p)
        assert name == seed_conveyor.imaged11_name(p)
        with h5py.File(tmp_path / "ours" / name, "r") as a, h5py.File(tmp_path / "theirs" / name, "r") as b:
            ga, gb = a[DSET], b[DSET]
            assert dict(ga.attrs) == dict(gb.attrs)
            for d in ("row", "col", "intensity", "nnz"):
                np.testing.assert_array_equal(ga[d][()], gb[d][()])
                assert ga[d].dtype == gb[d].dtype


def test_integrator_files_and_ring_matrices_are_the_seeds(seed_conveyor, tmp_path):
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    nrad, naz, npix = 6, 4, 8 * 9
    rng = np.random.default_rng(3)
    rows = rng.integers(0, nrad * naz, 3 * npix)
    csc = scipy_sparse.csc_matrix((rng.random(3 * npix).astype(np.float32), (rows, np.repeat(np.arange(npix), 3))),
                                  shape=(nrad * naz, npix))
    norm = rng.random(nrad * naz) + 0.5
    args = (csc, norm, (8, 9), "q_nm^-1")
    kw = dict(radial=np.arange(nrad) + 0.5, azimuthal=np.arange(naz) * 90.0, kind="powder2d", poni="poni text")
    ours, theirs = conveyor.Integrator(*args, **kw), seed_conveyor.Integrator(*args, **kw)
    assert ours.bins_shape == theirs.bins_shape
    powder = rng.random((2, nrad * naz))
    np.testing.assert_array_equal(ours.intensity(powder), theirs.intensity(powder))
    ranges, ring, role = conveyor.peak_windows([2.0, 4.0], 1.0)
    t_ranges, t_ring, t_role = seed_conveyor.peak_windows([2.0, 4.0], 1.0)
    np.testing.assert_array_equal(ranges, t_ranges)
    r_ours, r_theirs = ours.rings(ranges, background=np.ones(nrad)), theirs.rings(ranges, background=np.ones(nrad))
    assert abs(r_ours.csc - r_theirs.csc).max() == 0
    np.testing.assert_array_equal(r_ours.offset, r_theirs.offset)
    ours.save(str(tmp_path / "i.h5"), compression=False)
    back = seed_conveyor.Integrator.load(str(tmp_path / "i.h5"))
    assert back.kind == "powder2d" and back.poni == "poni text" and abs(back.csc - csc).max() == 0
    stack = conveyor.IntegratorStack({"cake": ours, "rings": r_ours})
    split = stack.split(np.ones((1, stack.nbins)))
    assert set(split) == {"cake", "rings"} and split["rings"].shape == (1, r_ours.nbins)


def test_clip_exact_powder_removes_each_pixels_excess(files):
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    _, mask = files
    npix = mask.size
    csc = scipy_sparse.csc_matrix((np.ones(npix, np.float32), (np.arange(npix) % 5, np.arange(npix))), shape=(5, npix))
    weights, scale = conveyor.fixed_weights(csc, mask, np.uint16)
    frames = random_frames(np.uint16, 2, 40, 36, seed=4)
    c = bslz4.chunk2sparseCSC(mask, bslz4.fixed_point_matrix(csc, mask, np.uint16), np.uint16)
    npx, (values, indices), powder = c.from_frames(frames, 0)
    clipped = conveyor.clip_exact_powder(powder, npx, values, indices, 20, weights)
    for f in range(2):
        expect = weights @ np.minimum(frames[f].reshape(-1).astype(np.int64), 20)
        np.testing.assert_array_equal(clipped[f], expect)
    assert scale == c.powder_scale
    assert os.path.basename(conveyor.rings_name("/a/b.h5")) == "a_b_rings.h5"
