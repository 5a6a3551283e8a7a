#!/usr/bin/python3
"""`bslz4 sparse --imaged11 DATASET.h5` against ImageD11 2.1's own segmenter job on the same
dataset file: a Bliss master with two scans, each reaching LImA files of one name
(scan0001/eiger_0000.h5, scan0002/eiger_0000.h5) through virtual datasets; ImageD11's DataSet
imports them and saves the dataset file, its SegmenterOptions (cut, howmany, pixels_in_spot, an
EDF maskfile) are saved into it as lima_segmenter.setup does, and lima_segmenter.main runs the
job. Ours must write the same files under the same sparsefiles names (the folder made), with the
same row, col, intensity and nnz, for DataSet.import_nnz to read alike; and the options given on
the command line must take the file's place. Exits 77 without h5py, hdf5plugin, fabio or ImageD11.
"""
import contextlib
import io
import os
import shutil
import subprocess
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    import fabio
    from ImageD11.sinograms import dataset, lima_segmenter
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
LIMA = "/entry_0000/ESRF-ID11/eiger/data"
check = interop_env.check


def frames(rng, n, ni, nj):
    f = rng.poisson(0.4, (n, ni, nj)).astype(np.uint16)
    for k in range(n):  # a few spots, some bright enough for howmany to cut
        for _ in range(4):
            i, j = rng.integers(2, ni - 3), rng.integers(2, nj - 3)
            f[k, i - 1:i + 2, j - 1:j + 2] += rng.integers(5, 400, (3, 3)).astype(np.uint16)
    return f


def make_dataset(tmp, rng, ni=48, nj=64, per_file=10):
    sample, dset = "sample", "dataset"
    raw = os.path.join(tmp, "raw")
    datapath = os.path.join(raw, sample, sample + "_" + dset)
    master_name = os.path.join(datapath, sample + "_" + dset + ".h5")
    os.makedirs(datapath)
    with h5py.File(master_name, "w") as master:
        for s in (1, 2):
            name = "scan%04d/eiger_0000.h5" % s
            os.makedirs(os.path.join(datapath, "scan%04d" % s))
            with h5py.File(os.path.join(datapath, name), "w") as f:
                f.create_dataset(LIMA, data=frames(rng, per_file, ni, nj), chunks=(1, ni, nj),
                                 **hdf5plugin.Bitshuffle(cname="lz4"))
            layout = h5py.VirtualLayout(shape=(per_file, ni, nj), dtype=np.uint16)
            layout[0:per_file] = h5py.VirtualSource(name, LIMA, shape=(per_file, ni, nj))[0:per_file]
            g = master.create_group("%d.1" % s)
            g["title"] = "fscan rot 0 15 %d 0.1" % per_file
            g.create_group("measurement").create_virtual_dataset("eiger", layout)
            g["measurement/rot_center"] = np.arange(per_file) * 15.0
            g["instrument/positioners/dty"] = float(s)
    mask = np.zeros((ni, nj), np.uint8)  # ImageD11's maskfile: 1 = masked
    mask[:, 30:32] = 1
    edf = os.path.join(tmp, "mask.edf")
    fabio.edfimage.EdfImage(data=mask).write(edf)
    ds = dataset.DataSet(dataroot=raw, analysisroot=os.path.join(tmp, "analysis"), sample=sample, dset=dset,
                         detector="eiger", omegamotor="rot_center", dtymotor="dty")
    with contextlib.redirect_stdout(io.StringIO()):
        ds.import_all()
        ds.save()
    return ds, edf


def main():
    rng = np.random.default_rng(5)
    with tempfile.TemporaryDirectory() as tmp:
        ds, edf = make_dataset(tmp, rng)
        dsfile = ds.dsfile
        check(len(ds.sparsefiles) == 2 and len(set(ds.sparsefiles)) == 2,
              f"DataSet names two sparse files for two eiger_0000.h5: {ds.sparsefiles}")
        options = lima_segmenter.SegmenterOptions(cut=2, howmany=30, pixels_in_spot=3, maskfile=edf, cores_per_job=1,
                                                  files_per_core=8)
        with contextlib.redirect_stdout(io.StringIO()):
            options.save(dsfile, "lima_segmenter")
            os.makedirs(os.path.join(ds.analysispath, "sparsefiles"), exist_ok=True)
            lima_segmenter.main(dsfile, 0)  # ImageD11's own job (jobid 0: every file here)
        theirs = os.path.join(tmp, "theirs")
        shutil.move(os.path.join(ds.analysispath, "sparsefiles"), theirs)
        r = subprocess.run([TOOL, "sparse", "--imaged11", dsfile, "--cpu"], capture_output=True, text=True)
        check(r.returncode == 0, f"bslz4 sparse --imaged11 runs ({r.stderr.strip()[-400:]})")
        for sparse in ds.sparsefiles:
            ours = os.path.join(ds.analysispath, sparse)
            check(os.path.exists(ours), f"ours at {sparse}")
            if not os.path.exists(ours):
                continue
            with h5py.File(os.path.join(theirs, os.path.basename(sparse)), "r") as ft, h5py.File(ours, "r") as fo:
                for name in ("row", "col", "intensity", "nnz"):
                    a, b = ft[LIMA][name][()], fo[LIMA][name][()]
                    check(a.dtype == b.dtype and np.array_equal(a, b), f"{sparse}: {name} equal ({b.size} values)")
                check(fo[LIMA].attrs["mask_source"].startswith(edf), f"{sparse}: the maskfile used ({fo[LIMA].attrs['mask_source']})")
        with contextlib.redirect_stdout(io.StringIO()):
            ds.import_nnz()
        ours_nnz = ds.nnz.copy()
        ours_dir = os.path.join(ds.analysispath, "sparsefiles")
        shutil.move(ours_dir, os.path.join(tmp, "ours"))
        shutil.copytree(theirs, ours_dir)
        with contextlib.redirect_stdout(io.StringIO()):
            ds.import_nnz()
        check(np.array_equal(ours_nnz, ds.nnz), "DataSet.import_nnz reads ours as theirs")
        # The command line takes the file's place: a higher cut lists fewer pixels; an existing
        # output needs --overwrite, as in any campaign.
        r = subprocess.run([TOOL, "sparse", "--imaged11", dsfile, "--cpu", "--cut", "50"], capture_output=True, text=True)
        check(r.returncode == 2 and "--overwrite" in r.stderr, f"existing outputs need --overwrite ({r.stderr.strip()[-200:]})")
        r = subprocess.run([TOOL, "sparse", "--imaged11", dsfile, "--cpu", "--cut", "50", "--overwrite"],
                           capture_output=True, text=True)
        check(r.returncode == 0, f"--cut 50 over the file's cut 2 ({r.stderr.strip()[-200:]})")
        with h5py.File(os.path.join(ds.analysispath, ds.sparsefiles[0]), "r") as fo:
            check(fo[LIMA].attrs["cut"] == 50 and np.all(fo[LIMA]["intensity"][()] > 50), "the command line's cut is used")
        r = subprocess.run([TOOL, "sparse", "--imaged11", os.path.join(tmp, "absent.h5")], capture_output=True, text=True)
        check(r.returncode != 0 and "absent.h5" in r.stderr, "a missing dataset file is named")
        r = subprocess.run([TOOL, "sparse", "--imaged11", dsfile, "-o", os.path.join(tmp, "x.h5")], capture_output=True,
                           text=True)
        check(r.returncode == 2 and "no -o" in r.stderr, "--imaged11 with -o is refused")
    interop_env.finish()


if __name__ == "__main__":
    main()
