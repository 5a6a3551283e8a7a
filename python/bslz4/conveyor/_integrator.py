"""What turns a run's summed powders into intensities, kept in one file the results point to.

A run's powder is, per frame and bin, the sum of weight x pixel (pyFAI's sum_signal); pyFAI's
intensity divides it by sum_normalization, the same sum over an image of ones with the
corrections (flat, solid angle, polarisation) folded in. An Integrator holds: poni (the pyFAI
geometry as .poni text), csc (the bins x pixels matrix), norm (sum_normalization a bin),
radial (bin positions in unit; azimuthal too for 2D), ring_ranges and offset (kind "rings").

Kinds: "powder1d"; "powder2d" (rows radial-major: radial * nazim + azimuth); "rings" (rows
azimuth-major: azimuth * nrings + ring); "moment" (a 1D matrix and under it the same weighted by
each pixel's q). An IntegratorStack puts several in one matrix: one pass gives them all.

File (HDF5, the seed's layout): attributes bslz4_to_sparse_integrator (version), kind, unit,
shape, nbins, bins_shape; datasets poni, norm, radial, azimuthal, ring_ranges, offset where
present; group csc (attributes format "CSC", shape) with data float32, indices and indptr int32.
pyFAI is needed by from_pyfai and ai() only, h5py by save and load."""
import os
import tempfile

import numpy as np

VERSION = 1


