#!/usr/bin/python3
"""`bslz4 sparse` against ImageD11's own segmenter (PyPI's ImageD11, in the venv that
tools/bootstrap.sh makes): ImageD11.sinograms.lima_segmenter.segment_lima and `bslz4 sparse`
on the same scan, mask and cut must write the same group (at the input dataset's path), with
the same datasets (row, col, intensity, nnz: names, dtypes, shapes, values) and the same
attributes (itype, nframes, shape0, shape1, npx: values and HDF5 types, strings as
variable-length UTF-8); ImageD11's readers (sparseframe.SparseScan, and the sinograms pipeline:
dataset.DataSet.import_nnz and assemble_label.harvest_masterfile over a Bliss master's LImA
files) must read ours as they read theirs; and our lists must take at most 1.5 times the bytes
of theirs. Exits 77 (skipped) without h5py, hdf5plugin or ImageD11.
"""
import os
import subprocess
import sys
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()
try:
    import fabio
    from ImageD11 import sparseframe
    from ImageD11.sinograms import assemble_label, dataset, lima_segmenter
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
LIMA = "/entry_0000/ESRF-ID11/eiger/data"  # where ImageD11's datasets find a LImA file's frames
IMAGED11_ATTRIBUTES = ("itype", "nframes", "shape0", "shape1", "npx")
LISTS = ("row", "col", "intensity")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def frames_of(rng, n, ni, nj, dtype, background):
    """Poisson background and a few bright spots that move from frame to frame; every frame distinct."""
    frames = rng.poisson(background, (n, ni, nj)).astype(np.float64)
    top = 200.0 if np.dtype(dtype).itemsize == 1 else 3e5 if np.dtype(dtype).itemsize >= 4 else 3e4
    for k in range(n):
        for _ in range(6):
            i, j, w = rng.uniform(0, ni), rng.uniform(0, nj), rng.uniform(0.8, 2.0)
            gi, gj = np.mgrid[0:ni, 0:nj]
            frames[k] += rng.uniform(5, top) * np.exp(-0.5 * ((gi - i) ** 2 + (gj - j) ** 2) / w ** 2)
    if np.issubdtype(dtype, np.integer):
        frames = np.minimum(frames, np.iinfo(dtype).max - 1)
    return frames.astype(dtype)


def write_scan(path, data_path, frames, nexus_mask=None):
    with h5py.File(path, "w") as f:
        f.create_dataset(data_path, data=frames, chunks=(1,) + frames.shape[1:], **hdf5plugin.Bitshuffle(cname="lz4"))
        if nexus_mask is not None:
            f["/entry/instrument/detector/pixel_mask"] = nexus_mask.astype(np.uint32)


def write_masks(tmp, name, mask):
    """The same mask (nonzero = do not use) for both: an EDF file for ImageD11's segmenter (which
    reads it with fabio as 1 = masked), an HDF5 dataset for `bslz4 sparse --mask`."""
    edf, h5 = os.path.join(tmp, name + ".edf"), os.path.join(tmp, name + ".h5")
    fabio.edfimage.EdfImage(data=mask.astype(np.uint8)).write(edf)
    with h5py.File(h5, "w") as f:
        f["mask"] = mask.astype(np.uint8)
    return edf, h5 + ":/mask"


def segment_theirs(src, dst, data_path, cut, maskfile, howmany=None):
    """ImageD11's segmenter as its slurm jobs run it: options, then segment_lima((src, dst, path))."""
    options = lima_segmenter.SegmenterOptions(cut=cut, howmany=howmany or 10**9, pixels_in_spot=1, maskfile=maskfile)
    options.setup()
    lima_segmenter.OPTIONS = options
    lima_segmenter.segment_lima((src, dst, data_path))


def segment_ours(src, dst, data_path, cut, mask_spec=None, extra=()):
    args = [TOOL, "sparse", "--overwrite", src, "-o", dst, "--cut", str(cut), "--dataset", data_path, *extra]
    if mask_spec:
        args += ["--mask", mask_spec]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"bslz4 sparse failed ({r.returncode}): {' '.join(args)}\n{r.stderr}")


def attribute_type(group, name):
    """What HDF5 type an attribute has, as h5py sees it: a string's encoding and length (None:
    variable), else the numpy dtype; and its shape."""
    aid = group.attrs.get_id(name)
    text = h5py.check_string_dtype(aid.dtype)
    return (("string", text.encoding, text.length) if text else ("number", aid.dtype.str)), aid.shape


