"""chunk2sparseCSC's powders: against scipy's csc @ frame for every pixel type and accumulator,
pyFAI's matrix of powder.h5 against its expected_powder (scipy matrices and pyFAI's own CSR and
CSC integrator engines), and fixed-point matrices' exact int64 sums."""
import numpy as np
import pytest

import bslz4
from conftest import DTYPES, expected_lists, hdf5plugin_chunks, random_frames

scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")


def random_matrix(bins, pixels, seed):
    rng = np.random.default_rng(seed)
    nnz = pixels * 2
    rows = rng.integers(0, bins, nnz)
    cols = rng.integers(0, pixels, nnz)
    data = rng.random(nnz).astype(np.float32)
    return scipy_sparse.csc_matrix((data, (rows, cols)), shape=(bins, pixels))


def folded_product(matrix, mask, frame):
    """csc @ frame with the masked pixels adding nothing, in float64 as pyFAI sums."""
    m = matrix.astype(np.float64) @ scipy_sparse.diags((mask.reshape(-1) != 0).astype(np.float64))
    return m @ frame.reshape(-1).astype(np.float64)


@pytest.mark.parametrize("type_name", sorted(DTYPES))
@pytest.mark.parametrize("layout", ["csc", "csr"])
def test_powders_equal_scipys_product(type_name, layout, tmp_path):
    dtype = DTYPES[type_name]
    frames = random_frames(dtype, 4, 30, 40, seed=5)
    chunks = hdf5plugin_chunks(frames, "lz4", tmp_path)
    mask = (np.random.default_rng(9).random((30, 40)) > 0.2).astype(np.uint8)
    matrix = random_matrix(50, 1200, seed=6)
    if layout == "csr":
        matrix = matrix.tocsr()
    for acc, rtol in (("f64", 1e-12), ("f32", 1e-5)):
        c = bslz4.chunk2sparseCSC(mask, matrix, dtype, acc=acc)
        npixels, (values, indices), powder = c.multi(chunks, 3)
        assert powder.shape == (4, 50) and powder.dtype == (np.float64 if acc == "f64" else np.float32)
        for f in range(4):
            want = folded_product(matrix, mask, frames[f])
            np.testing.assert_allclose(powder[f], want, rtol=rtol, atol=rtol * np.abs(want).max())
            np.testing.assert_array_equal(indices[f, : npixels[f]], expected_lists(frames[f], mask, 3)[0])


@pytest.mark.parametrize("type_name", ["u8", "u16", "u32", "i16", "i32"])
def test_fixed_point_powders_are_exact_integer_sums(type_name, tmp_path):
    dtype = DTYPES[type_name]
    frames = random_frames(dtype, 3, 30, 40, seed=8)
    chunks = hdf5plugin_chunks(frames, "lz4", tmp_path)
    mask = np.ones((30, 40), np.uint8)
    mask[3] = 0
    fixed = bslz4.fixed_point_matrix(random_matrix(20, 1200, seed=2), mask, dtype)
    c = bslz4.chunk2sparseCSC(mask, fixed, dtype)
    npixels, _, powder = c.multi(chunks, 0)
    assert powder.dtype == np.int64 and c.acc == "i64" and c.powder_scale == fixed.scale
    want = folded_product(random_matrix(20, 1200, seed=2), mask, frames[0])
    np.testing.assert_allclose(powder[0] / c.powder_scale, want, rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(mask, fixed, dtype, acc="f64")
    with pytest.raises(ValueError):
        bslz4.fixed_point_matrix(random_matrix(20, 1200, seed=2), mask, np.float32)


def test_bad_matrices_are_value_errors():
    mask = np.ones((30, 40), np.uint8)
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(mask, random_matrix(10, 1000, seed=1), np.uint16)  # 1000 pixels, mask 1200
    bad = random_matrix(10, 1200, seed=1)
    bad.indptr[5] = bad.indptr[4] - 1
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(mask, bad, np.uint16)
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(mask, random_matrix(10, 1200, seed=1), np.uint16, acc="i64")
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(mask, object(), np.uint16)


def powder_reference(testdata):
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    with h5py.File(testdata / "powder.h5", "r") as f:
        shape = tuple(int(x) for x in f["csc"].attrs["shape"])
        arrays = {g: tuple(f[g][k][()] for k in ("data", "indices", "indptr")) for g in ("csc", "csr")}
        expected = f["expected_powder"][()]
    with h5py.File(testdata / "eiger_like.h5", "r") as f:
        ds = f["entry/data/data"]
        chunks = [ds.id.read_direct_chunk((k, 0, 0))[1] for k in range(ds.shape[0])]
        use = f["entry/instrument/detector/pixel_mask"][()] == 0  # NeXus: nonzero = do not use
    return shape, arrays, expected, chunks, use.astype(np.uint8)


def test_pyfai_matrices_of_powder_h5_give_its_expected_powder(testdata):
    shape, arrays, expected, chunks, mask = powder_reference(testdata)
    matrices = [scipy_sparse.csc_matrix(arrays["csc"], shape=shape), scipy_sparse.csr_matrix(arrays["csr"], shape=shape)]
    try:
        from pyFAI.engines.CSC_engine import CSCIntegrator
        from pyFAI.engines.CSR_engine import CSRIntegrator

        matrices += [CSRIntegrator(shape[1], lut=arrays["csr"]), CSCIntegrator(shape[1], shape[0], lut=arrays["csc"])]
    except ImportError:
        pass  # scipy's forms still run; pyFAI's engines need pyFAI
    for matrix in matrices:
        c = bslz4.chunk2sparseCSC(mask, matrix, np.uint32)
        npixels, _, powder = c.multi(chunks, 0)
        np.testing.assert_allclose(powder, expected, rtol=1e-12, err_msg=type(matrix).__name__)
        n, _, one = c(chunks[3], 0)
        np.testing.assert_allclose(one, expected[3], rtol=1e-12)
    if len(matrices) == 2:
        pytest.skip("pyFAI is not installed: its CSR/CSC integrator engines were not tried")
