"""Whole chunks without the sparse step, as the seed's decompress, decompress_from_buffer,
block_starts and block_starts_from_buffer: many chunks a call, the GIL released (C++:
python/src/chunk_tools_bindings.cpp). Every chunk of a call has the first's decoded size and
block size (else DecodeError, the seed's -106); a bad chunk is a DecodeError naming it."""
import struct

import numpy as np

from . import _arguments
from . import _bslz4 as _ext
from ._errors import DecodeError
from ._results import buffer_ranges, no_chunks

_BUFFERS = (bytes, bytearray, memoryview, np.ndarray)


def _one_buffer(chunks):
    """Whether chunks is one chunk rather than a list of them (our extension: the seed takes lists)."""
    return isinstance(chunks, _BUFFERS) and not (isinstance(chunks, np.ndarray) and chunks.dtype == object)


def _element_type(dtype):
    dt = np.dtype(dtype)
    if dt.itemsize not in (1, 2, 4, 8):
        raise ValueError("dtype %s: pixels of 1, 2, 4 or 8 bytes" % dt)
    return dt


def _frame_bytes(chunk, nframes):
    """The decoded size the first chunk's header gives (the size of every row of the output)."""
    head = memoryview(chunk).cast("B")[:12]
    if len(head) < 12:
        raise DecodeError("frame 0: chunk of %d bytes is shorter than the 12-byte bitshuffle header" % len(head),
                          "truncated_chunk", nframes, "first")
    return struct.unpack(">Q", bytes(head[:8]))[0]


def _calling(call, nframes, *args):
    try:
        return call(*args)
    except DecodeError as e:
        raise e.in_call(nframes, "first")


def _decompress(chunks, dtype, unshuffle, out, codec):
    dt = _element_type(dtype)
    n = len(chunks)
    total = _frame_bytes(chunks[0], n)
    if unshuffle and total % dt.itemsize:
        raise ValueError("the chunks hold %d bytes, not a whole number of %s pixels" % (total, dt))
    if out is None:
        out = np.empty((n, total // dt.itemsize) if unshuffle else (n, total), dt if unshuffle else np.uint8)
    elif not (isinstance(out, np.ndarray) and out.flags.c_contiguous and out.flags.writeable and out.nbytes >= n * total):
        raise ValueError("out must be a writeable C-contiguous array of at least %d bytes" % (n * total))
    number = _arguments.codec_number(codec)
    if number is None:
        number = _arguments.chunk_codec(chunks[0])
    _calling(_ext.decompress_chunks, n, chunks, dt.itemsize, _arguments.codec_name(number), bool(unshuffle), out)
    return out


def decompress(chunks, dtype, unshuffle=True, out=None, codec=None):
    """Decompress chunks (one frame each, as h5py's read_direct_chunk gives them), no mask, no
    cut: an array (nframes, npixels) of dtype, or with unshuffle=False each frame's blocks as
    the HDF5 filter's decompressor yields them before the bit unshuffle (then the raw tail):
    uint8 (nframes, nbytes). out: None, or a writeable C-contiguous array of at least nframes x
    the decoded bytes, filled and returned. codec: None (from the first chunk), 'lz4', 'zstd',
    CODEC_LZ4 or CODEC_ZSTD. One chunk given alone (bytes, a memoryview, a numpy array) rather
    than in a list: its pixels as a 1-D array (ours; the seed takes lists only)."""
    if _one_buffer(chunks):
        return _decompress([chunks], dtype, unshuffle, out, codec)[0] if out is None else _decompress(
            [chunks], dtype, unshuffle, out, codec)
    chunks = list(chunks)
    if not chunks:
        raise no_chunks()
    return _decompress(chunks, dtype, unshuffle, out, codec)


def _slices(base, offsets, lengths):
    offsets, lengths = buffer_ranges(base, offsets, lengths)
    whole = memoryview(base).cast("B")
    return [whole[int(o):int(o) + int(n)] for o, n in zip(offsets, lengths)]


def decompress_from_buffer(base, offsets, lengths, dtype, unshuffle=True, out=None, codec=None):
    """As decompress, for the chunks at byte offsets[i] (lengths[i] bytes) inside the one buffer
    base (a file read into memory, an np.memmap; see locate_chunks and offsets_lengths)."""
    return _decompress(_slices(base, offsets, lengths), dtype, unshuffle, out, codec)


def _block_starts(chunks, dtype, out):
    n = len(chunks)
    itemsize = np.dtype(dtype).itemsize
    _calling(_ext.chunk_headers_agree, n, chunks, itemsize)
    found = _ext.chunk_block_starts(chunks, itemsize)
    bad = [k for k, (starts, _) in enumerate(found) if starts is None]
    if bad:
        code, message = found[bad[0]][1].split("\t", 1)
        raise DecodeError(message, code, n, "first", chunks=bad[:20])
    nblocks = len(found[0][0])
    if out is None:
        flat = np.empty(n * nblocks, np.uint32)
    else:
        if not (isinstance(out, np.ndarray) and out.dtype == np.uint32 and out.flags.c_contiguous
                and out.flags.writeable and out.size >= n * nblocks):
            raise ValueError("out must be a writeable C-contiguous uint32 array of at least %d elements" % (n * nblocks))
        flat = out.reshape(-1)
    starts = flat[:n * nblocks].reshape(n, nblocks)
    for k, (s, _) in enumerate(found):
        starts[k] = s
    return starts


def block_starts(chunks, dtype, out=None):
    """Where each compressed block of each chunk starts, found on the CPU without decoding (the
    block index the GPU classes' unblock='cpu' uploads): uint32 (nchunks, nblocks), the byte
    offset from its chunk's start of each block's 4-byte big-endian compressed size (the block
    follows it). Block b holds pixels [b * B, (b + 1) * B), B the chunk's block size in pixels;
    the last may be partial, and up to 7 pixels after it are stored raw at the chunk's end. A
    chunk whose blocks do not tile it exactly is a DecodeError naming every such chunk. out:
    None, or a uint32 array of at least nchunks x nblocks elements to fill (its view returned)."""
    if _one_buffer(chunks):
        chunks = [chunks]
    chunks = list(chunks)
    if not chunks:
        raise no_chunks()
    return _block_starts(chunks, dtype, out)


def block_starts_from_buffer(base, offsets, lengths, dtype, out=None):
    """As block_starts, for the chunks at byte offsets[i] (lengths[i]) inside the one buffer
    base; the starts stay relative to each chunk."""
    return _block_starts(_slices(base, offsets, lengths), dtype, out)
