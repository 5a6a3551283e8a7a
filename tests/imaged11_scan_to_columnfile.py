#!/usr/bin/python3
"""The whole ImageD11 path, ours against ImageD11 2.1's own, on a Bliss dataset of two scans
(imaged11_dataset_job.make_dataset): ImageD11's way is lima_segmenter.main, then
assemble_label.main (the dataset's sparse file), properties.main (its peaks table) and
DataSet.get_cf_2d / get_cf_4d (the columnfiles); ours is `bslz4 sparse --imaged11 --peaks A`,
then either the same assemble_label.main and `bslz4 peaks`, or `bslz4 peaks --segmenter-files`
straight from the segmenter's files, whose labels it takes. The peaks tables, and the 2D and 4D
columnfiles made from them, must be ImageD11's, for lmlabel and cplabel. Exits 77 without h5py, hdf5plugin, fabio
or ImageD11.
"""
import contextlib
import io
import os
import subprocess
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    from ImageD11.sinograms import assemble_label, dataset, lima_segmenter, properties
    import imaged11_dataset_job as job
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
check = interop_env.check


def table(path):
    with h5py.File(path, "r") as h:
        g = h["pks2d"]
        return [g[n][()] for n in ("ipk", "pk_props", "npk", "glabel")] + [int(g.attrs["nlabel"])]


def columnfiles(dsfile, pksfile):
    ds = dataset.load(dsfile)
    ds.pksfile = pksfile
    ds.splinefile = None
    with contextlib.redirect_stdout(io.StringIO()):
        return ds.get_colfile_from_peaks_dict(), ds.get_colfile_from_peaks_dict(peaks_dict=ds.pk4d)


def main():
    rng = np.random.default_rng(7)
    with tempfile.TemporaryDirectory() as tmp:
        ds, edf = job.make_dataset(tmp, rng, per_file=12)
        dsfile = ds.dsfile
        options = lima_segmenter.SegmenterOptions(cut=1, howmany=100000, pixels_in_spot=1, maskfile=edf, cores_per_job=1,
                                                  files_per_core=8)
        quiet = contextlib.redirect_stdout(io.StringIO())
        with quiet:
            options.save(dsfile, "lima_segmenter")
            os.makedirs(os.path.join(ds.analysispath, "sparsefiles"), exist_ok=True)
            lima_segmenter.main(dsfile, 0)
        results = {}
        sparse = os.path.join(tmp, "sparse_imaged11.h5")
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            assemble_label.main(dsfile, sparse)
        for algorithm in ("lmlabel", "cplabel"):
            pks = os.path.join(tmp, f"pks_imaged11_{algorithm}.h5")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                properties.main(dsfile, sparse, pks, options={"algorithm": algorithm, "nproc": 1})
            results["imaged11", algorithm] = (table(pks), columnfiles(dsfile, pks))
        for algorithm in ("lmlabel", "cplabel"):
            r = subprocess.run([TOOL, "sparse", "--imaged11", dsfile, "--cpu", "--overwrite", "--peaks", algorithm],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"bslz4 sparse --imaged11 --peaks {algorithm} ({r.stderr.strip()[-300:]})")
            pks = os.path.join(tmp, f"pks_files_{algorithm}.h5")
            r = subprocess.run([TOOL, "peaks", dsfile, "--segmenter-files", "-o", pks, "--algorithm", algorithm],
                               capture_output=True, text=True)
            check(r.returncode == 0 and "their labels were used" in r.stdout,
                  f"bslz4 peaks --segmenter-files takes the segmenter's labels ({r.stdout.strip()} {r.stderr.strip()})")
            results["bslz4 files", algorithm] = (table(pks), columnfiles(dsfile, pks))
            ours = os.path.join(tmp, f"sparse_bslz4_{algorithm}.h5")
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                assemble_label.main(dsfile, ours)
            pks = os.path.join(tmp, f"pks_bslz4_{algorithm}.h5")
            r = subprocess.run([TOOL, "peaks", dsfile, "--sparse", ours, "-o", pks, "--algorithm", algorithm],
                               capture_output=True, text=True)
            if os.environ.get("BSLZ4_EXPECT_FILTER_PLUGIN") == "0":
                # assemble_label writes with h5py's own lzf filter, which HDF5 has only as a plugin
                check(r.returncode == 1 and "lzf" in r.stderr and not os.path.exists(pks),
                      f"without HDF5's lzf plugin, assemble_label's file is refused naming the filter ({r.stderr.strip()})")
                continue
            check(r.returncode == 0, f"bslz4 peaks --algorithm {algorithm} ({r.stdout.strip()} {r.stderr.strip()})")
            results["bslz4", algorithm] = (table(pks), columnfiles(dsfile, pks))
        for algorithm in ("lmlabel", "cplabel"):
            for ours in ("bslz4", "bslz4 files"):
                if (ours, algorithm) not in results:
                    continue
                (ta, (a2, a4)), (tb, (b2, b4)) = results["imaged11", algorithm], results[ours, algorithm]
                check(all(np.array_equal(x, y) for x, y in zip(ta[:4], tb[:4])) and ta[4] == tb[4],
                      f"{ours} {algorithm}: the peaks table equals ImageD11's ({len(ta[3])} 2D peaks, {ta[4]} 3D peaks)")
                same = all(sorted(a.titles) == sorted(b.titles) and all(np.array_equal(a[t], b[t]) for t in a.titles)
                           for a, b in ((a2, b2), (a4, b4)))
                check(same, f"{ours} {algorithm}: the 2D ({a2.nrows}) and 4D ({a4.nrows}) columnfiles equal ImageD11's")
    interop_env.finish()


if __name__ == "__main__":
    main()
