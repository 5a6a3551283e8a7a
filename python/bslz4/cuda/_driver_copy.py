"""Device-to-host copies of part of an allocation, for DeviceArray views' get(): the C++
DeviceArray copies its whole array only, and a row of a 2 GB decompress should not cost 2 GB.
Through the CUDA driver (ctypes), in the device's primary context, the one the C++ classes,
CuPy and PyTorch use; the arrays are complete when made, so a synchronous copy is enough."""
import ctypes

_lib = None


def _driver():
    global _lib
    if _lib is None:
        lib = ctypes.CDLL("libcuda.so.1")
        lib.cuInit.argtypes = [ctypes.c_uint]
        lib.cuDeviceGet.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int]
        lib.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
        lib.cuDevicePrimaryCtxRelease_v2.argtypes = [ctypes.c_int]
        lib.cuCtxPushCurrent_v2.argtypes = [ctypes.c_void_p]
        lib.cuCtxPopCurrent_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
        lib.cuMemcpyDtoH_v2.argtypes = [ctypes.c_void_p, ctypes.c_uint64, ctypes.c_size_t]
        _lib = lib
    return _lib


def _check(rc, what):
    if rc != 0:
        raise RuntimeError("%s failed (CUresult %d)" % (what, rc))


def copy_to_host(ordinal, src, nbytes, dst):
    """nbytes from device address src (on GPU `ordinal`) to host address dst."""
    lib = _driver()
    _check(lib.cuInit(0), "cuInit")
    dev = ctypes.c_int()
    _check(lib.cuDeviceGet(ctypes.byref(dev), int(ordinal)), "cuDeviceGet")
    ctx = ctypes.c_void_p()
    _check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
    try:
        _check(lib.cuCtxPushCurrent_v2(ctx), "cuCtxPushCurrent")
        try:
            _check(lib.cuMemcpyDtoH_v2(ctypes.c_void_p(dst), ctypes.c_uint64(src), ctypes.c_size_t(nbytes)),
                   "cuMemcpyDtoH")
        finally:
            lib.cuCtxPopCurrent_v2(ctypes.byref(ctypes.c_void_p()))
    finally:
        lib.cuDevicePrimaryCtxRelease_v2(dev)
