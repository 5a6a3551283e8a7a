"""Chunks already in GPU memory, from whatever holds them: an integer device pointer, an object
with __cuda_array_interface__ (CuPy, PyTorch, Numba, ours) or with __dlpack__ (JAX, ...). The
pointer goes to C++, which checks the ranges against the allocation it lies in."""
import ctypes

from .. import _bslz4 as _ext

_KDL_CUDA = 2
_libcuda = None


_CU_STREAM_LEGACY = 1


def _synchronize(stream, device=None):
    """Waits for the stream the producer's array is being written on (CUDA array interface v3:
    an integer stream handle; None, or absent, means nothing to wait for). The legacy default
    stream (1) is the current context's: where this thread has none, the device's primary context
    (the one CuPy, PyTorch and we use) is made current for the wait."""
    global _libcuda
    if stream is None or stream == 0:
        return
    if _libcuda is None:
        _libcuda = ctypes.CDLL("libcuda.so.1")
    pushed = None
    if int(stream) == _CU_STREAM_LEGACY and device is not None:
        current = ctypes.c_void_p()
        if _libcuda.cuCtxGetCurrent(ctypes.byref(current)) == 0 and not current.value:
            ctx = ctypes.c_void_p()
            if _libcuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), ctypes.c_int(int(device))) == 0:
                if _libcuda.cuCtxPushCurrent_v2(ctx) == 0:
                    pushed = ctx
                else:
                    _libcuda.cuDevicePrimaryCtxRelease_v2(ctypes.c_int(int(device)))
    try:
        rc = _libcuda.cuStreamSynchronize(ctypes.c_void_p(int(stream)))
    finally:
        if pushed is not None:
            _libcuda.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
            _libcuda.cuDevicePrimaryCtxRelease_v2(ctypes.c_int(int(device)))
    if rc != 0:
        raise RuntimeError("cuStreamSynchronize on the chunks' stream failed (CUresult %d)" % rc)


class DeviceChunks:
    """The device pointer of buf, and what keeps the memory alive while a call reads it."""

    def __init__(self, buf):
        self.keep = buf
        if isinstance(buf, int):
            self.pointer = buf
            return
        cai = getattr(buf, "__cuda_array_interface__", None)
        if cai is not None:
            strides = cai.get("strides")
            if strides is not None:
                itemsize = int(cai["typestr"][2:])
                expect = itemsize
                for n, s in zip(reversed(cai["shape"]), reversed(strides)):
                    if n != 1 and s != expect:
                        raise ValueError("device chunks must be one C-contiguous array")
                    expect *= n
            _synchronize(cai.get("stream"), getattr(getattr(buf, "device", None), "id", None))
            self.pointer = int(cai["data"][0])
            return
        if hasattr(buf, "__dlpack__"):
            device_type, device_id = buf.__dlpack_device__()
            if int(device_type) != _KDL_CUDA:
                raise ValueError("device chunks must be in CUDA device memory (DLPack device type %d)" % device_type)
            # Taken and never consumed: the capsule owns the memory while we hold it. Asked with
            # no stream, the producer orders its writes before the legacy default stream, which
            # our streams (non-blocking) do not wait for: wait for it here (JAX: for the array).
            self.keep = (buf, buf.__dlpack__())
            if hasattr(buf, "block_until_ready"):
                buf.block_until_ready()
            _synchronize(_CU_STREAM_LEGACY, device_id)
            self.pointer = int(_ext.dlpack_capsule_pointer(self.keep[1])[0])
            return
        raise TypeError("device chunks: expected an integer device pointer or an array with "
                        "__cuda_array_interface__ or __dlpack__, got %s" % type(buf).__name__)
