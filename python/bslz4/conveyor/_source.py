"""Files cut into work units: consecutive frames of one file, one large contiguous read each,
found through the sidecar indexes (or harvested from HDF5 where a file has none)."""
from ._index import harvest as _harvest
from ._index import read_index


class WorkUnit:
    """Frames frame0 .. frame0 + n - 1 of file number `file` (path; nfile frames in all): the
    bytes path[start:start + span] hold them, frame frame0 + i at offsets[i] (from start),
    lengths[i] bytes long. (A unit of work, not a radial unit.)"""

    __slots__ = ("file", "path", "frame0", "n", "nfile", "start", "span", "offsets", "lengths")


def make_work_units(paths, dset, max_unit_bytes=256 << 20, index_dir=None, harvest=False):
    """(units, frame shape, dtype): the files' frames cut into WorkUnits of as many consecutive
    frames of one file as fit in max_unit_bytes of the compressed file (the whole file when it
    fits), in file order. index_dir: where the sidecars are (None: beside each file); harvest:
    read a missing sidecar's index from HDF5 instead of raising FileNotFoundError."""
    indexes = []
    for p in paths:
        try:
            ix = read_index(p, index_dir)
        except FileNotFoundError:
            if not harvest:
                raise FileNotFoundError("no chunk index for %s: write one (conveyor.write_index(conveyor.harvest(path, "
                                        "dset), path)), or pass harvest=True (reads it from HDF5)" % p)
            ix = _harvest(p, dset)
        if ix.dataset != dset:
            raise ValueError("%s: the index is for dataset %r, not %r" % (p, ix.dataset, dset))
        indexes.append(ix)
    shape, dtype = indexes[0].shape[1:], indexes[0].dtype
    units = []
    for number, (p, ix) in enumerate(zip(paths, indexes)):
        if ix.shape[1:] != shape or ix.dtype != dtype:
            raise ValueError("%s: shape or dtype differs from the first file" % p)
        off, ln = ix.offsets, ix.lengths
        f0 = 0
        while f0 < len(off):
            n = 1
            while f0 + n < len(off) and off[f0 + n] + ln[f0 + n] - off[f0] <= max_unit_bytes:
                n += 1
            u = WorkUnit()
            u.file, u.path, u.frame0, u.n, u.nfile = number, p, f0, n, len(off)
            u.start = int(off[f0])
            u.span = int(off[f0 + n - 1] + ln[f0 + n - 1] - off[f0])
            u.offsets = off[f0:f0 + n] - off[f0]
            u.lengths = ln[f0:f0 + n]
            units.append(u)
            f0 += n
    return units, shape, dtype