def compare_files(case, theirs, ours, data_path):
    with h5py.File(theirs, "r") as ft, h5py.File(ours, "r") as fo:
        check(data_path in fo and isinstance(fo[data_path], h5py.Group), f"{case}: no group at {data_path} in ours")
        if data_path not in fo:
            return False
        gt, go = ft[data_path], fo[data_path]
        for name in gt:  # row, col, intensity, nnz
            check(name in go, f"{case}: no dataset {name} in ours")
            if name not in go:
                continue
            dt, do = gt[name], go[name]
            check(dt.dtype == do.dtype, f"{case}: {name} is {do.dtype} in ours, {dt.dtype} in theirs")
            check(dt.shape == do.shape, f"{case}: {name} has shape {do.shape} in ours, {dt.shape} in theirs")
            if dt.shape == do.shape:
                check(np.array_equal(dt[()], do[()]), f"{case}: {name} differs")
        for name in IMAGED11_ATTRIBUTES:
            check(name in gt.attrs, f"{case}: theirs has no attribute {name} (has ImageD11 changed?)")
            check(name in go.attrs, f"{case}: ours has no attribute {name}")
            if name in gt.attrs and name in go.attrs:
                check(attribute_type(gt, name) == attribute_type(go, name),
                      f"{case}: attribute {name} is {attribute_type(go, name)} in ours, {attribute_type(gt, name)} in theirs")
                check(gt.attrs[name] == go.attrs[name], f"{case}: attribute {name} = {go.attrs[name]!r} in ours, "
                                                        f"{gt.attrs[name]!r} in theirs")
        # ours beside theirs: how it was made, and that it is whole
        for name in ("cut", "mask_source", "command_line", "complete", "sources"):
            check(name in go.attrs, f"{case}: ours has no attribute {name}")
        check(go.attrs.get("complete") == 1, f"{case}: ours is not marked complete")
        check("bad_frames" in go and go["bad_frames"].shape == (0,), f"{case}: ours has no empty bad_frames")
        theirs_bytes = sum(gt[n].id.get_storage_size() for n in LISTS)
        ours_bytes = sum(go[n].id.get_storage_size() for n in LISTS)
    print(f"{case}: {gt_pixels(theirs, data_path)} pixels; row + col + intensity stored in {ours_bytes} bytes "
          f"(ours) against {theirs_bytes} (ImageD11's lzf + shuffle): {ours_bytes / max(theirs_bytes, 1):.2f} x")
    check(ours_bytes <= 1.5 * theirs_bytes, f"{case}: our lists take {ours_bytes} bytes, more than 1.5 x theirs ({theirs_bytes})")
    return True


def gt_pixels(path, data_path):
    with h5py.File(path, "r") as f:
        return int(f[data_path].attrs["npx"])


def compare_sparse_scans(case, theirs, ours, scan):
    """ImageD11's reader of a scan's pixels on both files."""
    a, b = sparseframe.SparseScan(theirs, scan), sparseframe.SparseScan(ours, scan)
    check(a.shape == b.shape, f"{case}: SparseScan shape {b.shape} (ours), {a.shape} (theirs)")
    check(a.intensity_input_dtype == b.intensity_input_dtype,
          f"{case}: SparseScan intensity dtype {b.intensity_input_dtype} (ours), {a.intensity_input_dtype} (theirs)")
    for name in ("nnz", "row", "col", "intensity", "frame_id"):
        check(np.array_equal(getattr(a, name), getattr(b, name)), f"{case}: SparseScan.{name} differs")
    if a.shape == b.shape:
        check(np.array_equal(a.to_dense(), b.to_dense()), f"{case}: SparseScan.to_dense() differs")