class Integrator:
    """csc: scipy CSC (nbins, npix); norm (nbins,) float64; shape (ni, nj) of the detector;
    unit: pyFAI's radial unit name; radial, azimuthal: bin positions; kind: "powder1d",
    "rings", "powder2d" or "moment"; poni: .poni text; ring_ranges (nrings, 2) in unit;
    offset (nbins,) added to the intensity."""

    def __init__(self, csc, norm, shape, unit, radial=None, azimuthal=None, kind="powder1d", poni=None,
                 ring_ranges=None, offset=None):
        self.csc = csc.tocsc()
        self.norm = np.asarray(norm, np.float64).ravel()
        if self.norm.size != self.csc.shape[0]:
            raise ValueError("norm has %d values for %d bins" % (self.norm.size, self.csc.shape[0]))
        if self.csc.shape[1] != int(np.prod(shape)):
            raise ValueError("matrix columns %d are not the pixels of %r" % (self.csc.shape[1], shape))
        self.shape, self.unit, self.kind, self.poni = tuple(shape), unit, kind, poni
        self.radial = None if radial is None else np.asarray(radial, np.float64)
        self.azimuthal = None if azimuthal is None else np.asarray(azimuthal, np.float64)
        self.ring_ranges = None if ring_ranges is None else np.asarray(ring_ranges, np.float64)
        self.offset = None if offset is None else np.asarray(offset, np.float64).ravel()

    @property
    def nbins(self):
        """The matrix's rows: a frame's powder length."""
        return self.csc.shape[0]

    @property
    def bins_shape(self):
        """What one frame's powder reshapes to."""
        if self.kind == "powder2d":
            return (len(self.radial), len(self.azimuthal))
        if self.kind == "rings":
            return (len(self.azimuthal), len(self.ring_ranges))
        if self.kind == "moment":
            return (2, self.nbins // 2)
        return (self.nbins,)

    @classmethod
    def from_pyfai(cls, ai, npt, unit="q_nm^-1", npt_azim=None, split="bbox", **integrate):
        """The matrix and normalisation of a pyFAI AzimuthalIntegrator: npt radial bins (and npt_azim
        azimuthal ones for 2D); split: pyFAI's pixel splitting ("no", "bbox", "full"); integrate:
        keywords for integrate1d / integrate2d on the image of ones (correctSolidAngle,
        polarization_factor, flat, ...), the corrections the data will get. ai's mask is in the matrix."""
        import scipy.sparse
        from pyFAI.method_registry import IntegrationMethod

        from .. import _bslz4 as _ext
        from .._matrix import normalised

        dim = 1 if npt_azim is None else 2
        method = IntegrationMethod.select_one_available((split, "csc", "cython"), dim=dim)
        ones = np.ones(ai.detector.shape, np.float32)
        if dim == 1:
            res = ai.integrate1d(ones, npt, unit=unit, method=method, **integrate)
            norm, azimuthal = np.asarray(res.sum_normalization).ravel(), None
        else:
            res = ai.integrate2d(ones, npt, npt_azim, unit=unit, method=method, **integrate)
            norm = np.asarray(res.sum_normalization).T.ravel()  # radial-major, as the rows
            azimuthal = res.azimuthal
        matrix = normalised(ai.engines[method].engine, ones.size)
        assert isinstance(matrix, _ext.IntegrationMatrix)
        row_start, pixel, weight, _fixed = matrix.csr_arrays()
        csc = scipy.sparse.csr_matrix((weight, pixel, row_start), shape=(matrix.bins, matrix.pixels)).tocsc()
        return cls(csc, norm, ai.detector.shape, unit, radial=res.radial, azimuthal=azimuthal,
                   kind="powder1d" if dim == 1 else "powder2d", poni=poni_text(ai))

    def ai(self):
        """The pyFAI AzimuthalIntegrator of the poni text."""
        from pyFAI import load

        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "geometry.poni")
            with open(path, "w") as f:
                f.write(self.poni)
            return load(path)

    def intensity(self, powder, scale=None):
        """Normalised intensity of a summed powder ((nbins,) or (nframes, nbins)): integer sums
        divided by scale (the decoder's power of two) first. Empty bins (norm 0) are 0, as in pyFAI."""
        p = np.asarray(powder, np.float64)
        if scale is not None:
            p = p * (1.0 / scale)  # a power of two: exact
        if self.kind == "moment":
            p = p[..., :self.nbins // 2]
        out = np.zeros_like(p)
        norm = self.norm[:p.shape[-1]]
        np.divide(p, norm, out=out, where=norm > 0)
        if self.offset is not None:
            out = out + self.offset
        return out

    def rings(self, ranges, background=None):
        """A "rings" Integrator from this powder2d one: for each (lower, upper) of ranges (in unit)
        and each azimuth, the sum over the radial bins whose centre lies in [lower, upper) of the
        normalised intensity, less the sum over them of background (one value a radial bin).
        The normalisation is in the weights (norm 1): use a float sum (exact=False)."""
        import scipy.sparse

        if self.kind != "powder2d":
            raise ValueError("rings needs a powder2d integrator, this is %r" % self.kind)
        nrad, naz = len(self.radial), len(self.azimuthal)
        ranges = np.asarray(ranges, np.float64).reshape(-1, 2)
        inverse = np.zeros(self.norm.size)
        np.divide(1.0, self.norm, out=inverse, where=self.norm > 0)
        inverse = inverse.reshape(nrad, naz)
        rows, cols, vals = [], [], []
        offset = np.zeros((naz, len(ranges)))
        for k, (lo, hi) in enumerate(ranges):
            inside = np.flatnonzero((self.radial >= lo) & (self.radial < hi))
            if background is not None:
                offset[:, k] = -np.asarray(background, np.float64)[inside].sum()
            az = np.tile(np.arange(naz), len(inside))
            rad = np.repeat(inside, naz)
            rows.append(az * len(ranges) + k)
            cols.append(rad * naz + az)
            vals.append(inverse[rad, az])
        select = scipy.sparse.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                         shape=(naz * len(ranges), nrad * naz))
        matrix = select.dot(self.csc.tocsr()).astype(np.float32).tocsc()
        return Integrator(matrix, np.ones(matrix.shape[0]), self.shape, self.unit, radial=self.radial,
                          azimuthal=self.azimuthal, kind="rings", poni=self.poni, ring_ranges=ranges,
                          offset=offset.ravel())

    def first_moment(self, q=None):
        """A "moment" Integrator from this powder1d one: its matrix, and under it the same with each
        pixel's weights times its q (in unit; default pyFAI's at the pixel centre), so one product
        gives per bin the sums of signal and of q x signal (mean_q divides them). Float sums only."""
        import scipy.sparse

        if self.kind != "powder1d":
            raise ValueError("first_moment needs a powder1d integrator, this is %r" % self.kind)
        if q is None:
            q = self.ai().array_from_unit(shape=self.shape, typ="center", unit=self.unit)
        q = np.asarray(q, np.float64).ravel()
        if q.size != self.csc.shape[1]:
            raise ValueError("q has %d values for %d pixels" % (q.size, self.csc.shape[1]))
        both = scipy.sparse.vstack([self.csc, self.csc.dot(scipy.sparse.diags(q))]).astype(np.float32).tocsc()
        return Integrator(both, np.concatenate([self.norm, np.zeros(self.nbins)]), self.shape, self.unit,
                          radial=self.radial, kind="moment", poni=self.poni)

    def mean_q(self, powder):
        """Of a "moment" powder: each bin's mean q of the signal (0 where there is none)."""
        if self.kind != "moment":
            raise ValueError("mean_q needs a moment integrator")
        p = np.asarray(powder, np.float64)
        n = self.nbins // 2
        out = np.zeros_like(p[..., :n])
        np.divide(p[..., n:], p[..., :n], out=out, where=p[..., :n] != 0)
        return out

    def save(self, path, compression=True):
        """Write to an HDF5 file (the layout in the module docstring)."""
        import h5py

        with h5py.File(path, "w") as h:
            self._write(h, compression)

    def _write(self, h, compression=True):
        options = {}
        if compression:
            import hdf5plugin

            options = hdf5plugin.Bitshuffle(nelems=0, cname="lz4")
        h.attrs["bslz4_to_sparse_integrator"] = VERSION
        h.attrs["kind"], h.attrs["unit"] = self.kind, self.unit
        h.attrs["shape"], h.attrs["nbins"] = np.array(self.shape), self.nbins
        h.attrs["bins_shape"] = np.array(self.bins_shape)
        if self.poni is not None:
            h["poni"] = self.poni
        h.create_dataset("norm", data=self.norm)
        for name in ("radial", "azimuthal", "ring_ranges", "offset"):
            value = getattr(self, name)
            if value is not None:
                h.create_dataset(name, data=value).attrs["unit"] = "deg" if name == "azimuthal" else self.unit
        g = h.create_group("csc")
        g.attrs["format"], g.attrs["shape"] = "CSC", np.array(self.csc.shape)
        for name, a, dt in (("data", self.csc.data, np.float32), ("indices", self.csc.indices, np.int32),
                            ("indptr", self.csc.indptr, np.int32)):
            a = np.ascontiguousarray(a, dt)
            kw = dict(chunks=(min(len(a), 1 << 16),), **options) if compression and len(a) > 1 else {}
            g.create_dataset(name, data=a, **kw)

    @classmethod
    def load(cls, path):
        """Read a file written by save."""
        import h5py

        with h5py.File(path, "r") as h:
            return cls._read(h, path)

    @classmethod
    def _read(cls, h, where=""):
        import scipy.sparse

        if h.attrs.get("bslz4_to_sparse_integrator") != VERSION:
            raise ValueError("%s is not a version %d integrator file" % (where, VERSION))
        g = h["csc"]
        if g.attrs["format"] != "CSC":
            raise ValueError("%s: the matrix is %r, not CSC" % (where, g.attrs["format"]))
        csc = scipy.sparse.csc_matrix((g["data"][()], g["indices"][()], g["indptr"][()]), shape=tuple(g.attrs["shape"]))
        extra = {n: h[n][()] for n in ("radial", "azimuthal", "ring_ranges", "offset") if n in h}
        poni = h["poni"][()] if "poni" in h else None
        if isinstance(poni, bytes):
            poni = poni.decode("utf-8")
        return cls(csc, h["norm"][()], tuple(h.attrs["shape"]), h.attrs["unit"], kind=h.attrs["kind"], poni=poni,
                   **extra)


