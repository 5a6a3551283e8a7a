"""The CPU classes, as the seed's bslz4_to_sparse.chunk2sparse and chunk2sparseCSC."""
import numpy as np

from . import _arguments
from . import _bslz4 as _ext
from . import _matrix
from ._frames import FromFrames
from .matrix_file import MatrixFile
from ._results import SparseCalls


class chunk2sparse(FromFrames, SparseCalls):
    """Decode bitshuffle-lz4/zstd chunks of (ni, nj) frames into the pixels above a cut that the
    mask allows, on a thread a frame (the C++ bslz4::Chunk2Sparse).

    mask: 2-D (ni, nj), nonzero = use the pixel. dtype: the pixels' numpy dtype. codec: None
    (found from the first chunk: zstd's magic number, else lz4), 'lz4' / 'zstd' or the seed's
    CODEC_LZ4 / CODEC_ZSTD. pipeline: the seed's, accepted and not used. howmany, thresholds:
    see set_top_pixels. threads: frames decoded at once (None: every CPU the process may use).

    A pixel is listed when its mask is nonzero and its value is above the cut, compared exactly
    (NaN never); a cut below 0 (floored first for integer pixels) is refused at the call, as the
    seed's CPU classes refuse it. c(chunk, cut) -> npixels, (values, indices); c.multi(chunks, cut); after a
    call, last_cut[f] is the cut frame f ended up with (the call's unless howmany raised it)
    and last_nabove[f] its count above that cut before the list was cut to howmany."""

    refuses_negative_cut = True  # as the seed's CPU classes (a ValueError reading its -100)

    def __init__(self, mask, dtype=np.uint16, codec=None, pipeline=None, howmany=None, thresholds=None, *,
                 threads=None):
        self._threads = _arguments.threads_or_zero(threads)
        self._setup(mask, dtype, codec, howmany, thresholds)

    def _make_engine(self, codec):
        return _ext.CpuLists(self.mask, self._ni, self._nj, self._type_name, codec, self._threads, self.howmany,
                             self.thresholds)


class chunk2sparseCSC(FromFrames, SparseCalls):
    """As chunk2sparse, and every frame also goes through the matrix product powder = csc @
    frame (the C++ bslz4::Chunk2SparseCSC), the mask folded into the matrix (masked pixels add
    nothing).

    csc: a scipy csc_matrix or csr_matrix (bins, ni*nj), a pyFAI CSR or CSC integrator, used as
    C++ normalise_matrix does (float32 weights), or a fixed_point_matrix (int64 powders: divide
    by powder_scale). acc: 'f64' (default: float64 sums, as pyFAI), 'f32', or 'i64' with a
    fixed_point_matrix. howmany and thresholds limit the listed pixels only: the powder always
    integrates the whole frame. c(chunk, cut) -> npixels, (values, indices), powder."""

    refuses_negative_cut = True  # as the seed's CPU classes (a ValueError reading its -100)

    def __init__(self, mask, csc, dtype=np.uint16, codec=None, pipeline=None, howmany=None, thresholds=None, *,
                 acc=None, threads=None):
        # A matrix file (load_matrix) also gives pyFAI's axes and intensities: see intensity().
        self.matrix_file = csc if isinstance(csc, MatrixFile) else None
        self._matrix, self.acc = _matrix.matrix_and_acc(csc, mask, dtype, acc)
        self.nbins = self._matrix.bins
        self._threads = _arguments.threads_or_zero(threads)
        self._setup(mask, dtype, codec, howmany, thresholds, self.nbins, self.acc)

    @property
    def powder_scale(self):
        """The integer (a power of two) an int64 powder is divided by for float; None for a float one."""
        return _matrix.powder_scale(self._matrix, self.acc)

    def intensity(self, powder):
        """pyFAI's intensity from this object's powders (one, or a batch's rows), with a matrix
        file's corrections and this object's mask: sums / normalisation, shaped (..., npt_azim,
        npt_rad) for 2D; the radial and azimuthal bin centres are matrix_file.radial and
        .azimuthal."""
        if self.matrix_file is None:
            raise ValueError("intensity needs the matrix from a matrix file (bslz4.load_matrix), which holds "
                             "the per-pixel corrections; this object was given a plain matrix")
        powder = np.asarray(powder)
        if self.acc == "i64":
            powder = powder / self.powder_scale
        return self.matrix_file.intensity(powder, self.mask)

    def _make_engine(self, codec):
        return _ext.CpuPowders(self.mask, self._ni, self._nj, self._type_name, self._matrix, self.acc, codec,
                               self._threads, self.howmany, self.thresholds)
