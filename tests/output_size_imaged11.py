#!/usr/bin/python3
"""The size of `bslz4 sparse`'s default output (bitshuffle-lz4 lists) against ImageD11's own
segmenter (ImageD11.sinograms.lima_segmenter.segment_lima, PyPI's ImageD11 in the venv that
tools/bootstrap.sh makes), on the same small LImA scans, mask and cut. The lists must be equal,
and our file must hold its datasets and HDF5's metadata and nothing else: at most 1.02 x the sum
of its datasets' stored bytes plus 64 kB. Against ImageD11's file, what our writer decides (the
metadata, nnz, unused space) must come to at most 1.1 x ImageD11's file once our lists' bytes
stand in for theirs; the whole file, lists included, at most 1.3 x theirs, since bitshuffle-lz4
stores these lists in 1.17-1.25 x the bytes of ImageD11's lzf + shuffle (the codecs' own
difference: hdf5plugin's bitshuffle filter gives the same sizes as ours). Exits 77 (skipped)
without h5py, hdf5plugin or ImageD11.
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
    from ImageD11.sinograms import lima_segmenter
except ImportError as e:
    interop_env.skip(f"{e} (tools/bootstrap.sh test installs ImageD11 from PyPI)")

TOOL = os.environ["BSLZ4_TOOL"]
LIMA = "/entry_0000/ESRF-ID11/eiger/data"  # where ImageD11 finds a LImA file's frames
LISTS = ("row", "col", "intensity")
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print(f"FAIL: {what}")


def lima_frames(rng, n, ni, nj, dtype, background):
    """Poisson background and four bright spots a frame, each frame its own."""
    frames = rng.poisson(background, (n, ni, nj)).astype(np.float64)
    gi, gj = np.mgrid[0:ni, 0:nj]
    for frame in frames:
        for i, j, width, peak in zip(rng.uniform(0, ni, 4), rng.uniform(0, nj, 4), rng.uniform(0.8, 2.0, 4),
                                     rng.uniform(5, 2e4, 4)):
            frame += peak * np.exp(-0.5 * ((gi - i) ** 2 + (gj - j) ** 2) / width ** 2)
    return np.minimum(frames, np.iinfo(dtype).max - 1).astype(dtype)


def make_scan(tmp, name, frames):
    """A LImA file as the detector writes it (a chunk a frame, bitshuffle-lz4), and one mask
    (a module gap, a dead pixel; nonzero = masked) twice: EDF for ImageD11, HDF5 for us."""
    scan, edf, h5_mask = (os.path.join(tmp, name + ext) for ext in ("_scan.h5", "_mask.edf", "_mask.h5"))
    with h5py.File(scan, "w") as f:
        f.create_dataset(LIMA, data=frames, chunks=(1,) + frames.shape[1:], **hdf5plugin.Bitshuffle(cname="lz4"))
    mask = np.zeros(frames.shape[1:], np.uint8)
    mask[:, mask.shape[1] // 2:mask.shape[1] // 2 + 3] = 1
    mask[3, 5] = 1
    fabio.edfimage.EdfImage(data=mask).write(edf)
    with h5py.File(h5_mask, "w") as f:
        f["mask"] = mask
    return scan, edf, h5_mask + ":/mask"


def segment_theirs(scan, out, cut, edf):
    options = lima_segmenter.SegmenterOptions(cut=cut, howmany=10**9, pixels_in_spot=1, maskfile=edf)
    options.setup()
    lima_segmenter.OPTIONS = options
    lima_segmenter.segment_lima((scan, out, LIMA))


def segment_ours(scan, out, cut, mask_spec):
    args = [TOOL, "sparse", scan, "-o", out, "--cut", str(cut), "--dataset", LIMA, "--mask", mask_spec, "--cpu", "--quiet"]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"bslz4 sparse failed ({r.returncode}): {' '.join(args)}\n{r.stderr}")


def stored_bytes(path):
    """Every dataset's stored bytes (chunks as written), by name."""
    sizes = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, obj: sizes.__setitem__(name, obj.id.get_storage_size())
                     if isinstance(obj, h5py.Dataset) else None)
    return sizes


