"""The GPU classes' device arrays slice and index as CuPy's do (views of the same memory, never
copies: __cuda_array_interface__ and DLPack of a view give its own pointer, shape and strides,
get() copies what it spans), and their errors carry the seed's numbers as the CPU classes'
do. Skipped without a usable GPU."""
import gc

import numpy as np
import pytest

import bslz4

try:
    import bslz4.cuda as gpu
except ImportError as e:  # no GPU runtime in this build, or no driver or device here
    pytest.skip(str(e), allow_module_level=True)

SHAPE = (96, 128)  # 24 kB u16 frames: three 8 kB blocks
KEYS = [
    slice(2, 5), 1, -1, slice(None, None, -1), slice(4, 0, -2), (slice(None), slice(10, 20), slice(None, None, 3)),
    (Ellipsis, 5), (1, None, slice(3, 8)), (slice(1, 4), Ellipsis, slice(7, 9)), (2, 3, 4), (slice(3, 3),),
    (slice(None), -1, slice(None, None, -5)),
]


def frames_and_chunks(n=6, dtype=np.uint16):
    rng = np.random.default_rng(11)
    frames = rng.poisson(3, (n,) + SHAPE).astype(dtype)
    chunks = [bslz4._bslz4.encode_chunk(f.tobytes(), f.dtype.itemsize, "lz4") for f in frames]
    return frames, chunks


@pytest.fixture(scope="module")
def dense():
    frames, chunks = frames_and_chunks()
    g = gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16)
    return g.decompress(chunks), frames


def offset_of(view, base):
    return view.__array_interface__["data"][0] - base.__array_interface__["data"][0]


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_a_view_is_numpys_view_of_the_same_device_memory(dense, key):
    d, frames = dense
    host = np.stack(frames)
    as_view = key if isinstance(key, tuple) else (key,)
    if not any(k is Ellipsis for k in as_view):
        as_view += (Ellipsis,)  # numpy then gives a 0-d view, not a scalar, for integers alone
    want = host[as_view]
    v = d[key]
    assert isinstance(v, gpu.DeviceArray) and v.shape == want.shape and v.dtype == want.dtype
    np.testing.assert_array_equal(v.get(), want)
    if want.size:
        assert v.ptr == d.ptr + offset_of(want, host)
        cai = v.__cuda_array_interface__
        assert cai["data"][0] == v.ptr and cai["shape"] == want.shape
        assert cai["strides"] is None if want.flags.c_contiguous else cai["strides"] == want.strides
    out = np.empty(want.shape, want.dtype)
    assert v.get(out=out) is out
    np.testing.assert_array_equal(out, want)


def test_views_of_views_keep_the_memory_and_refuse_fancy_indices(dense):
    d, frames = dense
    host = np.stack(frames)
    np.testing.assert_array_equal(d[1:5][1][::2, 3].get(), host[2, ::2, 3])
    np.testing.assert_array_equal(d.reshape(-1)[10:20].get(), host.reshape(-1)[10:20])
    np.testing.assert_array_equal(d[0].T.get(), host[0].T)
    assert len(d) == 6 and [r.shape for r in d][0] == SHAPE
    _, chunks = frames_and_chunks()
    kept = gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16).decompress(chunks)[3, 5:9]
    gc.collect()
    np.testing.assert_array_equal(kept.get(), host[3, 5:9])
    for key in ([0, 1], np.array([True] * 6), 1.5):
        with pytest.raises(IndexError):
            d[key]
    with pytest.raises(IndexError):
        d[6]
    with pytest.raises(IndexError):
        d[0, 0, 0, 0]
    with pytest.raises(ValueError):
        d[:, ::2].reshape(-1)  # not contiguous: a reshape would copy


def test_cupy_takes_views_without_a_copy(dense):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    d, frames = dense
    host = np.stack(frames)
    for key in (slice(2, 5), 1, (slice(None), slice(10, 20), slice(None, None, 3)), (Ellipsis, 5)):
        v = d[key]
        by_cai = cupy.asarray(v)
        by_dlpack = cupy.from_dlpack(v)
        assert by_cai.data.ptr == v.ptr and by_dlpack.data.ptr == v.ptr
        np.testing.assert_array_equal(cupy.asnumpy(by_cai), host[key])
        np.testing.assert_array_equal(cupy.asnumpy(by_dlpack), host[key])
    row = cupy.from_dlpack(d[4])
    del v, by_cai, by_dlpack
    gc.collect()
    np.testing.assert_array_equal(cupy.asnumpy(row), host[4])


