"""from_frames on the CPU classes, as the seed's: frames already decompressed (a numpy array),
through the steps after the decode (mask, cut, top pixels, powder), with the same results as
multi on their chunks (C++ Chunk2Sparse::from_frames). The seed's GPU classes have none, nor
have ours."""
import numpy as np

from . import _arguments


class FromFrames:
    """Mixed into a SparseCalls class with a C++ engine that has from_frames."""

    def from_frames(self, frames, cut):
        """As multi, for uncompressed frames: an array (nframes, ni, nj) or (nframes, ni*nj) of
        this object's pixel dtype (a C-contiguous aligned array of that dtype is read in place,
        anything else is copied first). Returns what multi returns."""
        pixels = np.require(frames, self.dtype, ["C", "A"])
        if pixels.size == 0 or pixels.size % self.npix:
            raise ValueError("frames must hold whole frames of %d pixels" % self.npix)
        rows = list(pixels.reshape(-1, self.npix))
        cut = self._cut(cut)
        out = self._out.take(len(rows))
        self._run(self._engine.from_frames, len(rows), rows, cut, out)
        return self._returned(out)
