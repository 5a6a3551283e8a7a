"""bslz4-matrix: the matrix file `bslz4 sparse --matrix` reads, made by pyFAI from a PONI file (or
pyFAI's geometry arguments), so its powders are pyFAI's integrate1d / integrate2d results.

    bslz4-matrix GEOMETRY.poni -o matrix.h5 --npt 2000 [--unit q_nm^-1] [--method bbox]
    bslz4-matrix GEOMETRY.poni -o matrix.h5 --npt 1500 --npt-azim 72     # 2D, as integrate2d
    bslz4 sparse scan.h5 -o out.h5 --cut 10 --matrix matrix.h5:/matrix
"""
import argparse
import os
import sys

import numpy as np

from . import matrix_file


def _parser():
    p = argparse.ArgumentParser(
        prog="bslz4-matrix", description=__doc__.splitlines()[0],
        epilog="Corrections: solid angle (on unless --no-solid-angle) and polarisation (--polarization), as "
               "pyFAI's; dark and flat-field corrections are not applied (not linear in the sums). The mask "
               "is pyFAI's convention (nonzero = masked), the same file bslz4 sparse --mask takes.")
    p.add_argument("poni", nargs="?", help="pyFAI geometry file (.poni); or give --dist etc. with --detector/--pixel")
    p.add_argument("-o", "--output", required=True, help="FILE.h5[:GROUP] to write (group /matrix when not given)")
    p.add_argument("--npt", type=int, required=True, help="radial bins")
    p.add_argument("--npt-azim", type=int, help="azimuthal bins: a 2D integration, as integrate2d")
    p.add_argument("--unit", default="2th_deg", help="radial unit, pyFAI's names: 2th_deg, 2th_rad, q_nm^-1, q_A^-1, "
                                                     "r_mm, r_m, ... (default 2th_deg)")
    p.add_argument("--azimuth-unit", default="chi_deg", help="azimuthal unit for 2D (default chi_deg)")
    p.add_argument("--method", default="bbox", choices=matrix_file.SPLITS,
                   help="pyFAI's pixel splitting (its CSR integrator): no, bbox (default, pyFAI's), pseudo, full")
    p.add_argument("--shape", help="NI,NJ: the frames' shape, when the detector does not say it")
    p.add_argument("--mask", help="FILE[:PATH]: a mask, nonzero = masked (.npy, .edf / .tif / .cbf through "
                                  "fabio, or an HDF5 FILE:PATH)")
    p.add_argument("--radial-range", help="A:B in the radial unit")
    p.add_argument("--azimuth-range", help="A:B in the azimuthal unit (2D)")
    p.add_argument("--polarization", type=float, help="polarisation factor (-1 to 1), as pyFAI's polarization_factor")
    p.add_argument("--no-solid-angle", action="store_true", help="no solid-angle correction (pyFAI's "
                                                                  "correctSolidAngle=False)")
    g = p.add_argument_group("geometry without a PONI file (pyFAI's names)")
    for name in ("dist", "poni1", "poni2", "rot1", "rot2", "rot3", "wavelength", "pixel1", "pixel2"):
        g.add_argument("--" + name, type=float)
    g.add_argument("--detector", help="pyFAI detector name (Eiger2_4M, Pilatus1M, ...)")
    p.add_argument("--overwrite", action="store_true", help="replace an existing output file")
    return p


def _range(text, what):
    if text is None:
        return None
    try:
        a, b = (float(x) for x in text.split(":"))
    except ValueError:
        raise SystemExit("bslz4-matrix: %s %r: give A:B" % (what, text))
    return (a, b)


def read_mask(spec):
    """A mask file: .npy, fabio's formats, or HDF5 FILE:PATH."""
    path, sep, inner = spec.rpartition(":")
    if sep and os.path.exists(path) and not os.path.exists(spec):
        import h5py

        with h5py.File(path, "r") as f:
            if inner not in f:
                raise SystemExit("bslz4-matrix: %s has no dataset %s" % (path, inner))
            return np.asarray(f[inner][()])
    if not os.path.exists(spec):
        raise SystemExit("bslz4-matrix: no mask file %s" % spec)
    if spec.endswith(".npy"):
        return np.load(spec)
    try:
        import fabio
    except ImportError:
        raise SystemExit("bslz4-matrix: reading %s needs fabio (pip install fabio)" % spec)
    return np.asarray(fabio.open(spec).data)


