"""The GPU classes (skipped without a usable GPU): the same lists and powders as the CPU class,
device arrays that CuPy, PyTorch and JAX take without a copy, chunks read from a CuPy array,
and (where its GPU module imports) the seed's own GPU classes."""
import numpy as np
import pytest

import bslz4
from conftest import GPU_DTYPES, DTYPES, expected_lists, random_frames

try:
    import bslz4.cuda as gpu
except ImportError as e:  # no GPU runtime in this build, or no driver or device here
    pytest.skip(str(e), allow_module_level=True)


def encoded(frames):
    return [bslz4._bslz4.encode_chunk(f.tobytes(), f.dtype.itemsize, "lz4") for f in frames]


def eiger_frames(n, dtype="u16", profile="dense", shape=(514, 1030)):
    ni, nj = shape
    frames = [np.frombuffer(bslz4._bslz4.synthetic_eiger_frame(ni, nj, dtype, k, profile), DTYPES[dtype]).reshape(ni, nj)
              for k in range(n)]
    mask = np.frombuffer(bslz4._bslz4.synthetic_eiger_mask(ni, nj), np.uint8).reshape(ni, nj)
    return frames, mask


def random_matrix(scipy_sparse, bins, npix, seed):
    """A (bins, npix) float32 CSC matrix of 2 * npix random weights at random places."""
    rng = np.random.default_rng(seed)
    return scipy_sparse.csc_matrix((rng.random(2 * npix).astype(np.float32),
                                    (rng.integers(0, bins, 2 * npix), rng.integers(0, npix, 2 * npix))),
                                   shape=(bins, npix))


def test_backend_is_the_driver():
    assert gpu.backend == "driver" and gpu.device_count() >= 1


@pytest.mark.parametrize("type_name", GPU_DTYPES)
def test_gpu_lists_equal_the_cpu_class(type_name):
    frames, mask = eiger_frames(12, type_name)
    chunks = encoded(frames)
    cpu = bslz4.chunk2sparse(mask, DTYPES[type_name])
    for kwargs in ({}, {"batch": 4, "group": 8}, {"unblock": "cpu"}):
        g = gpu.chunk2sparse(mask, DTYPES[type_name], **kwargs)
        for cut in (0, 10, 100):
            n_g, (v_g, i_g) = g.multi(chunks, cut)
            n_c, (v_c, i_c) = cpu.multi(chunks, cut)
            np.testing.assert_array_equal(n_g, n_c)
            for f in range(12):
                np.testing.assert_array_equal(i_g[f, : n_g[f]], i_c[f, : n_c[f]])
                np.testing.assert_array_equal(v_g[f, : n_g[f]].view(np.uint8), v_c[f, : n_c[f]].view(np.uint8))
        n, (v, i) = g(chunks[3], 10)
        assert n == int(cpu(chunks[3], 10)[0])
    assert g.cap > 0 and g.last_host == 0


def test_gpu_top_pixels_and_powders_equal_the_cpu_class():
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    frames, mask = eiger_frames(6, "u32")
    chunks = encoded(frames)
    npix = mask.size
    matrix = random_matrix(scipy_sparse, 300, npix, 1)
    fixed = bslz4.fixed_point_matrix(matrix, mask, np.uint32)
    for csc, acc in ((matrix, "f64"), (fixed, None)):
        cpu = bslz4.chunk2sparseCSC(mask, csc, np.uint32, howmany=200, acc=acc)
        g = gpu.chunk2sparseCSC(mask, csc, np.uint32, howmany=200, acc=acc)
        n_c, (v_c, i_c), p_c = cpu.multi(chunks, 3)
        n_g, (v_g, i_g), p_g = g.multi(chunks, 3)
        np.testing.assert_array_equal(n_g, n_c)
        np.testing.assert_array_equal(g.last_cut, cpu.last_cut)
        np.testing.assert_array_equal(g.last_nabove, cpu.last_nabove)
        if p_c.dtype == np.int64:
            np.testing.assert_array_equal(p_g, p_c)
        else:
            np.testing.assert_allclose(p_g, p_c, rtol=1e-13)
        on_device = g.integrate(chunks)
        np.testing.assert_allclose(on_device.get(), p_c, rtol=1e-13)


def test_a_csc_object_made_from_a_lists_object_takes_its_gpu_object_and_integrates_as_one_made_whole():
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    frames, mask = eiger_frames(6, "u16")
    chunks = encoded(frames)
    npix = mask.size
    matrix = random_matrix(scipy_sparse, 200, npix, 2)
    fixed = bslz4.fixed_point_matrix(matrix, mask, np.uint16)
    for csc, acc in ((matrix, "f64"), (fixed, None)):
        cpu = bslz4.chunk2sparseCSC(mask, csc, np.uint16, howmany=150, acc=acc)
        n_c, (v_c, i_c), p_c = cpu.multi(chunks, 3)
        lists = gpu.chunk2sparse(mask, np.uint16, howmany=150, batch=4, group=8)
        n_l, _ = lists.multi(chunks, 3)
        np.testing.assert_array_equal(n_l, n_c)
        # a matrix of another frame size is refused, and the lists object keeps listing
        wrong = scipy_sparse.csc_matrix((np.ones(3, np.float32), ([0, 1, 2], [0, 1, 2])), shape=(3, npix - 1))
        with pytest.raises(ValueError):
            gpu.chunk2sparseCSC.from_lists(lists, wrong, acc=acc)
        np.testing.assert_array_equal(lists.multi(chunks, 3)[0], n_c)
        made = gpu.chunk2sparseCSC.from_lists(lists, csc, acc=acc)
        assert (made.batch, made.group, made.nbins, made.acc) == (4, 8, 200, cpu.acc)
        n_g, (v_g, i_g), p_g = made.multi(chunks, 3)
        np.testing.assert_array_equal(n_g, n_c)
        for f in range(6):
            np.testing.assert_array_equal(i_g[f, : n_g[f]], i_c[f, : n_c[f]])
            np.testing.assert_array_equal(v_g[f, : n_g[f]], v_c[f, : n_c[f]])
        if p_c.dtype == np.int64:
            np.testing.assert_array_equal(p_g, p_c)
        else:
            np.testing.assert_allclose(p_g, p_c, rtol=1e-13)
        assert made.powder_scale == cpu.powder_scale
        # the lists object's GPU object went to the new one: it takes no more calls
        with pytest.raises(ValueError, match="moved from"):
            lists.multi(chunks, 3)
        with pytest.raises(ValueError):
            gpu.chunk2sparseCSC.from_lists(lists, csc, acc=acc)
    with pytest.raises(TypeError):
        gpu.chunk2sparseCSC.from_lists(bslz4.chunk2sparse(mask, np.uint16), matrix)


