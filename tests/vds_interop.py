#!/usr/bin/python3
"""Bliss master files as ImageD11 users have them, written with h5py's VDS API as Bliss writes
them: LImA files (/entry_0000/ESRF-ID11/eiger/data, one bitshuffle-lz4 chunk a frame, compressed
by hdf5plugin, and one file of chunks made by `bslz4 encode` and stored with h5py's
write_direct_chunk) in a folder beside a master file whose virtual dataset
(h5py.VirtualLayout / VirtualSource, relative file names, a soft link from /1.1/measurement)
maps them. `bslz4 sparse` on the VDS, run from any folder, writes what it writes for the same
frames stored as one ordinary dataset; a LImA file's dataset is found without --dataset; and
mappings that are not one whole frame a chunk are refused, naming them. Runs under the venv that
tools/bootstrap.sh makes ($BSLZ4_INTEROP_VENV); exits 77 (skipped) without h5py and hdf5plugin.
"""
import os
import subprocess
import sys
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()

TOOL = os.environ["BSLZ4_TOOL"]
NI, NJ = 40, 52
LIMA = "/entry_0000/ESRF-ID11/eiger/data"
VDS = "/1.1/instrument/eiger/data"
MEASUREMENT = "/1.1/measurement/eiger"
SIZES = (45, 60, 30)  # frames in each LImA file: batches of 64 cross them


def frames(n, seed):
    """n sparse u16 frames: background 0 to 3, a few bright pixels."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, size=(n, NI, NJ)).astype(np.uint16)
    for k in range(n):
        a[k].flat[rng.integers(0, NI * NJ, size=25)] = rng.integers(10, 60000, size=25)
    return a


def write_lima(path, data):
    """A LImA file whose chunks hdf5plugin's bitshuffle compressed."""
    with h5py.File(path, "w") as f:
        f.create_dataset(LIMA, data=data, chunks=(1, NI, NJ), **hdf5plugin.Bitshuffle(cname="lz4"))


def write_lima_direct(path, data, tmp):
    """A LImA file whose chunks `bslz4 encode` made, stored with write_direct_chunk."""
    raw, chunk = os.path.join(tmp, "frame.raw"), os.path.join(tmp, "frame.chunk")
    with h5py.File(path, "w") as f:
        d = f.create_dataset(LIMA, shape=data.shape, dtype=np.uint16, chunks=(1, NI, NJ), **hdf5plugin.Bitshuffle(cname="lz4"))
        for k in range(data.shape[0]):
            data[k].tofile(raw)
            subprocess.run([TOOL, "encode", "--dtype", "u16", raw, "-o", chunk], check=True)
            d.id.write_direct_chunk((k, 0, 0), open(chunk, "rb").read(), filter_mask=0)


