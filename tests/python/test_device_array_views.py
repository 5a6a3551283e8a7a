"""bslz4.cuda.DeviceArray's indexing, without a GPU: the module is loaded on its own (bslz4.cuda
itself needs a GPU to import) over a stand-in for the C++ array whose "device memory" is a
numpy array, and its driver copy is a memmove. Each view must be numpy's view of the same bytes:
shape, strides, offset, the array interface, get() of what it spans; fancy indices refused.
(test_gpu_views_and_errors.py checks the same on a GPU, with CuPy and PyTorch.)"""
import ctypes
import importlib.util
import os
import sys
import types

import numpy as np
import pytest

import bslz4

CUDA_DIR = os.path.join(os.path.dirname(bslz4.__file__), "cuda")
KEYS = [
    slice(2, 5), 1, -1, slice(None, None, -1), slice(4, 0, -2), (slice(None), slice(1, 3), slice(None, None, 3)),
    (Ellipsis, 2), (1, None, slice(1, 3)), (slice(1, 4), Ellipsis, slice(2, 3)), (2, 3, 1), (slice(3, 3),),
    (slice(None), -1, slice(None, None, -2)), (None,), (None, Ellipsis, None), np.int64(2),
]


@pytest.fixture(scope="module")
def views():
    package = types.ModuleType("bslz4_cuda_alone")
    package.__path__ = [CUDA_DIR]
    sys.modules["bslz4_cuda_alone"] = package
    spec = importlib.util.spec_from_file_location("bslz4_cuda_alone._device_array",
                                                  os.path.join(CUDA_DIR, "_device_array.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    copies = []

    def memmove(ordinal, src, nbytes, dst):
        copies.append(nbytes)
        ctypes.memmove(dst, src, nbytes)

    module.copy_to_host = memmove
    return module, copies


class StandIn:
    """What the C++ DeviceArray offers _device_array: shape, dtype, ptr, device, get()."""

    def __init__(self, host):
        self.host = host
        self.shape, self.dtype, self.ptr, self.device = host.shape, host.dtype, host.ctypes.data, 0

    def get(self):
        return self.host.copy()


def as_view_key(key):
    k = key if isinstance(key, tuple) else (key,)
    return k if any(x is Ellipsis for x in k) else k + (Ellipsis,)  # numpy's 0-d view, not a scalar


@pytest.mark.parametrize("key", KEYS, ids=[repr(k) for k in KEYS])
def test_a_view_is_numpys_view_of_the_same_bytes(views, key):
    module, copies = views
    host = np.arange(6 * 5 * 4, dtype=np.uint16).reshape(6, 5, 4)
    d = module.DeviceArray(StandIn(host))
    want = host[as_view_key(key)]
    v = d[key]
    assert v.shape == want.shape and v.dtype == want.dtype and v.size == want.size
    if want.size:
        assert v.strides == want.strides and v.ptr == want.__array_interface__["data"][0]
        cai = v.__cuda_array_interface__
        assert cai["data"][0] == v.ptr
        assert cai["strides"] is None if want.flags.c_contiguous else cai["strides"] == want.strides
    del copies[:]
    got = v.get()
    np.testing.assert_array_equal(got, want)
    assert got.shape == want.shape and got.flags.c_contiguous
    if want.size and not v._is_whole():
        span = want.size if want.flags.c_contiguous else None
        assert copies and (span is None or copies[0] == span * want.itemsize)  # only the bytes it spans


def test_views_of_views_reshape_transpose_and_iterate(views):
    module, _ = views
    host = np.arange(6 * 5 * 4, dtype=np.int32).reshape(6, 5, 4)
    d = module.DeviceArray(StandIn(host))
    np.testing.assert_array_equal(d[1:5][1][::2, 3].get(), host[2, ::2, 3])
    np.testing.assert_array_equal(d.reshape(-1)[10:20].get(), host.reshape(-1)[10:20])
    np.testing.assert_array_equal(d.reshape(3, -1).get(), host.reshape(3, -1))
    np.testing.assert_array_equal(d[0].T.get(), host[0].T)
    assert d.T.flags.f_contiguous and not d.T.flags.c_contiguous and d.flags.c_contiguous
    assert len(d) == 6 and [r.shape for r in d] == [(5, 4)] * 6
    out = np.empty((5, 4), np.int32)
    assert d[3].get(out=out) is out
    np.testing.assert_array_equal(out, host[3])
    with pytest.raises(ValueError):
        d[3].get(out=np.empty((4, 5), np.int32))
    with pytest.raises(ValueError):
        d[:, ::2].reshape(-1)  # a copy would be needed
    with pytest.raises(TypeError):
        len(d[1, 2, 3])


@pytest.mark.parametrize("key", [[0, 1], np.array([True] * 6), 1.5, True, 6, -7, (0, 0, 0, 0), (Ellipsis, Ellipsis)])
def test_fancy_and_out_of_range_indices_are_index_errors(views, key):
    module, _ = views
    d = module.DeviceArray(StandIn(np.zeros((6, 5, 4), np.uint8)))
    with pytest.raises(IndexError):
        d[key]
