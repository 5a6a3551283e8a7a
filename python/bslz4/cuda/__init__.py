"""GPU (CUDA) chunk2sparse and chunk2sparseCSC: the CPU classes' call API, decoding on an NVIDIA
GPU through the driver API alone (the kernels are embedded in the module; no toolkit, CuPy or
CUDA runtime is needed). As the seed's bslz4_to_sparse.cuda, importing this needs a usable GPU:
ImportError says why not. `backend` is always 'driver'.

    chunk2sparse(mask, dtype, codec, pipeline, batch, howmany, thresholds, group, unblock, device)
    chunk2sparseCSC(mask, csc, dtype, codec, pipeline, batch, acc, howmany, thresholds, group,
                    unblock, device)

Where the chunks are and where the results go, by name:
    chunks in host memory    multi, from_buffer, __call__, coo     -> lists on the host
                             decompress, integrate                 -> arrays on the GPU
    chunks in GPU memory     from_device                           -> lists on the host
                             decompress_from_device, integrate_from_device -> arrays on the GPU
Arrays on the GPU are DeviceArray objects that CuPy, PyTorch and JAX take without a copy
(__dlpack__, __dlpack_device__, __cuda_array_interface__). Chunks in GPU memory are any object
with __cuda_array_interface__ or __dlpack__ (CuPy, PyTorch, JAX, Numba, ours), or a device
pointer as an integer."""
from .. import _bslz4 as _ext

if not getattr(_ext, "has_gpu_runtime", False):
    raise ImportError("bslz4.cuda: this bslz4 was built without the GPU runtime (no nvcc or prebuilt fatbin "
                      "at build time)")
if not _ext.gpu_available():
    raise ImportError("bslz4.cuda: no usable GPU: " + _ext.gpu_unavailable_reason())

from ._gpu import (  # noqa: E402
    DeviceArray,
    backend,
    built_architectures,
    chunk2sparse,
    chunk2sparseCSC,
    device_count,
    device_name,
    release_shared,
)

__all__ = [
    "DeviceArray", "backend", "built_architectures", "chunk2sparse", "chunk2sparseCSC", "device_count",
    "device_name", "release_shared",
]
