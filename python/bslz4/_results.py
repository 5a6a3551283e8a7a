"""The call API every decoder class shares, CPU and GPU, as the seed's: c(chunk, cut), multi,
from_buffer, coo, set_top_pixels, last_cut / last_nabove, and the arrays they return.

The arrays are this object's own, grown when a call has more frames than any before and reused
otherwise (so, as in the seed, the next call overwrites what a call returned: copy what you
keep). The C++ classes list straight into them (bslz4::ListRows); a call that fails part way
may have overwritten some rows while npixels still holds the last good call's counts."""
import math

import numpy as np

from . import _arguments, _seed_errors
from ._errors import DecodeError

_POWDER_DTYPES = {"f64": np.float64, "f32": np.float32, "i64": np.int64}


class ResultArrays:
    """npixels, values, indices, last_cut, last_nabove (and powder) for up to `rows` frames."""

    def __init__(self, pixels, dtype, bins=0, acc=None):
        self.pixels, self.dtype = pixels, dtype
        self.bins = bins
        self.powder_dtype = None if acc is None else np.dtype(_POWDER_DTYPES[acc])
        self.rows = 0

    def take(self, nframes):
        """The first nframes rows of each array, as the tuple the C++ calls fill."""
        if nframes > self.rows:
            self._npixels = np.zeros(nframes, np.int32)
            self._values = np.empty((nframes, self.pixels), self.dtype)
            self._indices = np.empty((nframes, self.pixels), np.uint32)
            self._last_cut = np.zeros(nframes, np.float64)
            self._last_nabove = np.zeros(nframes, np.int64)
            if self.powder_dtype is not None:
                self._powder = np.zeros((nframes, self.bins), self.powder_dtype)
            self.rows = nframes
        n = nframes
        powder = self._powder[:n] if self.powder_dtype is not None else None
        return (self._npixels[:n], self._values[:n], self._indices[:n], self._last_cut[:n],
                self._last_nabove[:n], powder)


def no_chunks():
    """The refusal of a call without chunks: a ValueError reading as the seed's -105."""
    return _seed_errors.value_error(-105)


def buffer_ranges(base, offsets, lengths):
    """offsets and lengths as int64 arrays, each chunk checked to lie inside base: else a
    ValueError reading as the seed's -108, naming the chunks outside."""
    offsets = np.asarray(offsets, np.int64).ravel()
    lengths = np.asarray(lengths, np.int64).ravel()
    if len(offsets) == 0:
        raise no_chunks()
    if len(offsets) != len(lengths):
        raise _seed_errors.value_error(-108, "%d offsets and %d lengths" % (len(offsets), len(lengths)))
    size = memoryview(base).nbytes
    outside = np.flatnonzero((offsets < 0) | (lengths < 0) | (offsets + lengths > size))
    if outside.size:
        k = int(outside[0])
        raise _seed_errors.value_error(
            -108, "chunk %d: offset %d, length %d, in a buffer of %d bytes" % (k, offsets[k], lengths[k], size),
            chunks=outside[:20].tolist())
    return offsets, lengths