def write_master(path, sources, total=None, part_of_frame=False):
    """A Bliss-like master: a VDS of the sources (relative file name, frames) in order."""
    total = total or sum(n for _, n in sources)
    layout = h5py.VirtualLayout(shape=(total, NI, NJ), dtype=np.uint16)
    at = 0
    for name, n in sources:
        source = h5py.VirtualSource(name, LIMA, shape=(n, NI, NJ))
        if part_of_frame:
            layout[at:at + n, : NI // 2] = source[:, : NI // 2]
        else:
            layout[at:at + n] = source
        at += n
    with h5py.File(path, "w") as f:
        d = f.create_virtual_dataset(VDS, layout, fillvalue=0)
        d.attrs["interpretation"] = "image"
        f[MEASUREMENT] = h5py.SoftLink(VDS)


def write_plain(path, data, dataset=MEASUREMENT):
    with h5py.File(path, "w") as f:
        f.create_dataset(dataset, data=data, chunks=(1, NI, NJ), **hdf5plugin.Bitshuffle(cname="lz4"))


def sparse(inp, out, cwd, *extra):
    return subprocess.run([TOOL, "sparse", "--overwrite", inp, "-o", out, "--cut", "5", "--cpu", "--quiet", *extra],
                          cwd=cwd, capture_output=True, text=True)


def contents(path):
    """Every dataset of an output: its dtype, shape and values (variable-length: shape only)."""
    found = {}

    def visit(name, obj):
        if isinstance(obj, h5py.Dataset):
            variable = obj.dtype.kind == "O" or (obj.dtype.names and any(
                obj.dtype[n].kind == "O" for n in obj.dtype.names))
            found[name] = (obj.dtype.str, obj.shape, None if variable else obj[()].tobytes())

    with h5py.File(path, "r") as f:
        f.visititems(visit)
    return found


class Checks:
    def __init__(self):
        self.failures = 0
        self.checked = 0

    def expect(self, ok, what):
        self.checked += 1
        if not ok:
            self.failures += 1
            print(f"FAIL {what}")

    def same_outputs(self, got, want, what):
        if not (os.path.exists(got) and os.path.exists(want)):
            self.expect(False, f"{what}: no output to compare ({got}, {want})")
            return
        a, b = contents(got), contents(want)
        self.expect(bool(b) and a == b, f"{what}: {got} differs from {want}: " +
                    ", ".join(sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))))

    def ran(self, r, what):
        self.expect(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}")

    def refused(self, r, said, what):
        self.expect(r.returncode == 1 and all(s in r.stderr for s in said),
                    f"{what}: exit {r.returncode}, stderr {r.stderr.strip()!r}, expected {said}")


