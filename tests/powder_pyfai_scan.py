#!/usr/bin/python3
"""`bslz4 sparse --matrix` with a matrix file made as bslz4-matrix makes it, against pyFAI itself
on the same frames: a scan written by h5py + hdf5plugin (bitshuffle-LZ4), a mask in pyFAI's
convention given to both, 1D (q_nm^-1, polarisation 0.95) and 2D (2th_deg x chi_deg). The output's
powder must be pyFAI's sum_signal and powder_normalisation its sum_normalization bit for bit,
powder_intensity its intensity (float32, as pyFAI returns it), powder_radial / powder_azimuthal
its axes with their units, and a 2D powder shaped (frames, npt_azim, npt_rad) as pyFAI's results.
Runs under the venv tools/bootstrap.sh makes; exits 77 without pyFAI, h5py or hdf5plugin.
"""
import importlib.util
import os
import pathlib
import subprocess
import tempfile
import warnings

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    import pyFAI
    from pyFAI.integrator.azimuthal import AzimuthalIntegrator
    import scipy  # noqa: F401 (matrix_file's normalisation)
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs pyFAI and scipy)")

# The matrix file's writer from the source tree (the package is installed only after meson test).
source = pathlib.Path(__file__).resolve().parents[1] / "python" / "bslz4" / "matrix_file.py"
spec = importlib.util.spec_from_file_location("matrix_file", source)
matrix_file = importlib.util.module_from_spec(spec)
spec.loader.exec_module(matrix_file)

TOOL = os.environ["BSLZ4_TOOL"]
SHAPE = (195, 487)
check = interop_env.check


with tempfile.TemporaryDirectory() as tmp:
    tmp = pathlib.Path(tmp)
    rng = np.random.default_rng(11)
    frames = rng.poisson(2, (5,) + SHAPE).astype(np.uint16)
    frames[2, 50:70, 300:330] += 700
    mask = np.zeros(SHAPE, np.uint8)  # pyFAI's and NeXus's convention: nonzero = masked
    mask[:, 240:247] = 1
    scan = tmp / "scan.h5"
    with h5py.File(scan, "w") as f:
        f.create_dataset("/entry/data/data", data=frames, chunks=(1,) + SHAPE, **hdf5plugin.Bitshuffle(cname="lz4"))
    with h5py.File(tmp / "mask.h5", "w") as f:
        f["mask"] = mask
    ai = AzimuthalIntegrator(dist=0.12, poni1=0.015, poni2=0.04, rot1=0.02, detector="Pilatus100k", wavelength=1e-10)
    for name, npt_azim, unit, pol in (("1D", None, "q_nm^-1", 0.95), ("2D", 18, "2th_deg", None)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            made = matrix_file.make(ai, SHAPE, 140, npt_azim, unit=unit, split="bbox", mask=mask,
                                    polarization_factor=pol)
        matrix_file.write(made, str(tmp / f"m{name}.h5") + ":/m")
        out = tmp / f"out{name}.h5"
        r = subprocess.run([TOOL, "sparse", str(scan), "-o", str(out), "--cut", "0", "--matrix",
                            f"{tmp}/m{name}.h5:/m", "--mask", f"{tmp}/mask.h5:/mask", "--quiet"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"{name}: bslz4 sparse --matrix runs ({r.stderr.strip()[-300:]})")
        if r.returncode:
            continue
        with h5py.File(out, "r") as f:
            g = f["/entry/data/data"]
            powder, intensity = g["powder"][()], g["powder_intensity"][()]
            norm, radial = g["powder_normalisation"][()], g["powder_radial"]
            want_shape = (5, npt_azim, 140) if npt_azim else (5, 140)
            check(powder.shape == want_shape and intensity.shape == want_shape,
                  f"{name}: powder and powder_intensity shaped {want_shape} (got {powder.shape}, {intensity.shape})")
            check(radial.attrs["units"] == unit, f"{name}: powder_radial's units {radial.attrs['units']!r} == {unit!r}")
            exact = equal_int = True
            for k in range(5):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    kw = dict(method=("bbox", "csr", "cython"), unit=unit, mask=mask, polarization_factor=pol)
                    ref = ai.integrate1d(frames[k], 140, **kw) if npt_azim is None else \
                        ai.integrate2d(frames[k], 140, npt_azim, **kw)
                exact &= np.array_equal(powder[k], ref.sum_signal)
                equal_int &= np.array_equal(intensity[k].astype(ref.intensity.dtype), ref.intensity)
            check(exact, f"{name}: powder == pyFAI's sum_signal, bit for bit, every frame")
            check(np.array_equal(norm, ref.sum_normalization), f"{name}: powder_normalisation == pyFAI's sum_normalization")
            check(equal_int, f"{name}: powder_intensity as float32 == pyFAI's intensity, every frame")
            check(np.array_equal(radial[()], ref.radial), f"{name}: powder_radial == pyFAI's radial")
            if npt_azim:
                az = g["powder_azimuthal"]
                check(np.array_equal(az[()], ref.azimuthal) and az.attrs["units"] == "chi_deg",
                      f"{name}: powder_azimuthal == pyFAI's azimuthal, units chi_deg")
            empty = ref.sum_normalization == 0
            check(np.all(intensity[-1][empty] == g["powder_intensity"].attrs["empty"]),
                  f"{name}: empty bins ({int(empty.sum())}) hold pyFAI's empty value")

    # A matrix file whose axes do not fit its matrix is refused, naming the file, before any output.
    bad = tmp / "bad.h5"
    with h5py.File(tmp / "m1D.h5", "r") as src, h5py.File(bad, "w") as dst:
        src.copy("/m", dst, "m")
        dst["m"].attrs["npt_rad"] = np.int64(7)
    r = subprocess.run([TOOL, "sparse", str(scan), "-o", str(tmp / "never.h5"), "--cut", "0", "--matrix",
                        f"{bad}:/m", "--quiet"], capture_output=True, text=True)
    check(r.returncode != 0 and "npt_rad" in r.stderr and str(bad) in r.stderr and not (tmp / "never.h5").exists(),
          f"axes that do not fit the matrix are refused, naming the file ({r.stderr.strip()[-200:]})")
    with h5py.File(bad, "a") as f:  # a correction of another size: refused before it is read
        f["m"].attrs["npt_rad"] = np.int64(140)
        del f["m/correction"]
        f["m/correction"] = np.ones(7, np.float32)
    r = subprocess.run([TOOL, "sparse", str(scan), "-o", str(tmp / "never.h5"), "--cut", "0", "--matrix",
                        f"{bad}:/m", "--quiet"], capture_output=True, text=True)
    check(r.returncode != 0 and "correction has 7 values" in r.stderr and not (tmp / "never.h5").exists(),
          f"a correction of the wrong size is refused ({r.stderr.strip()[-200:]})")

print("pyFAI %s" % pyFAI.version)
interop_env.finish()
