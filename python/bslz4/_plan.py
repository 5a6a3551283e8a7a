"""bslz4.plan, as the seed's: a matrix prepared once for any number of chunk2sparseCSC objects
(one a thread). Here the preparing is normalise_matrix (scipy or pyFAI to the canonical CSR,
checked), done once for all of them; each object then folds the mask into its own copy in C++
(the seed's plan also shared the layouts it builds for its dots: ours has one layout)."""
import numpy as np

from . import _arguments, _matrix
from ._cpu import chunk2sparseCSC


class plan:
    """plan(mask, csc, dtype, codec, pipeline): csc normalised once (a fixed_point_matrix is
    kept as it is); p.context(howmany, thresholds) or chunk2sparseCSC(mask, p, ...) make the
    objects. mask must be the one the plan was made with (else ValueError). Later changes to the
    arrays passed in do not reach the plan. dtype, codec, pipeline: the defaults of context()."""

    def __init__(self, mask, csc, dtype=np.uint16, codec=None, pipeline=None):
        m, ni, nj = _arguments.frame_mask(mask)
        self.mask = m.copy()
        self.shape = (ni, nj)
        self.dtype = _arguments.pixel_type(dtype)[0]
        self._defaults = (codec, pipeline)
        self._prepared = csc if isinstance(csc, _matrix.FixedPointMatrix) else _matrix.normalised(csc, ni * nj)
        self.nbins = self._prepared.nbins if isinstance(csc, _matrix.FixedPointMatrix) else self._prepared.bins
        self.context()  # refuses now a matrix, dtype or codec the objects would refuse

    def _prepared_for(self, mask):
        """The prepared matrix, for an object made with `mask` (chunk2sparseCSC(mask, plan))."""
        m, _ni, _nj = _arguments.frame_mask(mask)
        if m.shape != self.shape or not np.array_equal(m != 0, self.mask != 0):
            raise ValueError("the mask differs from the one the plan was made with")
        return self._prepared

    def context(self, howmany=None, thresholds=None):
        """A chunk2sparseCSC on this plan for one thread: its own buffers and results, the plan's
        matrix. howmany, thresholds: as chunk2sparse."""
        return chunk2sparseCSC(self.mask, self, self.dtype, self._defaults[0], self._defaults[1], howmany, thresholds)
