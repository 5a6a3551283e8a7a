"""The decoders a run's workers use, behind one interface: make_worker() -> fn(buffer, offsets,
lengths) -> (npx, values, indices, powder), one decoder a worker (each its only user). Ours:
bslz4.chunk2sparse / chunk2sparseCSC (through one bslz4.plan), bslz4.decompress_from_buffer, and
bslz4.cuda's classes."""
import threading

import numpy as np

_INT_DOTS = ("csc-int", "csc-run-int", "csc-run-int16")


def _prepared_matrix(mask, csc, dtype, exact, maxval, float_asked=False):
    """The matrix given to the decoders, by the seed's policy for exact sums. exact None: a
    bslz4.fixed_point_matrix for 8- and 16-bit integer pixels (wider ones when maxval is given)
    unless a float sum was asked for or the matrix cannot be fixed-point, else csc as it is;
    True: fixed_point_matrix or its error; False: csc as it is."""
    import bslz4

    dt = np.dtype(dtype)
    if exact is None:
        if float_asked or dt.kind not in "ui" or (dt.itemsize > 2 and maxval is None):
            return csc
        try:
            return bslz4.fixed_point_matrix(csc, mask, dt, maxval)
        except ValueError:
            return csc
    return bslz4.fixed_point_matrix(csc, mask, dt, maxval) if exact else csc


def _names_float_dot(pipeline):
    """Whether a seed pipeline names a float matrix product (its 'dot' step), which asks for float sums."""
    dot = pipeline.get("dot") if isinstance(pipeline, dict) else None
    return isinstance(dot, str) and dot != "auto" and dot not in _INT_DOTS


def _adapter(c, cut):
    def run(buf, offsets, lengths):
        r = c.from_buffer(buf, offsets, lengths, cut)
        return r[0], r[1][0], r[1][1], (r[2] if len(r) > 2 else None)

    run.powder_scale = getattr(c, "powder_scale", None)
    return run


class CpuBackend:
    """bslz4.chunk2sparse, or chunk2sparseCSC with a matrix, one a worker (the GIL is released).
    mask, dtype; csc: a scipy or pyFAI matrix, or None; cut, howmany, thresholds: as
    chunk2sparse; pipeline: passed on (accepted, not used); exact, maxval: the powder is int64
    fixed-point sums by default for 8- and 16-bit pixels (the scale reaches the sinks' meta as
    powder_scale), float64 otherwise; exact=False for a matrix that is no sum of counts."""

    name = "cpu"

    def __init__(self, mask, dtype, csc=None, cut=0, howmany=None, thresholds=None, pipeline=None, exact=None,
                 maxval=None):
        self.mask, self.csc, self.dtype, self.cut = mask, csc, np.dtype(dtype), cut
        self.exact, self.maxval = exact, maxval
        self.howmany, self.thresholds, self.pipeline = howmany, thresholds, pipeline
        self._fixed = None
        self._plan_obj = None
        self._lock = threading.Lock()

    def __getstate__(self):  # a copy sent to another process makes its own plan
        state = dict(self.__dict__)
        state["_plan_obj"] = state["_lock"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def _matrix(self):
        if self._fixed is None:
            self._fixed = _prepared_matrix(self.mask, self.csc, self.dtype, self.exact, self.maxval,
                                           float_asked=_names_float_dot(self.pipeline))
        return self._fixed

    def _plan(self):
        """The one bslz4.plan the workers' decoders are made from, made on first use (under a lock)."""
        if self._plan_obj is None:
            with self._lock:
                if self._plan_obj is None:
                    import bslz4

                    self._plan_obj = bslz4.plan(self.mask, self._matrix(), self.dtype, pipeline=self.pipeline)
        return self._plan_obj

    def prepare(self):
        """What the workers share, made before they start (forked workers inherit it)."""
        if self.csc is not None:
            self._plan()

    def make_worker(self):
        """One worker's decoder: fn(buffer, offsets, lengths) -> (npx, values, indices, powder)."""
        import bslz4

        if self.csc is None:
            c = bslz4.chunk2sparse(self.mask, self.dtype, howmany=self.howmany, thresholds=self.thresholds,
                                   pipeline=self.pipeline)
        else:
            c = self._plan().context(self.howmany, self.thresholds)
        return _adapter(c, self.cut)


class DecompressBackend:
    """The decompression alone (bslz4.decompress_from_buffer into an array made once): npx 0 for
    every frame, values the frames (unshuffle=True: pixels; False: the blocks as stored), no
    indices or powder. dtype, shape: the pixel type and frame shape; batch: the most frames a
    call (run's batch must not be larger)."""

    name = "decompress"

    def __init__(self, dtype, shape, unshuffle=True, batch=16):
        self.dtype, self.shape, self.unshuffle, self.batch = np.dtype(dtype), tuple(shape), unshuffle, batch

    def make_worker(self):
        import bslz4

        npix = int(np.prod(self.shape))
        if self.unshuffle:
            out = np.empty((self.batch, npix), self.dtype)
        else:
            out = np.empty((self.batch, npix * self.dtype.itemsize), np.uint8)
        npx = np.zeros(self.batch, np.int32)
        dtype, unshuffle = self.dtype, self.unshuffle

        def run(buf, offsets, lengths):
            n = len(offsets)
            bslz4.decompress_from_buffer(buf, offsets, lengths, dtype, unshuffle=unshuffle, out=out[:n])
            return npx[:n], out[:n], None, None

        return run


class GpuBackend:
    """bslz4.cuda's chunk2sparse / chunk2sparseCSC, one a worker. Make the workers after any
    fork (CUDA is used in the process that initialised it). mask, dtype, csc, cut: as
    CpuBackend; batch, group, unblock: as bslz4.cuda.chunk2sparse; acc: the matrix product's
    sums (None: 'i64' where exact applies, else 'f64'); howmany, thresholds; exact, maxval: as
    CpuBackend (the same integers as the CPU for the same matrix)."""

    name = "gpu"

    def __init__(self, mask, dtype, csc=None, cut=0, batch=None, acc=None, howmany=None, thresholds=None, exact=None,
                 maxval=None, group=None, unblock="gpu"):
        self.mask, self.csc, self.dtype, self.cut = mask, csc, np.dtype(dtype), cut
        self.exact, self.maxval, self.group, self.unblock = exact, maxval, group, unblock
        self.batch, self.acc, self.howmany, self.thresholds = batch, acc, howmany, thresholds
        self._fixed = None

    def _matrix(self):
        if self._fixed is None:
            self._fixed = _prepared_matrix(self.mask, self.csc, self.dtype, self.exact, self.maxval,
                                           float_asked=self.acc not in (None, "i64"))
        return self._fixed

    def make_worker(self):
        from bslz4 import cuda

        kw = dict(batch=self.batch, group=self.group, unblock=self.unblock, howmany=self.howmany,
                  thresholds=self.thresholds)
        if self.csc is None:
            c = cuda.chunk2sparse(self.mask, self.dtype, **kw)
        else:
            c = cuda.chunk2sparseCSC(self.mask, self._matrix(), self.dtype, acc=self.acc, **kw)
        return _adapter(c, self.cut)
