"""ImageD11's sparse pixel file, one a data file, with the powder sums beside it (the seed's
layout, which ImageD11 reads as its own lima_segmenter's). In the group named like the input
dataset:

    row, col    uint16 (npx,)      pixel coordinates, frame after frame
    intensity   pixel dtype (npx,)
    nnz         uint32 (nframes,)  pixels a frame
    attributes  nframes, shape0, shape1, npx, itype ("uint16"); min_pixels_in_object when small
                objects were dropped

and with a matrix: powder (nframes, nbins), int64 sums for an exact backend (attribute scale:
divide by it) or float64, or powder_dtype (the sums scaled); attribute integrator (an Integrator
file's path, if given); with an IntegratorStack a powder_<name> a block. Datasets compressed
with hdf5plugin's bitshuffle ("bslz4", "bszstd"), "lzf" or None. A sink writes whole files: make
the units with max_unit_bytes large enough that a unit is a file."""
import os

import numpy as np

from ._sinks import Sink, check_powder_size


def imaged11_name(path):
    """ImageD11's name for the sparse file of an input file: / become _, .h5 becomes _sparse.h5"""
    return path.strip("/").replace("/", "_").replace(".h5", "") + "_sparse.h5"


def _compression(name):
    if name is None:
        return {}
    if name == "lzf":
        return dict(compression="lzf", shuffle=True)
    if name in ("bslz4", "bszstd"):
        import hdf5plugin

        if name == "bslz4":
            return hdf5plugin.Bitshuffle(nelems=0, cname="lz4")
        return hdf5plugin.Bitshuffle(nelems=0, cname="zstd", clevel=1)
    raise ValueError("compression: bslz4, bszstd, lzf or None")


def keep_large_objects(flat, values, shape, min_pixels):
    """Which pixels (flat indices, ascending, into a frame of `shape`, and their values) belong to a
    connected object of at least min_pixels pixels, by ImageD11's labelling (ImageD11.sparseframe):
    a boolean array. Needs ImageD11."""
    try:
        from ImageD11 import sparseframe
    except ImportError:
        raise ImportError("min_pixels needs ImageD11 (its connected-object labelling)")
    nj = shape[1]
    frame = sparseframe.sparse_frame((flat // nj).astype(np.uint16), (flat % nj).astype(np.uint16), tuple(shape))
    frame.set_pixels("f32", np.asarray(values, np.float32))
    nobjects = sparseframe.sparse_connected_pixels(frame, threshold=0, data_name="f32", label_name="cp")
    labels = frame.pixels["cp"]
    return np.bincount(labels, minlength=nobjects)[labels] >= min_pixels


def whole_files_only(unit, what):
    """Refuse a unit that is part of a file: the file is written when its last frame is in."""
    if unit.frame0 != 0 or unit.n != unit.nfile:
        raise ValueError("%s: the %s is written per input file, but this unit is frames %d-%d of %d: "
                         "make_work_units(max_unit_bytes=...) larger"
                         % (unit.path, what, unit.frame0, unit.frame0 + unit.n - 1, unit.nfile))


class ImageD11SparseSink(Sink):
    """out_dir: where the files go (made); dset: the input's dataset path, the group written;
    name: input path -> file name; compression: see the module docstring; powder_dtype: None (as
    the decoder gives it), np.float32 or np.float64; integrator: an Integrator file's path to
    record; stack: the IntegratorStack the run's matrix is (a dataset a block); min_pixels: drop
    the pixels of connected objects smaller than this (ImageD11's labelling; None keeps all)."""

    def __init__(self, out_dir, dset, name=imaged11_name, compression="bslz4", powder_dtype=None, integrator=None,
                 stack=None, min_pixels=None):
        self.out_dir, self.dset, self.name = out_dir, dset.strip("/"), name
        self.comp, self.pdtype, self.integrator = compression, powder_dtype, integrator
        self.stack = stack
        self.min_pixels = min_pixels if min_pixels and min_pixels > 1 else None
        self.files, self.powder = [], []

    def begin(self, meta):
        check_powder_size(meta)
        self.meta = meta
        self.shape = tuple(meta["shape"])
        if max(self.shape) > 65536:
            raise ValueError("row and col are uint16: a frame side of %d does not fit" % max(self.shape))
        os.makedirs(self.out_dir, exist_ok=True)

    def begin_unit(self, unit):
        whole_files_only(unit, "sparse file")
        self.held = []

    def write(self, file, frame0, npx, values, indices, powder):
        """Keep the batch, cut to its pixels, until the file is complete."""
        for f in range(len(npx)):
            n = int(npx[f])
            v, ix = values[f, :n].copy(), indices[f, :n].copy()
            if self.min_pixels and n:
                keep = keep_large_objects(ix, v, self.shape, self.min_pixels)
                v, ix = v[keep], ix[keep]
            self.held.append((len(v), v, ix))
        if powder is not None:
            if self.stack is not None and powder.dtype.kind in "iu":
                floats = [k for k, b in self.stack.blocks.items() if b.kind not in ("powder1d", "powder2d")]
                if floats:
                    raise ValueError("the blocks %s of the stack are not sums of counts: make the backend with "
                                     "exact=False" % floats)
            self.powder.append(powder.copy())

    def end_unit(self, unit):
        """Write the unit's file (under a temporary name, then renamed)."""
        import h5py

        nj = self.shape[1]
        nnz = np.array([h[0] for h in self.held], np.uint32)
        flat = np.concatenate([h[2] for h in self.held]) if self.held else np.zeros(0, np.uint32)
        intensity = np.concatenate([h[1] for h in self.held]) if self.held else np.zeros(0, self.meta["dtype"])
        out = os.path.join(self.out_dir, self.name(unit.path))
        comp = _compression(self.comp)
        with h5py.File(out + ".tmp", "w") as h:
            g = h.require_group(self.dset)
            g.attrs.update(nframes=len(nnz), shape0=self.shape[0], shape1=self.shape[1], npx=len(flat), itype="uint16")
            if self.min_pixels:
                g.attrs["min_pixels_in_object"] = self.min_pixels
            options = dict(chunks=(max(1, min(len(flat), 10000)),), maxshape=(None,), **comp) if len(flat) else {}
            g.create_dataset("row", data=(flat // nj).astype(np.uint16), **options)
            g.create_dataset("col", data=(flat % nj).astype(np.uint16), **options)
            g.create_dataset("intensity", data=intensity, **options)
            g.create_dataset("nnz", data=nnz)
            if self.powder:
                powder = np.concatenate(self.powder)
                scale = self.meta.get("powder_scale")
                if self.pdtype is not None:
                    if powder.dtype.kind == "i":
                        powder = powder * (1.0 / scale)
                    powder = powder.astype(self.pdtype)
                parts = {"powder": powder}
                if self.stack is not None:
                    parts = {"powder_" + k: powder[:, rows] for k, rows in self.stack.slices.items()}
                for pname, rows in parts.items():
                    d = g.create_dataset(pname, data=np.ascontiguousarray(rows), chunks=(min(len(rows), 64), rows.shape[1]),
                                         **comp)
                    if rows.dtype.kind == "i" and scale is not None:
                        d.attrs["scale"] = scale
                    if self.integrator:
                        d.attrs["integrator"] = self.integrator
        os.replace(out + ".tmp", out)
        self.files.append(out)
        self.held, self.powder = [], []

    def end(self):
        return dict(files=self.files)
