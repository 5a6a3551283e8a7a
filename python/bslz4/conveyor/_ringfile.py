"""Ring windows a frame, one file a data file (the seed's layout), for texture work: for each Bragg
ring and azimuth bin the sum over a window of radial bins of the normalised 2D cake, and the same
over a background window either side. In the group named like the input dataset:

    intensity     (nframes, nwindows, nazim) float32 (or dtype): the window sums
    window_ranges (nwindows, 2) edges in `unit`;  ring_index (nwindows,) the ring of each window
    role          (nwindows,) int8: -1 background below, 0 the ring, +1 background above
    window_nbins  (nwindows,) radial bins a window (sums, not means)
    azimuthal     (nazim,) degrees;  attributes unit, nframes, integrator (a path, if given)

Written a whole input file at a time, refused before the run like ImageD11SparseSink."""
import os

import numpy as np

from ._sinks import Sink, check_powder_size
from ._sparsefile import _compression, whole_files_only


def rings_name(path):
    """The ring file's name of an input file: / become _, .h5 becomes _rings.h5"""
    return path.strip("/").replace("/", "_").replace(".h5", "") + "_rings.h5"


def peak_windows(centres, width, background_width=None, gap=0.0):
    """(ranges, ring_index, role): a window of `width` around each ring centre, with background
    windows of background_width (default width) either side, `gap` from it; half-open [lower,
    upper) as Integrator.rings takes them; below, ring, above, ring after ring."""
    bw = width if background_width is None else background_width
    ranges, ring, role = [], [], []
    for k, c in enumerate(np.asarray(centres, np.float64)):
        lo, hi = c - width / 2.0, c + width / 2.0
        for r, window in zip((-1, 0, 1), ((lo - gap - bw, lo - gap), (lo, hi), (hi + gap, hi + gap + bw))):
            ranges.append(window)
            ring.append(k)
            role.append(r)
    return np.array(ranges), np.array(ring), np.array(role, np.int8)


class RingSink(Sink):
    """integrator: the "rings" Integrator of the run's backend (float sums); out_dir, dset, name,
    compression: as ImageD11SparseSink; dtype: what intensity is stored as; integrator_path:
    recorded; ring_index, role: from peak_windows; rows: this integrator's rows of the powder
    (IntegratorStack.slices) when the run's matrix is a stack."""

    def __init__(self, integrator, out_dir, dset, ring_index=None, role=None, name=rings_name, compression="bslz4",
                 dtype=np.float32, integrator_path=None, rows=None):
        if integrator.kind != "rings":
            raise ValueError("RingSink needs a rings Integrator, not %r" % integrator.kind)
        self.integ, self.out_dir, self.dset, self.name = integrator, out_dir, dset.strip("/"), name
        self.comp, self.dtype, self.ipath = compression, np.dtype(dtype), integrator_path
        nw = len(integrator.ring_ranges)
        self.ring_index = np.arange(nw) if ring_index is None else np.asarray(ring_index)
        self.role = np.zeros(nw, np.int8) if role is None else np.asarray(role, np.int8)
        r = integrator.radial
        self.nbins = np.array([int(((r >= lo) & (r < hi)).sum()) for lo, hi in integrator.ring_ranges], np.int32)
        self.rows = rows
        self.held, self.files = [], []

    def begin(self, meta):
        check_powder_size(meta)
        os.makedirs(self.out_dir, exist_ok=True)

    def begin_unit(self, unit):
        whole_files_only(unit, "ring file")
        self.held = []

    def write(self, file, frame0, npx, values, indices, powder):
        """Normalise the batch and keep it as (frames, windows, azimuth) until the file is done."""
        if powder.dtype.kind in "iu":
            raise ValueError("ring sums are float: make the backend with exact=False (its powder is fixed-point)")
        naz, nw = self.integ.bins_shape
        if self.rows is not None:
            powder = powder[:, self.rows]
        intensity = self.integ.intensity(powder).reshape(len(powder), naz, nw)
        self.held.append(np.ascontiguousarray(intensity.transpose(0, 2, 1), self.dtype))

    def end_unit(self, unit):
        import h5py

        data = np.concatenate(self.held)
        out = os.path.join(self.out_dir, self.name(unit.path))
        with h5py.File(out + ".tmp", "w") as h:
            g = h.require_group(self.dset)
            g.create_dataset("intensity", data=data, chunks=(min(len(data), 16),) + data.shape[1:],
                             **_compression(self.comp))
            g.create_dataset("window_ranges", data=self.integ.ring_ranges)
            g.create_dataset("ring_index", data=self.ring_index)
            g.create_dataset("role", data=self.role)
            g.create_dataset("window_nbins", data=self.nbins)
            g.create_dataset("azimuthal", data=self.integ.azimuthal)
            g.attrs["unit"], g.attrs["nframes"] = self.integ.unit, len(data)
            if self.ipath:
                g.attrs["integrator"] = self.ipath
        os.replace(out + ".tmp", out)
        self.files.append(out)
        self.held = []

    def end(self):
        return dict(files=self.files)
