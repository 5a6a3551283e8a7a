"""The GPU classes, as the seed's bslz4_to_sparse.cuda.chunk2sparse and chunk2sparseCSC, over
the C++ bslz4::cuda classes (driver API, embedded kernels)."""
import numpy as np

from .. import _arguments
from .. import _bslz4 as _ext
from .. import _matrix
from .._results import SparseCalls, no_chunks
from ._device_array import DeviceArray
from ._device_input import DeviceChunks

backend = "driver"


def device_count():
    """GPUs the driver sees."""
    return _ext.device_count()


def device_name(dev=0):
    return _ext.device_name(dev)


def release_shared():
    """Drop the masks and matrices shared by every object of the process (objects still alive
    keep theirs)."""
    _ext.release_shared()


def built_architectures():
    """The architectures the embedded kernels were built for, e.g. '90 (PTX 90)'."""
    return _ext.built_architectures()


def _device_number(device):
    if device is None:
        return -1
    if int(device) != device or device < 0:
        raise ValueError("device must be None or a GPU ordinal >= 0, got %r" % (device,))
    return int(device)


class _GpuCalls(SparseCalls):
    """What both GPU classes add to the CPU classes' calls."""

    _gpu_errors = True

    def _gpu_setup(self, batch, group, unblock, device):
        self._batch = _arguments.count_or_zero(batch, "batch")
        self._group = _arguments.count_or_zero(group, "group")
        if unblock not in ("gpu", "cpu"):
            raise ValueError("unblock must be 'gpu' or 'cpu', got %r" % (unblock,))
        self.unblock = unblock
        self._device = _device_number(device)

    @property
    def batch(self):
        return self._engine.batch

    @property
    def group(self):
        return self._engine.group

    @property
    def cap(self):
        """Most pixels a frame's list may hold on the device: frame bytes / (4 + bytes per pixel)."""
        return self._engine.cap

    @property
    def last_host(self):
        """Frames of the last call with more than cap pixels kept, listed on the host instead."""
        return self._engine.last_host

    def reserve(self, frames, chunk_bytes):
        """Grow now what calls of up to `frames` chunks of up to `chunk_bytes` bytes would grow on
        their first run, so the first call is as quick as the next."""
        self._engine.reserve(int(frames), int(chunk_bytes))

    def decompress(self, chunks):
        """Decode chunks (one frame each) into dense frames that stay on the GPU: a new
        C-contiguous DeviceArray (nframes, ni, nj) of the pixel dtype, complete when returned,
        every pixel as stored (no cut, no mask). CuPy, PyTorch and JAX take it without a copy."""
        if not isinstance(chunks, (list, tuple)):
            chunks = list(chunks)
        if len(chunks) == 0:
            raise no_chunks()
        return DeviceArray(self._run(self._engine_for(chunks[0]).decompress, len(chunks), chunks))

    def from_device(self, buf, offsets, lengths, cut):
        """As from_buffer, for chunks already in GPU memory: chunk i is the lengths[i] bytes at
        byte offsets[i] of buf (an integer device pointer, or an array of this object's GPU with
        __cuda_array_interface__ or __dlpack__; a stream it names is waited for). lz4 chunks.
        The results come back to the host, as from multi."""
        cut = _arguments.cut_value(cut)
        source = DeviceChunks(buf)
        offsets, lengths = _positions(offsets, lengths)
        out = self._out.take(len(offsets))
        self._run(self._engine.from_device, len(offsets), source.pointer, offsets, lengths, cut, out)
        return self._returned(out)

    def decompress_from_device(self, buf, offsets, lengths):
        """As decompress, for chunks already in GPU memory (see from_device)."""
        source = DeviceChunks(buf)
        offsets, lengths = _positions(offsets, lengths)
        return DeviceArray(self._run(self._engine.decompress_from_device, len(offsets), source.pointer, offsets,
                                     lengths))


def _positions(offsets, lengths):
    offsets = np.asarray(offsets, np.int64).ravel()
    lengths = np.asarray(lengths, np.int64).ravel()
    if len(offsets) == 0:
        raise no_chunks()
    return offsets, lengths


