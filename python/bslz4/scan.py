"""A scan's frames in batches, for notebooks: the pixel lists (and, with a matrix, the powders and
pyFAI's intensities) of a whole HDF5 dataset, in frame order, read and decoded behind the loop
(bslz4.conveyor: large contiguous reads, decoder threads that release the GIL).

    for b in bslz4.scan_batches("scan.h5", cut=10, matrix="matrix.h5"):
        b.first, b.npixels, b.values[k][:b.npixels[k]], b.indices[k], b.powder, b.intensity
"""
import collections

import numpy as np

from .matrix_file import MatrixFile

Batch = collections.namedtuple("Batch", "first npixels values indices powder intensity")
Batch.__doc__ = """Frames first .. first + len(npixels) - 1 of the scan: npixels[k] pixels listed for
frame first + k, values[k][:npixels[k]] and indices[k][:npixels[k]] (frame pixel indices, row-major);
powder[k] its sums with a matrix (else None), intensity[k] pyFAI's intensity with a matrix file
(else None; 2D shaped (npt_azim, npt_rad))."""

# Where bslz4 sparse looks for the frames, in this order (then a LImA file's only dataset).
_DATASETS = ("/entry/data/data",)
_NEXUS_MASKS = ("/entry/instrument/detector/pixel_mask", "/entry/data/pixel_mask")


def _frames_dataset(path):
    import h5py

    with h5py.File(path, "r") as f:
        for name in _DATASETS:
            if name in f and isinstance(f[name], h5py.Dataset):
                return name
        found = []

        def visit(name, obj):
            if isinstance(obj, h5py.Dataset) and obj.ndim == 3 and obj.chunks and obj.chunks[0] == 1 and \
                    name.startswith("entry_") and name.endswith("/data"):
                found.append("/" + name)

        f.visititems(visit)
    if len(found) == 1:
        return found[0]
    raise ValueError("%s: %s; give dataset='/path/to/frames'" % (
        path, "no frames at /entry/data/data or in a LImA entry" if not found else "several datasets of frames: " +
        ", ".join(found)))


def _file_mask(path, shape):
    """The library's mask (nonzero = use) from the file's NeXus pixel_mask (nonzero = bad), else all pixels."""
    import h5py

    with h5py.File(path, "r") as f:
        for name in _NEXUS_MASKS:
            if name in f:
                bad = np.asarray(f[name][()])
                if bad.shape != tuple(shape):
                    raise ValueError("%s:%s has shape %s, the frames %s" % (path, name, bad.shape, tuple(shape)))
                return (bad == 0).astype(np.uint8)
    return np.ones(shape, np.uint8)


def scan_batches(path, cut, dataset=None, mask=None, matrix=None, batch=64, workers=2, howmany=None, thresholds=None):
    """A generator of Batch, in frame order, over every frame of `dataset` of HDF5 file `path`
    (chunked one frame a chunk, bitshuffle-LZ4 or zstd; default: /entry/data/data, else a LImA
    file's one dataset), on the CPU.

    cut: pixels > cut are listed. mask: the library's convention (nonzero = use), the frames'
    shape; None: the file's NeXus pixel_mask (nonzero = bad) where it has one, else every pixel.
    matrix: a matrix file (bslz4.load_matrix, or its 'FILE.h5[:GROUP]'), whose sums are pyFAI's
    sum_signal and which gives intensity; or a scipy / pyFAI matrix (sums only); None: lists
    only. batch: frames a decoder call; workers: decoder threads. howmany, thresholds: as
    chunk2sparse. Leaving the loop stops the reading."""
    from . import conveyor

    if isinstance(matrix, str):
        matrix = MatrixFile(matrix)
    dataset = dataset or _frames_dataset(path)
    units, shape, dtype = conveyor.make_work_units([path], dataset, harvest=True)
    if mask is None:
        mask = _file_mask(path, shape)
    else:
        mask = np.asarray(mask)
        if mask.shape != tuple(shape):
            raise ValueError("the mask has shape %s but the frames of %s:%s are %s" % (mask.shape, path, dataset,
                                                                                     tuple(shape)))
    backend = conveyor.CpuBackend(mask, dtype, csc=matrix, cut=cut, howmany=howmany, thresholds=thresholds,
                                  exact=False)
    pending, next_frame = {}, 0
    for _, frame0, npx, values, indices, powder in conveyor.iterate(units, backend, workers, batch=batch):
        pending[frame0] = (npx, values, indices, powder)
        while next_frame in pending:
            npx, values, indices, powder = pending.pop(next_frame)
            intensity = None
            if isinstance(matrix, MatrixFile):
                if matrix.correction is not None:
                    intensity = matrix.intensity(powder, mask)
                powder = matrix.shaped(powder)
            yield Batch(next_frame, npx, values, indices, powder, intensity)
            next_frame += len(npx)
