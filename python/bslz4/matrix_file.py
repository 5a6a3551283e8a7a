"""Matrix files: an azimuthal integration as pyFAI defines it, stored for `bslz4 sparse --matrix`
and for chunk2sparseCSC.

A matrix file's group holds pyFAI's sparse matrix (`data` float32, `indices` and `indptr` int32,
CSR by bin, attribute `shape` = (bins, pixels)), which is all `bslz4 sparse --matrix` needs, and,
when made by bslz4-matrix (`make`), what turns its sums into pyFAI's intensities:

- `radial` (float64, attribute `unit`): the radial bin centres, as pyFAI's result's `radial`;
- `azimuthal` (float64, attribute `unit`): for a 2D integration, the azimuthal bin centres;
  the bins are then stored azimuth-major (bin = azimuthal index x npt_rad + radial index), so a
  frame's sums reshape to pyFAI's (npt_azim, npt_rad);
- `correction` (float32, a value a pixel): the per-pixel factor pyFAI divides by, its solid
  angle times its polarisation factor (as float32, as pyFAI multiplies them); 1 without either.
  A bin's normalisation is sum(weight x correction) over the pixels the mask leaves, in float64
  in the matrix's order, which is pyFAI's `sum_normalization`, and intensity = sums /
  normalisation, pyFAI's `empty` where the normalisation is 0.
- attributes `npt_rad`, `npt_azim` (1 for 1D), `empty`, `method`, `poni` (the geometry),
  `corrections`, `made_by`.

Dark and flat-field corrections are not applied (they are not linear in the frame's sums: give
pyFAI the dark-subtracted frames if you need them); the normalisation factor is 1.
"""
import hashlib
import os

import numpy as np

SPLITS = ("no", "bbox", "pseudo", "full")