class SparseCalls:
    """The seed's call API over a C++ engine. A subclass sets, in __init__, through _setup:
    the mask, dtype, codec and top-pixel settings, and gives _make_engine(codec_name)."""

    _gpu_errors = False  # the GPU classes' errors take the seed's GPU wording

    def _run(self, call, nframes, *args):
        """call(*args), a DecodeError given the seed's form for a call of nframes chunks."""
        try:
            return call(*args)
        except DecodeError as e:
            raise e.in_call(nframes, "gpu" if self._gpu_errors else "mask")

    def _setup(self, mask, dtype, codec, howmany, thresholds, bins=0, acc=None, engine=None):
        """engine: a callable giving the engine (taken from another object), else _make_engine."""
        self.mask, self._ni, self._nj = _arguments.frame_mask(mask)
        self.nfast = self._nj
        self.npix = self._ni * self._nj
        self.dtype, self._type_name = _arguments.pixel_type(dtype)
        number = _arguments.codec_number(codec)
        self._codec_pending = number is None  # the first chunk decides, as in the seed
        self.codec = _arguments.CODEC_LZ4 if number is None else number
        self.howmany, self.thresholds = _arguments.top_pixels(howmany, thresholds)
        self._out = ResultArrays(self.npix, self.dtype, bins, acc)
        self._has_powder = acc is not None
        self.last_cut = np.zeros(0, np.float64)
        self.last_nabove = np.zeros(0, np.int64)
        self._engine = engine() if engine else self._make_engine(_arguments.codec_name(self.codec))

    def _engine_for(self, first_chunk):
        """The engine, made again for zstd when the codec was not given and the first chunk is zstd."""
        if self._codec_pending:
            self._codec_pending = False
            found = _arguments.chunk_codec(first_chunk)
            if found != self.codec:
                self.codec = found
                self._engine = self._make_engine(_arguments.codec_name(found))
        return self._engine

    def _returned(self, out):
        npixels, values, indices, last_cut, last_nabove, powder = out
        self.last_cut, self.last_nabove = last_cut, last_nabove
        if self._has_powder:
            return npixels, (values, indices), powder
        return npixels, (values, indices)

    def set_top_pixels(self, howmany=None, thresholds=None):
        """At most `howmany` pixels a frame from the next call on, chosen as ImageD11's
        top_pixels does: a frame with more pixels above the cut keeps those above the first of
        the sorted `thresholds` that fewer than howmany pixels exceed (else above the last), then
        the first howmany of them in pixel order. thresholds None: max(cut, 1) * 2**i, i = 0..15;
        an empty list: simply the first howmany. howmany None: every pixel above the cut."""
        howmany, thresholds = _arguments.top_pixels(howmany, thresholds)
        self._engine.set_top_pixels(howmany, thresholds)
        self.howmany, self.thresholds = howmany, thresholds

    # The seed's CPU classes refuse a cut below 0 (after flooring it for integer pixels: -0.5 is
    # refused, -0.0 is not) at each call; its GPU classes take it. Set per class.
    refuses_negative_cut = False

    def _cut(self, cut):
        value = _arguments.cut_value(cut)
        if self.refuses_negative_cut:
            compared = math.floor(value) if np.issubdtype(self.dtype, np.integer) and math.isfinite(value) else value
            if compared < 0:
                raise _seed_errors.value_error(-100, "The cut %r is below 0; the seed's CPU classes refuse it (its GPU "
                                               "classes and bslz4's C++ classes compare it as given)" % (value,), batch=False)
        return value

    def multi(self, chunks, cut):
        """Decode a batch of chunks (one frame each): npixels[nframes], (values, indices) of
        shape (nframes, ni*nj) (and the powders (nframes, bins) with a matrix). Row f holds frame
        f's pixels above the cut that the mask allows, in pixel order, in its first npixels[f]
        entries. Every array is this object's own, overwritten by the next call."""
        if not isinstance(chunks, (list, tuple)):
            chunks = list(chunks)
        if len(chunks) == 0:
            raise no_chunks()
        cut = self._cut(cut)
        engine = self._engine_for(chunks[0])
        out = self._out.take(len(chunks))
        self._run(engine.multi, len(chunks), chunks, cut, out)
        return self._returned(out)

    def from_buffer(self, base, offsets, lengths, cut):
        """As multi, for the chunks at byte offsets[i] (lengths[i] bytes) inside the one buffer
        base (a file read into memory, an mmap)."""
        offsets, lengths = buffer_ranges(base, offsets, lengths)
        cut = self._cut(cut)
        if self._codec_pending:
            o = int(offsets[0])
            self._engine_for(memoryview(base).cast("B")[o:o + 20])
        out = self._out.take(len(offsets))
        self._run(self._engine.from_buffer, len(offsets), base, offsets, lengths, cut, out)
        return self._returned(out)

    def __call__(self, buffer, cut):
        """Decode one chunk (one frame): npixels, (values, indices) (and the powder with a
        matrix). values and indices are full-frame-size views of this object's arrays: the first
        npixels entries are the pixels above the cut, in pixel order; the next call overwrites
        them."""
        r = self.multi([buffer], cut)
        npixels, (values, indices) = r[0], r[1]
        return (int(npixels[0]), (values[0], indices[0])) + tuple(x[0] for x in r[2:])

    def coo(self, buffer, cut):
        """Decode one chunk to (npixels, row, col, values) (and the powder with a matrix):
        uint16 row and column of each pixel above the cut, and its value, in arrays of their own
        (copies, safe to keep)."""
        r = self.__call__(buffer, cut)
        npixels, (values, indices) = r[0], r[1]
        row, col = np.divmod(indices[:npixels].astype(np.int64), self.nfast)
        return (npixels, row.astype(np.uint16), col.astype(np.uint16), values[:npixels].copy()) + tuple(
            x.copy() for x in r[2:])
