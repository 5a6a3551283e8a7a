"""Where a run's results go. One sink a worker (made by the factory given to run), called once a
batch with

    write(file, frame0, npx, values, indices, powder)

file, frame0: the file's number (in the paths given to make_work_units) and the batch's first
frame; npx (n,) int32 pixels a frame; values (n, npixels) of the pixel dtype and indices (n,
npixels) uint32, row i holding frame i's pixels in its first npx[i] entries; powder (n, nbins)
(int64 sums for an exact backend: meta["powder_scale"] is the integer to divide by), or None.
The arrays are the decoder's own, overwritten once write returns: a sink copies what it keeps."""
import numpy as np


class Sink:
    """Subclass it: write, and begin / begin_unit / end_unit / end where needed."""

    def begin(self, meta):
        """Once, in the worker, before any batch; meta: dict (shape, dtype, nbins, powder_scale, ...)."""

    def begin_unit(self, unit):
        """Before the batches of a WorkUnit (file, frame0, n, nfile, ...)."""

    def write(self, file, frame0, npx, values, indices, powder):
        """One batch of frames (arguments in the module docstring)."""
        raise NotImplementedError

    def end_unit(self, unit):
        """After the last batch of a unit."""

    def end(self):
        """Flush and close; a dict of statistics."""
        return {}


class NullSink(Sink):
    """Counts frames and pixels, keeps nothing: the reading and decoding alone."""

    def __init__(self):
        self.frames = 0
        self.pixels = 0

    def write(self, file, frame0, npx, values, indices, powder):
        self.frames += len(npx)
        self.pixels += int(npx.sum())

    def end(self):
        return dict(frames=self.frames, pixels=self.pixels)


POWDER_MAX_FRACTION = 0.1


def check_powder_size(meta):
    """Refuse, before the run, a powder of more than POWDER_MAX_FRACTION of the frame it comes
    from (8-byte sums against the uncompressed frame): a 1D powder or ring windows pass, a cake
    as large as the image is no reduction. meta: shape, dtype, nbins (None: no powder)."""
    nbins = meta.get("nbins")
    if not nbins:
        return
    frame = int(np.prod(meta["shape"])) * np.dtype(meta["dtype"]).itemsize
    if 8 * nbins > POWDER_MAX_FRACTION * frame:
        raise ValueError("a powder of %d bins is %d bytes a frame, more than %g of the %d bytes of the frame: "
                         "this is not a reduction, and is not written" % (nbins, 8 * nbins, POWDER_MAX_FRACTION, frame))


class TeeSink(Sink):
    """Several sinks as one: each call to each, in order; end() merges their statistics."""

    def __init__(self, *sinks):
        self.sinks = sinks

    def begin(self, meta):
        for s in self.sinks:
            s.begin(meta)

    def begin_unit(self, unit):
        for s in self.sinks:
            s.begin_unit(unit)

    def write(self, file, frame0, npx, values, indices, powder):
        for s in self.sinks:
            s.write(file, frame0, npx, values, indices, powder)

    def end_unit(self, unit):
        for s in self.sinks:
            s.end_unit(unit)

    def end(self):
        merged = {}
        for s in self.sinks:
            merged.update(s.end())
        return merged