def test_torch_takes_views_without_a_copy():
    torch = pytest.importorskip("torch", reason="PyTorch is not installed")
    if not torch.cuda.is_available():
        pytest.skip("PyTorch sees no GPU")
    frames, chunks = frames_and_chunks(dtype=np.int32)  # a type every PyTorch takes
    d = gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.int32).decompress(chunks)
    host = np.stack(frames)
    for key in (slice(1, 3), 2, (slice(None), slice(None, None, 4), 7)):
        v = d[key]
        t = torch.from_dlpack(v)
        assert t.data_ptr() == v.ptr and tuple(t.shape) == v.shape
        assert tuple(t.stride()) == tuple(s // v.itemsize for s in v.strides)
        np.testing.assert_array_equal(t.cpu().numpy(), host[key])


def test_integrate_results_slice_too():
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    frames, chunks = frames_and_chunks(dtype=np.uint32)
    npix = SHAPE[0] * SHAPE[1]
    matrix = scipy_sparse.csc_matrix((np.ones(npix, np.float32), (np.arange(npix) % 50, np.arange(npix))),
                                     shape=(50, npix))
    g = gpu.chunk2sparseCSC(np.ones(SHAPE, np.uint8), matrix, np.uint32)
    p = g.integrate(chunks)
    whole = p.get()
    np.testing.assert_array_equal(p[1:3].get(), whole[1:3])
    np.testing.assert_array_equal(p[:, 7].get(), whole[:, 7])
    np.testing.assert_allclose(whole, np.stack([matrix @ f.reshape(-1).astype(np.float64) for f in frames]))


def test_gpu_errors_carry_the_seeds_numbers_and_name_the_chunk():
    frames, chunks = frames_and_chunks()
    g = gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16)
    with pytest.raises(bslz4.DecodeError) as e:
        g.multi([chunks[0], chunks[1][:-9], chunks[2]], 1)
    assert e.value.frame == 1 and e.value.seed_code == -107 and e.value.chunks == [1]
    assert str(e.value).startswith("Error decoding batch: -107: ") and "chunks [1]" in str(e.value)
    assert "corrupt" in str(e.value) and e.value.message.startswith("frame 1: ")
    with pytest.raises(bslz4.DecodeError) as e:
        g.decompress([chunks[0], chunks[3][:100]])
    assert e.value.seed_code == -107 and e.value.chunks == [1]
    small = gpu.chunk2sparse(np.ones((48, 128), np.uint8), np.uint16)
    with pytest.raises(bslz4.DecodeError) as e:
        small(chunks[0], 1)
    assert e.value.seed_code == -106 and str(e.value).startswith("Error decoding chunk: -106: ")
    with pytest.raises(ValueError) as e:
        g.multi([], 1)
    assert e.value.seed_code == -105


def test_the_seeds_gpu_errors_name_the_chunks_ours_name(seed_package):
    try:
        import bslz4_to_sparse.cuda as seed_gpu
    except Exception as e:  # noqa: BLE001 -- its GPU module needs CuPy or its fatbin
        pytest.skip("the seed's GPU module does not import: %s" % e)
    frames, chunks = frames_and_chunks()
    bad = [chunks[0], chunks[1][:-9], chunks[2]]
    with pytest.raises(Exception) as theirs:
        seed_gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16).multi(bad, 1)
    with pytest.raises(bslz4.DecodeError) as ours:
        gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16).multi(bad, 1)
    assert "Error decoding batch" in str(theirs.value) and "chunks [1]" in str(theirs.value)
    assert "corrupt" in str(theirs.value) and "corrupt" in str(ours.value) and "chunks [1]" in str(ours.value)
    seed_dense = seed_gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16).decompress(chunks)
    ours_dense = gpu.chunk2sparse(np.ones(SHAPE, np.uint8), np.uint16).decompress(chunks)
    seed_rows = seed_dense[2:5]
    host = np.empty(seed_rows.shape, seed_rows.dtype)
    seed_rows = seed_rows.get(out=host) if hasattr(seed_rows, "get") else np.asarray(seed_rows)
    np.testing.assert_array_equal(ours_dense[2:5].get(), seed_rows)
