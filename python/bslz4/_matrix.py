"""Integration matrices from scipy (csc_matrix, csr_matrix, or any format with tocsr) and pyFAI
(its CSR and CSC integrator engines), handed to the C++ normalise_matrix as they are: one
canonical form (CSR by bin, pixels non-decreasing, a duplicate entry kept as a term of its own, as
scipy sums it), every fault a ValueError."""
import numpy as np

from . import _arguments
from . import _bslz4 as _ext


def _layout(matrix, bins, pixels):
    fmt = getattr(matrix, "format", None)
    if fmt in ("csc", "csr"):
        return fmt
    name = type(matrix).__name__.lower()  # pyFAI: CSCIntegrator..., CSRIntegrator...
    if "csc" in name:
        return "csc"
    if "csr" in name:
        return "csr"
    n = len(matrix.indptr) - 1
    if n == pixels and n != bins:
        return "csc"
    if n == bins and n != pixels:
        return "csr"
    raise ValueError("cannot tell whether the matrix (%s) is CSC or CSR: give a scipy csc_matrix or "
                     "csr_matrix" % type(matrix).__name__)


def _indices(a):
    """int32 when every value fits, else uint32 (what C++ takes), without a copy when it is already so."""
    a = np.asarray(a)
    if a.dtype in (np.int32, np.uint32):
        return np.ascontiguousarray(a)
    if a.size and (a.min() < 0 or a.max() >= 2**32):
        raise ValueError("matrix indices out of range (negative or beyond 32 bits)")
    return np.ascontiguousarray(a, np.int32 if (a.size == 0 or a.max() < 2**31) else np.uint32)


def normalised(matrix, pixels):
    """The C++ IntegrationMatrix of a scipy or pyFAI matrix of `pixels` pixels (bins x pixels)."""
    if isinstance(matrix, _ext.IntegrationMatrix):  # normalised already (a plan's)
        if matrix.pixels != pixels:
            raise ValueError("the matrix has %d pixels, the mask %d" % (matrix.pixels, pixels))
        return matrix
    if hasattr(matrix, "format") and matrix.format not in ("csc", "csr") and hasattr(matrix, "tocsr"):
        matrix = matrix.tocsr()
    for attr in ("data", "indices", "indptr"):
        if not hasattr(matrix, attr):
            raise ValueError("the matrix has no %s: expected a scipy sparse matrix or a pyFAI CSR/CSC "
                             "integrator" % attr)
    shape = getattr(matrix, "shape", None)
    if shape is not None and len(shape) == 2:
        bins, npix = int(shape[0]), int(shape[1])
    elif getattr(matrix, "bins", None) is not None:
        bins, npix = int(np.prod(matrix.bins)), int(getattr(matrix, "size", pixels))
    else:
        raise ValueError("the matrix has no shape or bins attribute")
    if npix != pixels:
        raise ValueError("the matrix has %d pixels, the mask %d" % (npix, pixels))
    layout = _layout(matrix, bins, npix)
    indices = np.asarray(matrix.indices)
    indptr = np.asarray(matrix.indptr)
    common = np.result_type(indices.dtype, indptr.dtype) if indices.dtype != indptr.dtype else indices.dtype
    return _ext.normalise_matrix(layout, bins, npix, np.ascontiguousarray(matrix.data, np.float32),
                                 _indices(indices.astype(common, copy=False)),
                                 _indices(indptr.astype(common, copy=False)))