class chunk2sparse(_GpuCalls):
    """Decode bitshuffle chunks of (ni, nj) frames into the pixels above a cut that the mask
    allows, on the GPU (the C++ bslz4::cuda::Chunk2Sparse): the same results as the CPU class,
    bit for bit. lz4 or zstd chunks (zstd blocks are decompressed on the host) of 8 kB blocks,
    pixels u8 u16 u32 i8 i16 i32 f32.

    batch: frames decoded together (None: from the L2 size, at most 64). group: frames uploaded
    and unblocked together (None: every frame of a call, at most 256). unblock: 'gpu' or 'cpu',
    who walks the block headers of groups of more than 4 frames. device: the GPU (None: the
    calling thread's current one, else 0). pipeline: the seed's, accepted and not used.
    A frame with more than cap pixels kept is listed on the host (counted in last_host)."""

    def __init__(self, mask, dtype=np.uint16, codec=None, pipeline=None, batch=None, howmany=None,
                 thresholds=None, group=None, unblock="gpu", device=None):
        self._gpu_setup(batch, group, unblock, device)
        self._setup(mask, dtype, codec, howmany, thresholds)

    @property
    def device(self):
        return self._engine.device

    def _make_engine(self, codec):
        return _ext.GpuLists(self.mask, self._ni, self._nj, self._type_name, self._batch, self._group, self.unblock,
                             self._device, codec, self.howmany, self.thresholds)


class chunk2sparseCSC(_GpuCalls):
    """As chunk2sparse, and every frame also integrated on the GPU, powder = csc @ frame (the C++
    bslz4::cuda::Chunk2SparseCSC), the mask folded into the matrix. csc and acc as the CPU
    class's: the same int64 powders for a fixed_point_matrix, f64 to about 1e-15 relative."""

    def __init__(self, mask, csc, dtype=np.uint16, codec=None, pipeline=None, batch=None, acc=None, howmany=None,
                 thresholds=None, group=None, unblock="gpu", device=None):
        self._matrix, self.acc = _matrix.matrix_and_acc(csc, mask, dtype, acc)
        self.nbins = self._matrix.bins
        self._gpu_setup(batch, group, unblock, device)
        self._setup(mask, dtype, codec, howmany, thresholds, self.nbins, self.acc)

    @classmethod
    def from_lists(cls, lists, csc, acc=None):
        """A chunk2sparseCSC made from a chunk2sparse by adding the matrix to its GPU object (its
        context, kernels, buffers grown so far and top-pixel rule), rather than making another:
        lists takes no more calls. csc and acc as the constructor's. A matrix refused leaves lists
        as it was."""
        if not isinstance(lists, chunk2sparse):
            raise TypeError("from_lists takes a bslz4.cuda.chunk2sparse, not %s" % type(lists).__name__)
        self = cls.__new__(cls)
        self._matrix, self.acc = _matrix.matrix_and_acc(csc, lists.mask, lists.dtype, acc)
        self.nbins = self._matrix.bins
        self._batch, self._group, self.unblock, self._device = lists._batch, lists._group, lists.unblock, lists._device
        codec = None if lists._codec_pending else lists.codec
        self._setup(lists.mask, lists.dtype, codec, lists.howmany, lists.thresholds, self.nbins, self.acc,
                    engine=lambda: _ext.GpuPowders.from_lists(lists._engine, self._matrix, self.acc))
        return self

    @property
    def device(self):
        return None if self._device < 0 else self._device

    @property
    def powder_scale(self):
        """The integer (a power of two) an int64 powder is divided by for float; None for a float one."""
        return _matrix.powder_scale(self._matrix, self.acc)

    def integrate(self, chunks):
        """The powder of each frame, kept on the GPU: a new DeviceArray (nframes, bins) of the
        accumulator's type (float64, float32, or the int64 sums of a fixed_point_matrix),
        complete when returned: the powders of multi, without lists."""
        if not isinstance(chunks, (list, tuple)):
            chunks = list(chunks)
        if len(chunks) == 0:
            raise no_chunks()
        return DeviceArray(self._run(self._engine_for(chunks[0]).integrate, len(chunks), chunks))

    def integrate_from_device(self, buf, offsets, lengths):
        """As integrate, for chunks already in GPU memory (see from_device)."""
        source = DeviceChunks(buf)
        offsets, lengths = _positions(offsets, lengths)
        return DeviceArray(self._run(self._engine.integrate_from_device, len(offsets), source.pointer, offsets,
                                     lengths))

    def _make_engine(self, codec):
        return _ext.GpuPowders(self.mask, self._ni, self._nj, self._type_name, self._matrix, self.acc, self._batch,
                               self._group, self.unblock, self._device, codec, self.howmany, self.thresholds)