class MatrixFile:
    """A matrix file's group, read whole: the matrix as scipy arrays and its axes.

    csr: (data, indices, indptr) of the bins x pixels CSR matrix; shape: (bins, pixels);
    radial, azimuthal: bin centres (None when absent); radial_unit, azimuthal_unit; npt_rad,
    npt_azim; correction: per-pixel float32 factors (None: a plain matrix, no intensities)."""

    def __init__(self, spec):
        import h5py

        path, group = split_spec(spec)
        self.spec = "%s:%s" % (path, group)
        with h5py.File(path, "r") as f:
            if group not in f:
                raise ValueError("%s: no group %s" % (path, group))
            g = f[group]
            for name in ("data", "indices", "indptr"):
                if name not in g:
                    raise ValueError("%s: %s has no %s: not a matrix file" % (path, group, name))
            self.csr = (g["data"][()], g["indices"][()], g["indptr"][()])
            shape = g.attrs.get("shape")
            self.shape = tuple(int(x) for x in shape) if shape is not None else None
            self.radial = g["radial"][()] if "radial" in g else None
            self.radial_unit = _text(g["radial"].attrs.get("unit", "")) if "radial" in g else ""
            self.azimuthal = g["azimuthal"][()] if "azimuthal" in g else None
            self.azimuthal_unit = _text(g["azimuthal"].attrs.get("unit", "")) if "azimuthal" in g else ""
            self.correction = g["correction"][()] if "correction" in g else None
            self.npt_rad = int(g.attrs.get("npt_rad", len(self.csr[2]) - 1))
            self.npt_azim = int(g.attrs.get("npt_azim", 1))
            self.empty = float(g.attrs.get("empty", 0.0))
        if self.shape is None:
            self.shape = (len(self.csr[2]) - 1, int(self.csr[1].max()) + 1 if self.csr[1].size else 0)

    # As a scipy csr_matrix to chunk2sparseCSC (and to anything taking data, indices, indptr).
    format = "csr"

    @property
    def data(self):
        return self.csr[0]

    @property
    def indices(self):
        return self.csr[1]

    @property
    def indptr(self):
        return self.csr[2]

    @property
    def bins(self):
        return self.shape[0]

    def csr_matrix(self):
        """The matrix as a scipy csr_matrix (what chunk2sparseCSC takes)."""
        import scipy.sparse

        return scipy.sparse.csr_matrix(self.csr, shape=self.shape)

    def normalisation(self, mask=None):
        """Each bin's sum(weight x correction) over the pixels `mask` leaves (the library's
        convention: nonzero = use; None: every pixel), float64, in the matrix's order."""
        if self.correction is None:
            raise ValueError("%s has no per-pixel correction: a plain matrix (make one with bslz4-matrix "
                             "to have intensities)" % self.spec)
        c = self.correction.ravel().astype(np.float64)
        if mask is not None:
            mask = np.asarray(mask).ravel()
            if mask.size != c.size:
                raise ValueError("the mask has %d pixels, the matrix %d" % (mask.size, c.size))
            c = np.where(mask != 0, c, 0.0)  # w x 0 adds nothing to a sum
        # scipy's CSR product adds each row's terms in order, in float64, as pyFAI does.
        return self.csr_matrix().astype(np.float64) @ c

    def intensity(self, powder, mask=None):
        """pyFAI's intensity from powders (frames, bins) or one (bins,): sums / normalisation,
        `empty` where the normalisation is 0; 2D ones shaped (..., npt_azim, npt_rad)."""
        norm = self.normalisation(mask)
        powder = np.asarray(powder, np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(norm != 0, powder / np.where(norm != 0, norm, 1.0), self.empty)
        return self.shaped(out)

    def shaped(self, rows):
        """Rows of bins shaped as pyFAI orders them: (..., npt_azim, npt_rad) for 2D."""
        rows = np.asarray(rows)
        if self.npt_azim > 1:
            return rows.reshape(rows.shape[:-1] + (self.npt_azim, self.npt_rad))
        return rows


def load_matrix(spec):
    """A matrix file's group ('FILE.h5:GROUP', bslz4-matrix's output; FILE.h5 alone: /matrix):
    chunk2sparseCSC takes it as its matrix, and then gives pyFAI's intensities beside the sums."""
    return MatrixFile(spec)


def _text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def split_spec(spec):
    """'FILE.h5:GROUP' -> (FILE.h5, /GROUP); 'FILE.h5' alone -> (FILE.h5, /matrix)."""
    path, sep, group = str(spec).rpartition(":")
    if not sep:
        return str(spec), "/matrix"
    group = group.strip("/")
    return path, "/" + (group or "matrix")


def make(ai, shape, npt, npt_azim=None, unit="2th_deg", azimuth_unit="chi_deg", split="bbox", mask=None,
         radial_range=None, azimuth_range=None, polarization_factor=None, solid_angle=True):
    """pyFAI's integration matrix and axes for AzimuthalIntegrator `ai` on frames of `shape`, as
    integrate1d (npt_azim None) or integrate2d would use them with method (split, "csr",
    "cython"). mask: pyFAI's convention (nonzero = masked), or None. Returns a dict of the
    matrix file's arrays and attributes (write() stores it)."""
    method = (split, "csr", "cython")
    zeros = np.zeros(shape, np.float32)
    common = dict(method=method, unit=unit, mask=mask, radial_range=radial_range,
                  polarization_factor=polarization_factor, correctSolidAngle=solid_angle)
    if npt_azim is None:
        res = ai.integrate1d(zeros, npt, **common)
    else:
        # As a user calls it: pyFAI's radial bins differ between unit="2th_deg" and the
        # pair ("2th_deg", "chi_deg") it stands for, so the pair only for another azimuthal unit.
        units = unit if azimuth_unit in (None, "chi_deg") else (unit, azimuth_unit)
        res = ai.integrate2d(zeros, npt, npt_azim, azimuth_range=azimuth_range, unit=units,
                             **{k: v for k, v in common.items() if k != "unit"})
    used = res.method
    if used.split != split or used.algo_lower != "csr":
        raise ValueError("pyFAI has no %s-split CSR integrator for this (it offered %s): choose another --method"
                         % (split, used))
    engine = ai.engines[used].engine
    data = np.ascontiguousarray(engine.data, np.float32)
    indices = np.ascontiguousarray(engine.indices, np.int32)
    indptr = np.ascontiguousarray(engine.indptr, np.int64)
    bins = len(indptr) - 1
    npix = int(np.prod(shape))
    out = {"method": str(used), "npt_rad": npt, "npt_azim": 1 if npt_azim is None else npt_azim,
           "radial": np.asarray(res.radial, np.float64), "radial_unit": str(res.unit[0] if isinstance(res.unit, tuple)
                                                                          else res.unit),
           "empty": float(getattr(ai, "empty", 0.0) or 0.0)}
    if npt_azim is not None:
        # pyFAI's 2D bins are radial-major (bin = radial x npt_azim + azimuthal); stored
        # azimuth-major so a frame's sums reshape to its (npt_azim, npt_rad) result.
        order = np.arange(bins).reshape(npt, npt_azim).T.ravel()
        starts, ends = indptr[order], indptr[order + 1]
        pieces = [np.arange(s, e) for s, e in zip(starts, ends)]
        take = np.concatenate(pieces) if pieces else np.zeros(0, np.int64)
        data, indices = data[take], indices[take]
        indptr = np.concatenate(([0], np.cumsum(ends - starts)))
        out["azimuthal"] = np.asarray(res.azimuthal, np.float64)
        out["azimuthal_unit"] = str(res.unit[1] if isinstance(res.unit, tuple) else azimuth_unit)
    if indptr[-1] >= 2**31:
        raise ValueError("the matrix has %d entries: more than int32 indptr holds" % indptr[-1])
    out.update(data=data, indices=indices, indptr=indptr.astype(np.int32), shape=(bins, npix))
    # The per-pixel factor pyFAI divides by, as its preprocessing makes it (float32 products).
    correction = np.ones(shape, np.float32)
    names = []
    if solid_angle:
        correction = correction * ai.solidAngleArray(shape).astype(np.float32)
        names.append("solid angle")
    if polarization_factor is not None:
        correction = correction * ai.polarization(shape, polarization_factor).astype(np.float32)
        names.append("polarisation %g" % polarization_factor)
    out["correction"] = correction.astype(np.float32).ravel()
    out["corrections"] = ", ".join(names) if names else "none"
    return out


def write(matrix, spec, poni_text="", made_by="", overwrite=False, inputs=()):
    """Writes make()'s dict into FILE.h5:GROUP. The file is written beside itself and renamed
    into place when complete; an existing file is refused unless overwrite; a file given as an
    input (`inputs`: the PONI, the mask) is never written."""
    import h5py

    path, group = split_spec(spec)
    for i in inputs:
        if i and os.path.exists(i) and os.path.exists(path) and os.path.samefile(i, path):
            raise ValueError("the output %s is an input of the run (%s): not written" % (path, i))
    if os.path.exists(path) and not overwrite:
        raise FileExistsError("%s exists: give --overwrite to replace it" % path)
    part = "%s.part-%d" % (path, os.getpid())
    try:
        with h5py.File(part, "w") as f:
            g = f.require_group(group)
            for name in ("data", "indices", "indptr", "correction"):
                g.create_dataset(name, data=matrix[name], compression="gzip", shuffle=True)
            g.attrs["shape"] = np.asarray(matrix["shape"], np.int64)
            r = g.create_dataset("radial", data=matrix["radial"])
            r.attrs["unit"] = matrix["radial_unit"]
            if "azimuthal" in matrix:
                a = g.create_dataset("azimuthal", data=matrix["azimuthal"])
                a.attrs["unit"] = matrix["azimuthal_unit"]
            for name in ("npt_rad", "npt_azim"):
                g.attrs[name] = np.int64(matrix[name])
            g.attrs["empty"] = np.float64(matrix["empty"])
            g.attrs["method"] = matrix["method"]
            g.attrs["corrections"] = matrix["corrections"]
            g.attrs["poni"] = poni_text
            g.attrs["made_by"] = made_by
            g.attrs["checksum"] = hashlib.sha256(np.ascontiguousarray(matrix["data"]).tobytes() +
                                                 np.ascontiguousarray(matrix["indices"]).tobytes()).hexdigest()
        os.replace(part, path)
    except BaseException:
        if os.path.exists(part):
            os.remove(part)
        raise
    return path, group