def test_cupy_takes_decompress_without_a_copy_and_from_device_reads_cupy_chunks():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed")
    frames, mask = eiger_frames(5, "u16")
    chunks = encoded(frames)
    g = gpu.chunk2sparse(mask, np.uint16)
    dense = g.decompress(chunks)
    assert dense.shape == (5, 514, 1030) and dense.dtype == np.uint16
    via_dlpack = cupy.from_dlpack(dense)
    via_cai = cupy.asarray(dense)
    assert via_dlpack.data.ptr == dense.ptr and via_cai.data.ptr == dense.ptr
    np.testing.assert_array_equal(cupy.asnumpy(via_dlpack), np.stack(frames))
    np.testing.assert_array_equal(dense.get(), np.stack(frames))
    del dense  # the CuPy arrays keep the memory
    np.testing.assert_array_equal(cupy.asnumpy(via_cai[2]), frames[2])

    on_gpu = cupy.asarray(np.frombuffer(b"".join(chunks), np.uint8))
    offsets = np.cumsum([0] + [len(c) for c in chunks[:-1]])
    lengths = [len(c) for c in chunks]
    n_d, (v_d, i_d) = g.from_device(on_gpu, offsets, lengths, 10)
    n_d = n_d.copy()
    i_d = i_d.copy()
    cpu = bslz4.chunk2sparse(mask, np.uint16)
    n_c, (v_c, i_c) = cpu.multi(chunks, 10)
    np.testing.assert_array_equal(n_d, n_c)
    for f in range(5):
        np.testing.assert_array_equal(i_d[f, : n_d[f]], i_c[f, : n_c[f]])
    class DLPackOnly:  # as JAX's arrays offer it: no __cuda_array_interface__
        def __dlpack__(self, **kwargs):
            return on_gpu.__dlpack__(**kwargs)

        def __dlpack_device__(self):
            return on_gpu.__dlpack_device__()

    n_p, (v_p, i_p) = g.from_device(DLPackOnly(), offsets, lengths, 10)
    np.testing.assert_array_equal(n_p, n_c)
    again = g.decompress_from_device(on_gpu, offsets, lengths)
    np.testing.assert_array_equal(cupy.asnumpy(cupy.from_dlpack(again)), np.stack(frames))
    with pytest.raises(ValueError):
        g.from_device(on_gpu, [0], [on_gpu.nbytes + 100], 10)  # past the allocation


def test_torch_and_jax_take_device_arrays_without_a_copy():
    frames, mask = eiger_frames(2, "f32")
    g = gpu.chunk2sparse(mask, np.float32)
    dense = g.decompress(encoded(frames))
    tried = 0
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        t = torch.from_dlpack(dense)
        assert t.data_ptr() == dense.ptr and t.dtype == torch.float32 and tuple(t.shape) == dense.shape
        np.testing.assert_array_equal(t.cpu().numpy(), np.stack(frames))
        tried += 1
    try:
        import jax
        import jax.dlpack
    except ImportError:
        jax = None
    if jax is not None and any(d.platform == "gpu" for d in jax.devices()):
        a = jax.dlpack.from_dlpack(g.decompress(encoded(frames)))
        np.testing.assert_array_equal(np.asarray(a), np.stack(frames))
        tried += 1
    if tried == 0:
        pytest.skip("neither PyTorch nor JAX with a GPU is installed")


def test_the_seeds_gpu_classes_list_as_ours(seed_package):
    try:
        import bslz4_to_sparse.cuda as seed_gpu
    except Exception as e:  # its GPU module needs CuPy or its fatbin
        pytest.skip("the seed's GPU module does not import: %s" % e)
    frames, mask = eiger_frames(8, "u16")
    chunks = encoded(frames)
    ours = gpu.chunk2sparse(mask, np.uint16)
    theirs = seed_gpu.chunk2sparse(mask, np.uint16)
    for cut in (0, 10):
        n_o, (v_o, i_o) = ours.multi(chunks, cut)
        n_t, (v_t, i_t) = theirs.multi(chunks, cut)
        np.testing.assert_array_equal(n_o, n_t)
        for f in range(8):
            np.testing.assert_array_equal(i_o[f, : n_o[f]], i_t[f, : n_t[f]])
            np.testing.assert_array_equal(v_o[f, : n_o[f]], v_t[f, : n_t[f]])


def test_device_input_of_the_wrong_kind_is_refused():
    frames, mask = eiger_frames(1, "u16")
    g = gpu.chunk2sparse(mask, np.uint16)
    with pytest.raises(TypeError):
        g.from_device("not memory", [0], [10], 1)
    with pytest.raises(ValueError):
        g.from_device(np.zeros(100, np.uint8).ctypes.data, [0], [50], 1)  # host memory