def one_file_case(tmp, rng, case, data_path, dtype, cut, nexus_mask=False, howmany=None, frames=24, shape=(96, 120),
                  background=0.3, options=()):
    ni, nj = shape
    stem = "".join(c if c.isalnum() else "_" for c in case)
    scan = os.path.join(tmp, stem + "_scan.h5")
    mask = np.zeros((ni, nj), np.uint8)
    mask[:, nj // 2:nj // 2 + 3] = 1  # a module gap
    mask[5, 7] = 1                    # a dead pixel
    write_scan(scan, data_path, frames_of(rng, frames, ni, nj, dtype, background), mask if nexus_mask else None)
    edf, h5_mask = write_masks(tmp, stem + "_mask", mask)
    theirs, ours = os.path.join(tmp, stem + "_theirs.h5"), os.path.join(tmp, stem + "_ours.h5")
    segment_theirs(scan, theirs, data_path, cut, edf, howmany)
    extra = list(options)
    if howmany:  # ImageD11's thresholds: cut * 2**i, i < 6
        extra += ["--howmany", str(howmany), "--thresholds", ",".join(str(cut * 2 ** i) for i in range(6))]
    # a NeXus file's own pixel_mask is found without being named
    segment_ours(scan, ours, data_path, cut, None if nexus_mask else h5_mask, extra)
    if compare_files(case, theirs, ours, data_path):
        compare_sparse_scans(case, theirs, ours, data_path)


def bliss_dataset_case(tmp, rng):
    """A Bliss master whose scan 1.1 reaches two LImA files through a virtual dataset, read by
    ImageD11's DataSet; each LImA file segmented by ImageD11 into one folder and by us into
    another, under the names DataSet gives; then DataSet.import_nnz and
    assemble_label.harvest_masterfile (with and without virtual datasets) on each folder."""
    ni, nj, per_file, nfiles, cut = 64, 80, 12, 2, 2
    sample, dset = "sample", "dataset"
    raw = os.path.join(tmp, "raw")
    datapath = os.path.join(raw, sample, sample + "_" + dset)
    os.makedirs(os.path.join(datapath, "scan0001"))
    mask = np.zeros((ni, nj), np.uint8)
    mask[:, 40:42] = 1
    edf, h5_mask = write_masks(tmp, "bliss_mask", mask)
    names = []
    for k in range(nfiles):
        name = "scan0001/eiger_%04d.h5" % k
        write_scan(os.path.join(datapath, name), LIMA, frames_of(rng, per_file, ni, nj, np.uint16, 0.3))
        names.append(name)
    with h5py.File(os.path.join(datapath, sample + "_" + dset + ".h5"), "w") as f:
        layout = h5py.VirtualLayout(shape=(per_file * nfiles, ni, nj), dtype=np.uint16)
        for k, name in enumerate(names):
            layout[k * per_file:(k + 1) * per_file] = h5py.VirtualSource(name, LIMA, shape=(per_file, ni, nj))[0:per_file]
        s = f.create_group("1.1")
        s["title"] = "fscan rot 0 15 24 0.1"
        s.create_group("measurement").create_virtual_dataset("eiger", layout)
        s["measurement/rot_center"] = np.arange(per_file * nfiles) * 15.0
        s["instrument/positioners/dty"] = 0.0
    ds = dataset.DataSet(dataroot=raw, analysisroot=os.path.join(tmp, "analysis"), sample=sample, dset=dset,
                         detector="eiger", omegamotor="rot_center", dtymotor="dty")
    ds.import_all()
    check(ds.limapath == LIMA and len(ds.sparsefiles) == nfiles, f"bliss: DataSet found {ds.limapath}, {ds.sparsefiles}")
    made = {}
    for who in ("theirs", "ours"):
        ds.analysispath = os.path.join(tmp, who)
        os.makedirs(os.path.join(ds.analysispath, "sparsefiles"))
        for image, sparse in zip(ds.imagefiles, ds.sparsefiles):
            src, dst = os.path.join(ds.datapath, image), os.path.join(ds.analysispath, sparse)
            if who == "theirs":
                segment_theirs(src, dst, ds.limapath, cut, edf)
            else:
                segment_ours(src, dst, ds.limapath, cut, h5_mask)
        ds.import_nnz()
        harvests = []
        for use_vds in (True, False):
            out = os.path.join(ds.analysispath, "harvest_vds.h5" if use_vds else "harvest_copy.h5")
            assemble_label.harvest_masterfile(ds, out, use_vds=use_vds)
            harvests.append(out)
        made[who] = (ds.nnz.copy(), harvests)
    check(np.array_equal(made["theirs"][0], made["ours"][0]), "bliss: DataSet.import_nnz differs")
    for theirs, ours in zip(made["theirs"][1], made["ours"][1]):
        compare_sparse_scans("bliss " + os.path.basename(ours), theirs, ours, "1.1")
    for k, sparse in enumerate(ds.sparsefiles):
        compare_files(f"bliss LImA file {k}", os.path.join(tmp, "theirs", sparse), os.path.join(tmp, "ours", sparse), LIMA)


def run(case, *args, **kwargs):
    """A case that ImageD11 cannot get through (it reads what it expects, and raises otherwise) is a difference."""
    try:
        case(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - any failure of ImageD11's readers on our file is what we test for
        check(False, f"{case.__name__}{args[2:3]}: {type(e).__name__}: {e}")


def main():
    rng = np.random.default_rng(20240613)
    with tempfile.TemporaryDirectory() as tmp:
        run(one_file_case, tmp, rng, "lima u16", LIMA, np.uint16, 2, frames=40, shape=(256, 300))
        run(one_file_case, tmp, rng, "lima u16, --compression deflate", LIMA, np.uint16, 2, frames=40, shape=(256, 300),
            options=["--compression", "deflate"])
        run(one_file_case, tmp, rng, "eiger u32 (NeXus pixel_mask)", "/entry/data/data", np.uint32, 5, nexus_mask=True)
        run(one_file_case, tmp, rng, "f32", "/entry/data/data", np.float32, 3)
        run(one_file_case, tmp, rng, "u8", "/entry/data/data", np.uint8, 1)
        run(one_file_case, tmp, rng, "top pixels (howmany 40)", LIMA, np.uint16, 1, howmany=40, background=2.0)
        run(bliss_dataset_case, tmp, rng)
    if failures:
        print(f"{len(failures)} differences from ImageD11's segmenter")
        sys.exit(1)
    print("bslz4 sparse writes what ImageD11's segmenter writes, and ImageD11 reads it alike")


main()