class IntegratorStack:
    """Several Integrators of one detector as one matrix (blocks: name -> Integrator, in order):
    csc, the blocks' matrices stacked; slices, name -> its rows; raw(powder) and
    split(powder, scale) the rows and intensities of each block."""

    def __init__(self, blocks):
        import scipy.sparse

        self.blocks = dict(blocks)
        shapes = set(b.shape for b in self.blocks.values())
        if len(shapes) != 1:
            raise ValueError("the blocks are for detectors of different shapes: %r" % shapes)
        self.shape = shapes.pop()
        self.slices, n = {}, 0
        for name, b in self.blocks.items():
            self.slices[name] = slice(n, n + b.nbins)
            n += b.nbins
        self.csc = scipy.sparse.vstack([b.csc for b in self.blocks.values()]).astype(np.float32).tocsc()
        self.nbins = n

    def raw(self, powder):
        p = np.asarray(powder)
        return {name: p[..., rows] for name, rows in self.slices.items()}

    def split(self, powder, scale=None):
        return {name: self.blocks[name].intensity(v, scale) for name, v in self.raw(powder).items()}

    def save(self, path, compression=True):
        """The blocks in one HDF5 file, a group each."""
        import h5py

        with h5py.File(path, "w") as h:
            h.attrs["bslz4_to_sparse_integrator_stack"] = VERSION
            h.attrs["names"] = np.array(list(self.blocks), dtype="S")
            for name, b in self.blocks.items():
                b._write(h.create_group(name), compression)

    @classmethod
    def load(cls, path):
        import h5py

        with h5py.File(path, "r") as h:
            if h.attrs.get("bslz4_to_sparse_integrator_stack") != VERSION:
                raise ValueError("%s is not a version %d integrator stack" % (path, VERSION))
            names = [n.decode() if isinstance(n, bytes) else n for n in h.attrs["names"]]
            return cls({n: Integrator._read(h[n], path) for n in names})


def poni_text(ai):
    """The .poni text of a pyFAI AzimuthalIntegrator."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "geometry.poni")
        ai.save(path)
        with open(path) as f:
            return f.read()