def main():
    c = Checks()
    with tempfile.TemporaryDirectory() as tmp:
        scan = os.path.join(tmp, "sample", "sample_0001")
        os.makedirs(os.path.join(scan, "scan0001"))
        data = frames(sum(SIZES), 7)
        names = [f"scan0001/eiger_{k:04d}.h5" for k in range(len(SIZES))]
        at = 0
        for k, (name, n) in enumerate(zip(names, SIZES)):
            part = data[at:at + n]
            if k == 1:
                write_lima_direct(os.path.join(scan, name), part, tmp)
            else:
                write_lima(os.path.join(scan, name), part)
            at += n
        master = os.path.join(scan, "sample_0001.h5")
        plain = os.path.join(tmp, "plain.h5")
        write_master(master, list(zip(names, SIZES)))
        write_plain(plain, data)
        with h5py.File(master, "r") as f:  # h5py reads the VDS as written
            c.expect(np.array_equal(f[MEASUREMENT][()], data), "h5py reads back the VDS's frames")

        out_plain = os.path.join(tmp, "out_plain.h5")
        c.ran(sparse(plain, out_plain, tmp, "--dataset", MEASUREMENT), "the ordinary dataset")
        # from another folder with the master's full name, and from the master's folder with its own
        for cwd, inp, tag in ((tmp, master, "elsewhere"), (scan, "sample_0001.h5", "beside")):
            out = os.path.join(tmp, f"out_vds_{tag}.h5")
            c.ran(sparse(inp, out, cwd, "--dataset", MEASUREMENT), f"the VDS, run {tag}")
            c.same_outputs(out, out_plain, f"the VDS, run {tag}")
        out_part_plain, out_part_vds = os.path.join(tmp, "part_plain.h5"), os.path.join(tmp, "part_vds.h5")
        c.ran(sparse(plain, out_part_plain, tmp, "--dataset", MEASUREMENT, "--frames", "40:110"), "plain --frames 40:110")
        c.ran(sparse(master, out_part_vds, tmp, "--dataset", MEASUREMENT, "--frames", "40:110"), "VDS --frames 40:110")
        c.same_outputs(out_part_vds, out_part_plain, "--frames 40:110 across the LImA files")

        # sources in the master's own file: h5py names them "."
        own = os.path.join(tmp, "own.h5")
        with h5py.File(own, "w") as f:
            for k in range(2):
                f.create_dataset(f"/entry_0000/part{k}/data", data=data[k * 50:(k + 1) * 50], chunks=(1, NI, NJ),
                                 **hdf5plugin.Bitshuffle(cname="lz4"))
            layout = h5py.VirtualLayout(shape=(100, NI, NJ), dtype=np.uint16)
            for k in range(2):
                layout[k * 50:(k + 1) * 50] = h5py.VirtualSource(f[f"/entry_0000/part{k}/data"])
            f.create_virtual_dataset(MEASUREMENT, layout)
        with h5py.File(own, "r") as f:
            names_used = {s.file_name for s in f[MEASUREMENT].virtual_sources()}
        out_own, out_own_plain, plain100 = (os.path.join(tmp, n) for n in ("out_own.h5", "out_own_plain.h5", "plain100.h5"))
        write_plain(plain100, data[:100])
        c.ran(sparse(own, out_own, tmp, "--dataset", MEASUREMENT), f"sources in the VDS's own file ({names_used})")
        c.ran(sparse(plain100, out_own_plain, tmp, "--dataset", MEASUREMENT), "plain, 100 frames")
        c.same_outputs(out_own, out_own_plain, "sources in the VDS's own file")

        # a LImA file: its dataset is found without --dataset
        lima = os.path.join(scan, names[0])
        out_default, out_named = os.path.join(tmp, "lima_default.h5"), os.path.join(tmp, "lima_named.h5")
        c.ran(sparse(lima, out_default, tmp), "a LImA file without --dataset")
        c.ran(sparse(lima, out_named, tmp, "--dataset", LIMA), "a LImA file with --dataset")
        c.same_outputs(out_default, out_named, "a LImA file without --dataset")

        # refusals
        bad = os.path.join(scan, "bad.h5")
        out_bad = os.path.join(tmp, "out_bad.h5")
        write_master(bad, list(zip(names, SIZES)), total=sum(SIZES) + 10)
        c.refused(sparse(bad, out_bad, scan, "--dataset", MEASUREMENT),
                  [f"{bad}:{MEASUREMENT}: frames 135 to 144 are in no mapping", "fill value"], "frames in no mapping")
        write_master(bad, list(zip(names, SIZES)), part_of_frame=True)
        c.refused(sparse(bad, out_bad, scan, "--dataset", MEASUREMENT),
                  [f"{bad}:{MEASUREMENT} mapping 0", "not whole 40 x 52 frames"], "half frames")
        os.makedirs(os.path.join(tmp, "scan0001"))
        pairs = os.path.join(tmp, "scan0001", "eiger_0000.h5")
        with h5py.File(pairs, "w") as f:
            f.create_dataset(LIMA, data=data[:SIZES[0]], chunks=(3, NI, NJ), **hdf5plugin.Bitshuffle(cname="lz4"))
        bad_elsewhere = os.path.join(tmp, "bad.h5")  # beside the LImA file of 3 frames a chunk
        write_master(bad_elsewhere, [(names[0], SIZES[0])])
        c.refused(sparse(bad_elsewhere, out_bad, scan, "--dataset", MEASUREMENT),
                  [f"its source {pairs}:{LIMA}: chunks of 3 x 40 x 52", "one chunk must be one frame"], "three frames a chunk")
        write_master(bad, list(zip(names, SIZES)) + [("scan0001/eiger_0009.h5", 5)])
        c.refused(sparse(bad, out_bad, scan, "--dataset", MEASUREMENT),
                  ["mapping 3 (scan0001/eiger_0009.h5:", "(VDS frames 135 to 139): the source file scan0001/eiger_0009.h5 is not found",
                   "fill value"],
                  "a LImA file missing")
        c.expect(not os.path.exists(out_bad), "no output is written for a refused scan")
    print(f"VDS interop (h5py {h5py.version.version}, HDF5 {h5py.version.hdf5_version}, hdf5plugin {hdf5plugin.version}): "
          f"{c.checked - c.failures} passed, {c.failures} failed")
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
