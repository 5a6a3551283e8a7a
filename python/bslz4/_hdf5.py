"""The seed's one-frame function over an h5py dataset."""
import numpy as np

from . import _arguments
from ._cpu import chunk2sparse


def bslz4_to_sparse(ds, num, cut, mask=None, pixelbuffer=None, workspace=None, codec=None, pipeline=None):
    """Read frame `num` of a bitshuffle-compressed h5py dataset (nframes, ni, nj) as its raw
    chunk and decode it straight into the pixels above `cut` that `mask` allows (2-D or flat,
    nonzero = use; None: every pixel).

    pixelbuffer: None or (values, indices), arrays of at least ni*nj entries (the dataset's
    dtype, uint32) written in place. workspace and pipeline: the seed's, accepted and not used.
    codec: as chunk2sparse (None: from the chunk). Returns (npixels, (values, indices))."""
    ni, nj = int(ds.shape[1]), int(ds.shape[2])
    if mask is None:
        mask = np.ones((ni, nj), np.uint8)
    mask = np.asarray(mask)
    if mask.size != ni * nj:
        raise ValueError("the mask has %d pixels, a frame %d" % (mask.size, ni * nj))
    decoder = chunk2sparse(mask.reshape(ni, nj), ds.dtype, codec, threads=1)
    _filter_mask, chunk = ds.id.read_direct_chunk((num, 0, 0))
    npixels, (values, indices) = decoder(chunk, cut)
    if pixelbuffer is None:
        return npixels, (values.copy(), indices.copy())
    out_values, out_indices = pixelbuffer
    if out_values.size < ni * nj or out_indices.size < ni * nj:
        raise ValueError("pixelbuffer arrays must hold %d entries" % (ni * nj))
    # Written through a flat view: a non-contiguous array would give a copy, left unseen.
    for name, a in (("values", out_values), ("indices", out_indices)):
        if not (isinstance(a, np.ndarray) and a.flags.c_contiguous and a.flags.writeable):
            raise ValueError("pixelbuffer %s: a writable C-contiguous numpy array is needed" % name)
    out_values.reshape(-1)[:npixels] = values[:npixels]
    out_indices.reshape(-1)[:npixels] = indices[:npixels]
    return npixels, (out_values, out_indices)