def list_bytes(sizes):
    return sum(n for name, n in sizes.items() if name.rsplit("/", 1)[-1] in LISTS)


def compare(case, theirs, ours):
    with h5py.File(theirs, "r") as ft, h5py.File(ours, "r") as fo:
        gt, go = ft[LIMA], fo[LIMA]
        for name in LISTS + ("nnz",):
            check(np.array_equal(gt[name][()], go[name][()]), f"{case}: {name} differs from ImageD11's")
        npx = int(gt.attrs["npx"])
        check(int(go.attrs["npx"]) == npx, f"{case}: npx {go.attrs['npx']} in ours, {npx} in ImageD11's")
    ours_sizes, theirs_sizes = stored_bytes(ours), stored_bytes(theirs)
    ours_file, theirs_file = os.path.getsize(ours), os.path.getsize(theirs)
    ours_datasets, ours_lists, theirs_lists = sum(ours_sizes.values()), list_bytes(ours_sizes), list_bytes(theirs_sizes)
    # what our writer decides, with the codecs' difference taken out
    same_lists = theirs_file - theirs_lists + ours_lists
    print(f"{case}: {npx} pixels; our file {ours_file} bytes, its datasets {ours_datasets} "
          f"({ours_file / ours_datasets:.3f} x); ImageD11's file {theirs_file} ({ours_file / theirs_file:.2f} x), "
          f"with our lists {same_lists} ({ours_file / same_lists:.3f} x); lists {ours_lists} against "
          f"{theirs_lists} ({ours_lists / theirs_lists:.2f} x)")
    check(ours_file <= 1.02 * ours_datasets + 65536,
          f"{case}: our file of {ours_file} bytes holds unused space: more than 1.02 x its datasets' "
          f"{ours_datasets} bytes + 64 kB")
    check(ours_file <= 1.1 * same_lists,
          f"{case}: our file of {ours_file} bytes is more than 1.1 x ImageD11's with our lists ({same_lists})")
    check(ours_file <= 1.3 * theirs_file,
          f"{case}: our file of {ours_file} bytes is more than 1.3 x ImageD11's ({theirs_file})")


def one_scan(tmp, rng, case, frames, shape, cut, background=0.3, dtype=np.uint16):
    stem = "".join(c if c.isalnum() else "_" for c in case)
    scan, edf, mask_spec = make_scan(tmp, stem, lima_frames(rng, frames, *shape, dtype, background))
    theirs, ours = os.path.join(tmp, stem + "_theirs.h5"), os.path.join(tmp, stem + "_ours.h5")
    segment_theirs(scan, theirs, cut, edf)
    segment_ours(scan, ours, cut, mask_spec)
    compare(case, theirs, ours)


def main():
    rng = np.random.default_rng(20250107)
    with tempfile.TemporaryDirectory() as tmp:
        # a few chunks of each list, one chunk, many frames of few pixels, nnz past one chunk, u32
        one_scan(tmp, rng, "40 frames of 256 x 300", 40, (256, 300), 2)
        one_scan(tmp, rng, "10 frames of 256 x 300", 10, (256, 300), 2)
        one_scan(tmp, rng, "500 frames of 128 x 128", 500, (128, 128), 2)
        one_scan(tmp, rng, "1100 frames of 64 x 64", 1100, (64, 64), 1, background=0.05)
        one_scan(tmp, rng, "60 frames of 200 x 200, u32", 60, (200, 200), 2, dtype=np.uint32)
    if failures:
        print(f"{len(failures)} failures")
        sys.exit(1)
    print("our output holds its datasets and HDF5's metadata, no unused space, and ImageD11's lists")


main()
