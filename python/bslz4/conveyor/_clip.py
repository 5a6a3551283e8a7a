"""ImageD11's wtmax applied afterwards to an exact powder, from the sparse pixels: the integer
dot is linear, so clipping each pixel to wtmax before the sum is the unclipped sums less the
weights times each pixel's excess over wtmax. Those pixels are all in the sparse lists when the
cut is at most wtmax and no frame lost a pixel above wtmax to howmany. Integer arithmetic
throughout: the result is what summing the clipped frames with the same weights gives."""
import numpy as np


def fixed_weights(csc, mask, dtype, maxval=None):
    """(W, scale): the integer weights of bslz4.fixed_point_matrix(csc, mask, dtype, maxval), as a
    scipy CSC matrix of int64 (bins x pixels, the mask folded in), and the integer to divide the
    sums by."""
    from .. import fixed_point_matrix

    fixed = fixed_point_matrix(csc, mask, dtype, maxval)
    return fixed.to_scipy(), fixed.scale


def clip_exact_powder(powder, npx, values, indices, wtmax, weights, in_place=False):
    """The int64 powder (nframes, nbins) as if every pixel had been clipped to wtmax first.
    npx, values, indices: the sparse lists of the same frames; weights: W of fixed_weights.
    Every pixel above wtmax must be in the lists (see the module docstring)."""
    out = powder if in_place else powder.copy()
    for f in range(len(npx)):
        n = int(npx[f])
        v = values[f, :n].astype(np.int64)
        hot = v > wtmax
        if hot.any():
            out[f] -= weights[:, indices[f, :n][hot].astype(np.int64)].dot(v[hot] - int(wtmax))
    return out