class FixedPointMatrix:
    """A matrix for exact integer powders (fixed_point_matrix): the mask folded in, the weights
    rounded once to fixed point. chunk2sparseCSC given it returns int64 powders, the exact sums
    of pixel x integer weight, the same on the CPU and the GPU; float powder = powder / scale."""

    def __init__(self, matrix, mask_shape, dtype):
        self._matrix = matrix
        self.scale = powder_scale(matrix, "i64")
        self.nbins = matrix.bins
        self.npix = matrix.pixels
        self.shape = mask_shape
        self.dtype = dtype

    def to_scipy(self):
        """The integer weights as a scipy.sparse.csc_matrix (nbins, npix) of int64, the mask folded
        in: M @ frame (integer pixels) is the int64 powder a chunk2sparseCSC given this matrix
        returns, exactly (divide by scale for float). A copy: changing it changes nothing here."""
        import scipy.sparse

        row_start, pixel, _weight, fixed = self._matrix.csr_arrays()
        return scipy.sparse.csr_matrix((fixed.astype(np.int64), pixel, row_start),
                                       shape=(self.nbins, self.npix)).tocsc()

    def check(self, dtype, npix):
        """ValueError unless the matrix can serve frames of npix pixels of dtype."""
        dtype = np.dtype(dtype)
        if npix != self.npix:
            raise ValueError("the mask has %d pixels, the matrix %d" % (npix, self.npix))
        if dtype.kind not in "ui":
            raise ValueError("a fixed_point_matrix needs integer pixels, not %s" % dtype)
        if dtype.itemsize > self.dtype.itemsize or (dtype.kind == "u" and self.dtype.kind == "i"
                                                    and dtype.itemsize == self.dtype.itemsize):
            raise ValueError("the matrix was made for %s pixels: its sums could overflow for %s" % (self.dtype, dtype))


def fixed_point_matrix(csc, mask, dtype, maxval=None, wbits=32):
    """A copy of csc (scipy or pyFAI, as chunk2sparseCSC takes) for exact integer powders: the
    mask folded in (nonzero = use), the weights rounded to integers of at most `wbits` bits (2
    to 63, the sign included) times a power-of-two scale chosen for the pixel dtype so that no
    bin's int64 sum can overflow whatever the pixels hold. The seed's default, wbits=32, is read
    as 63: the widest scale the sums allow, at least the seed's for every pixel type. Give it to chunk2sparseCSC in place of the matrix: the powder is then int64, float
    powder = powder / .scale. maxval (the seed's promise about the data) is accepted and not
    used: the scale always allows the dtype's extremes. ValueError for float or 64-bit pixels
    and for a matrix that would keep too few bits (use acc 'f64')."""
    m, ni, nj = _arguments.frame_mask(mask)
    dt, type_name = _arguments.pixel_type(dtype)
    bits = int(wbits)
    if bits == 32:
        bits = 63
    folded = _ext.fold_mask(normalised(csc, ni * nj), m)
    return FixedPointMatrix(_ext.fixed_point_matrix(folded, type_name, bits), (ni, nj), dt)


def matrix_and_acc(csc, mask, dtype, acc):
    """(C++ matrix, accumulator name) for a CSC class's csc, mask, dtype and acc arguments."""
    _m, ni, nj = _arguments.frame_mask(mask)
    pixels = ni * nj
    if hasattr(csc, "_prepared_for"):  # a plan: its matrix, prepared once
        csc = csc._prepared_for(mask)
    if isinstance(csc, FixedPointMatrix):
        csc.check(_arguments.pixel_type(dtype)[0], pixels)
        if acc not in (None, "i64"):
            raise ValueError("a fixed_point_matrix is summed with acc='i64', not %r" % (acc,))
        if csc.npix != pixels:
            raise ValueError("the mask has %d pixels, the matrix %d" % (pixels, csc.npix))
        return csc._matrix, "i64"
    acc = "f64" if acc is None else acc
    if acc == "i64":
        raise ValueError("acc='i64' needs a matrix from bslz4.fixed_point_matrix")
    if acc not in ("f64", "f32"):
        raise ValueError("acc must be 'f64', 'f32' or 'i64', got %r" % (acc,))
    return normalised(csc, pixels), acc


def powder_scale(matrix, acc):
    """The integer (a power of two) an int64 powder is divided by for float; None for a float one."""
    if acc != "i64":
        return None
    s = matrix.powder_scale
    return int(s) if float(s).is_integer() else s
