"""bslz4: bitshuffle-lz4/zstd detector frames (HDF5 filter 32008: Eiger, Jungfrau, LImA) decoded
straight into sparse pixel lists and powder patterns, on the CPU and (bslz4.cuda) an NVIDIA GPU.

A drop-in for the seed package bslz4_to_sparse (`import bslz4 as bslz4_to_sparse`): the same
classes, calls and return values, over the C++ library of this repository.

    c = chunk2sparse(mask, dtype)                 c(chunk, cut) -> npixels, (values, indices)
    c = chunk2sparseCSC(mask, csc, dtype)         c(chunk, cut) -> npixels, (values, indices), powder
    c.multi(chunks, cut), c.from_buffer(base, offsets, lengths, cut), c.coo(chunk, cut)
    bslz4_to_sparse(ds, num, cut, mask=None, pixelbuffer=None)   one frame of an h5py dataset
    detect_codec(ds), locate_chunks(ds), offsets_lengths(...)    what an h5py dataset says of its chunks
    decompress(chunks, dtype), block_starts(chunks, dtype) (and *_from_buffer)   no sparse step
    plan(mask, csc, dtype), build_info(), describe(); bslz4.conveyor: the seed's file pipeline

Chunks are bytes, memoryviews, numpy arrays, or what h5py's read_direct_chunk returns, read in
place. The GIL is released while decoding. One call at a time per object: a second thread's
call while one runs is a ValueError (give each thread its own object). Bad arguments are
ValueError; a chunk that cannot be decoded is DecodeError, naming its frame and block. Errors the
seed also raised read as its did first ("Error decoding batch: -107: ...; chunks [1]. frame 1:
...") and carry seed_code and seed_message."""
from . import _bslz4
from ._arguments import CODEC_LZ4, CODEC_ZSTD
from ._build_info import build_info
from ._chunks import block_starts, block_starts_from_buffer, decompress, decompress_from_buffer
from ._cpu import chunk2sparse, chunk2sparseCSC
from ._dataset_chunks import detect_codec, locate_chunks, offsets_lengths
from ._describe import describe
from ._errors import DecodeError
from ._hdf5 import bslz4_to_sparse
from ._matrix import FixedPointMatrix, fixed_point_matrix
from ._plan import plan
from .matrix_file import MatrixFile, load_matrix
from .scan import Batch, scan_batches
from .scan_job import sparse_scan

version = __version__ = "0.1.0"  # the Meson project's version

__all__ = [
    "Batch",
    "CODEC_LZ4",
    "CODEC_ZSTD",
    "DecodeError",
    "FixedPointMatrix",
    "MatrixFile",
    "block_starts",
    "block_starts_from_buffer",
    "bslz4_to_sparse",
    "build_info",
    "chunk2sparse",
    "chunk2sparseCSC",
    "decompress",
    "decompress_from_buffer",
    "describe",
    "detect_codec",
    "fixed_point_matrix",
    "gpu_runtime",
    "load_matrix",
    "locate_chunks",
    "offsets_lengths",
    "plan",
    "scan_batches",
    "sparse_scan",
    "version",
]


def gpu_runtime():
    """(built with the GPU runtime, a usable GPU now, why not ("" when there is one))."""
    if not _bslz4.has_gpu_runtime:
        return False, False, "bslz4 was built without the GPU runtime (no nvcc or prebuilt fatbin at build time)"
    ok = _bslz4.gpu_available()
    return True, ok, "" if ok else _bslz4.gpu_unavailable_reason()