def integrator(a):
    """pyFAI's AzimuthalIntegrator from the PONI file or the geometry arguments."""
    import pyFAI

    geometry = {k: getattr(a, k) for k in ("dist", "poni1", "poni2", "rot1", "rot2", "rot3", "wavelength")
                if getattr(a, k) is not None}
    if a.poni:
        if not os.path.exists(a.poni):
            raise SystemExit("bslz4-matrix: no PONI file %s" % a.poni)
        ai = pyFAI.load(a.poni)
        for k, v in geometry.items():
            setattr(ai, k, v)
        return ai
    if "dist" not in geometry:
        raise SystemExit("bslz4-matrix: give a PONI file, or the geometry (--dist, --poni1, --poni2 ...)")
    from pyFAI.integrator.azimuthal import AzimuthalIntegrator

    if a.detector:
        return AzimuthalIntegrator(detector=a.detector, **geometry)
    if a.pixel1 is None or a.pixel2 is None:
        raise SystemExit("bslz4-matrix: without a PONI file, give --detector or --pixel1 and --pixel2")
    return AzimuthalIntegrator(pixel1=a.pixel1, pixel2=a.pixel2, **geometry)


def frame_shape(a, ai, mask):
    shapes = []
    if a.shape:
        try:
            shapes.append(("--shape", tuple(int(x) for x in a.shape.split(","))))
        except ValueError:
            raise SystemExit("bslz4-matrix: --shape %r: give NI,NJ" % a.shape)
    if mask is not None:
        shapes.append(("the mask", tuple(mask.shape)))
    detector = getattr(ai.detector, "shape", None) or getattr(ai.detector, "max_shape", None)
    if detector:
        shapes.append(("the detector (%s)" % ai.detector.name, tuple(detector)))
    if not shapes:
        raise SystemExit("bslz4-matrix: the detector does not say its shape: give --shape NI,NJ or --mask")
    for (name, s) in shapes[1:]:
        if s != shapes[0][1]:
            raise SystemExit("bslz4-matrix: %s is %s but %s is %s" % (shapes[0][0], shapes[0][1], name, s))
    return shapes[0][1]


def main(argv=None):
    a = _parser().parse_args(argv)
    if a.npt < 1 or (a.npt_azim is not None and a.npt_azim < 1):
        raise SystemExit("bslz4-matrix: --npt and --npt-azim must be at least 1")
    try:
        import pyFAI  # noqa: F401
    except ImportError:
        raise SystemExit("bslz4-matrix needs pyFAI (pip install pyFAI)")
    ai = integrator(a)
    mask = read_mask(a.mask) if a.mask else None
    shape = frame_shape(a, ai, mask)
    try:
        m = matrix_file.make(ai, shape, a.npt, a.npt_azim, unit=a.unit, azimuth_unit=a.azimuth_unit, split=a.method,
                             mask=mask, radial_range=_range(a.radial_range, "--radial-range"),
                             azimuth_range=_range(a.azimuth_range, "--azimuth-range"),
                             polarization_factor=a.polarization, solid_angle=not a.no_solid_angle)
        path, group = matrix_file.write(m, a.output, poni_text=str(ai), made_by=" ".join(["bslz4-matrix"] + (argv or sys.argv[1:])),
                                        overwrite=a.overwrite, inputs=[a.poni, a.mask and a.mask.rpartition(":")[0] or a.mask])
    except (ValueError, FileExistsError) as e:
        raise SystemExit("bslz4-matrix: %s" % e)
    bins = m["shape"][0]
    print("bslz4-matrix: %s:%s: %d bins (%s), %d weights over %d x %d pixels, %s, corrections: %s"
          % (path, group, bins, "%d x %d azimuthal x radial" % (m["npt_azim"], m["npt_rad"]) if a.npt_azim else
             "%d radial" % bins, len(m["data"]), shape[0], shape[1], m["method"], m["corrections"]))
    print("  use: bslz4 sparse SCAN.h5 -o OUT.h5 --cut C --matrix %s:%s" % (path, group))
    return 0


if __name__ == "__main__":
    sys.exit(main())
