#!/usr/bin/python3
"""Our chunks against the reference HDF5 filter (hdf5plugin's bitshuffle, filter 32008), both
ways: chunks written by `bslz4 encode` are read back through HDF5 with the plugin, and chunks
the plugin compressed are decoded by `bslz4 decode`; and a scan written by `bslz4 demo` (our
scan writer, with or without a system filter plugin) is read through the plugin. Every dataset's
stored filter values and every chunk's filter mask are checked, not assumed: a plugin that
cannot do zstd may store a chunk unfiltered, or record other values than asked for. Runs under
the venv that tools/bootstrap.sh makes ($BSLZ4_INTEROP_VENV); exits 77 (skipped) without h5py
and hdf5plugin.
"""
import os
import subprocess
import sys
import tempfile

import interop_env

interop_env.enter_venv()
h5py, hdf5plugin, np = interop_env.require_bitshuffle_plugin()

TOOL = os.environ["BSLZ4_TOOL"]
TYPES = interop_env.pixel_types(np)
SHAPES = [(1, 1), (1, 7), (3, 5), (17, 33), (130, 257)]


CODEC_VALUE = {"lz4": 2, "zstd": 3}  # bitshuffle's compression value (its fifth)


def stored_filter(d):
    """(filter id, its values) as stored with dataset d."""
    fid, _flags, values, _name = d.id.get_create_plist().get_filter(0)
    return fid, tuple(values)


def layout_problem(d, cname):
    """What is wrong with d's stored bitshuffle values for cname chunks of d's type, or None."""
    fid, v = stored_filter(d)
    if fid != hdf5plugin.BSHUF_ID:
        return f"filter {fid}, not bitshuffle"
    if len(v) not in (5, 6) or v[0] != 0 or v[2] != d.dtype.itemsize or v[3] % 8 or v[4] != CODEC_VALUE[cname]:
        return f"values {v}: not (0, minor, {d.dtype.itemsize}, block, {CODEC_VALUE[cname]}[, level])"
    return None


def codecs(tmp):
    """The codecs this hdf5plugin really stores: asked for zstd, an old one stores lz4 or nothing."""
    out = ["lz4"]
    try:
        filt = hdf5plugin.Bitshuffle(cname="zstd")
    except (TypeError, ValueError) as e:
        print(f"note: this hdf5plugin has no zstd bitshuffle ({e}); lz4 only")
        return out
    with h5py.File(os.path.join(tmp, "probe.h5"), "w") as f:
        d = f.create_dataset("d", data=np.arange(4096, dtype=np.uint16)[None], chunks=(1, 4096), **filt)
        _, values = stored_filter(d)
        mask, chunk = d.id.read_direct_chunk((0, 0))
    if len(values) < 5 or values[4] != CODEC_VALUE["zstd"] or mask != 0:
        print(f"note: this hdf5plugin, asked for zstd, stored filter values {values} and filter mask {mask}: "
              "no zstd; lz4 only")
        return out
    # A bitshuffle plugin older than 0.4 (Debian 12's, which its hdf5plugin 4.0.1 defers to) has no
    # zstd: it records the value asked for but stores the chunk bitshuffled without compression,
    # with no header, and reads it back so. Such chunks are not zstd frames: neither side can be
    # checked against it.
    if len(chunk) < 12 or int.from_bytes(chunk[:8], "big") != 4096 * 2:
        print(f"note: this hdf5plugin, asked for zstd, stored filter values {values} but a chunk of {len(chunk)} "
              f"bytes without bitshuffle's header (bitshuffle {values[0]}.{values[1]} has no zstd); lz4 only")
        return out
    return out + ["zstd"]
def frame(dtype, shape, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.floating):
        a = (rng.random(shape) * 100 - 30).astype(dtype)
        a.flat[:: 11] = np.nan
    else:
        info = np.iinfo(dtype)
        a = rng.integers(0, 40, size=shape).astype(dtype)
        a.flat[:: 13] = info.max
        if info.min < 0:
            a.flat[1:: 7] = info.min
    return a


def run(*args):
    subprocess.run([TOOL, *args], check=True, stdout=subprocess.DEVNULL)


def check_our_scan(tmp):
    """A scan written by our scan writer (`bslz4 demo`), read through the plugin: its values,
    each chunk's filter mask, and each frame against `bslz4 decode` of its raw chunk."""
    failures = 0
    scan_dir = os.path.join(tmp, "demo")
    os.mkdir(scan_dir)
    run("demo", "--frames", "2", "--cpu", "--dir", scan_dir)
    with h5py.File(os.path.join(scan_dir, "scan.h5"), "r") as f:
        d = f["/entry/data/data"]
        problem = layout_problem(d, "lz4")
        if problem:
            print(f"FAIL our scan's filter: {problem}")
            return 1
        print(f"our scan's bitshuffle values: {stored_filter(d)[1]}")
        for k in range(d.shape[0]):
            mask, raw = d.id.read_direct_chunk((k, 0, 0))
            chunk = os.path.join(tmp, "scan_chunk")
            open(chunk, "wb").write(raw)
            run("decode", "--dtype", "u16", chunk, "-o", chunk + ".raw")
            ours = np.fromfile(chunk + ".raw", dtype="<u2").reshape(d.shape[1:])
            if mask != 0 or not np.array_equal(d[k], ours):
                print(f"FAIL our scan frame {k}: filter mask {mask}, equal {np.array_equal(d[k], ours)}")
                failures += 1
    return failures


def main():
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        failures += check_our_scan(tmp)
        checked += 1
        for cname in codecs(tmp):
            for name, dtype in TYPES.items():
                for shape in SHAPES:
                    a = frame(dtype, shape, hash((name, shape)) & 0xFFFF)
                    raw = os.path.join(tmp, "raw")
                    chunk = os.path.join(tmp, "chunk")
                    a.tofile(raw)
                    filt = hdf5plugin.Bitshuffle(cname=cname)
                    h5 = os.path.join(tmp, "x.h5")
                    case = f"{cname} {name} {shape}"
                    # ours -> the plugin
                    for block in (None, 8 * a.itemsize * 4):
                        extra = ["--block-bytes", str(block)] if block else []
                        run("encode", "--dtype", name, "--codec", cname, *extra, raw, "-o", chunk)
                        with h5py.File(h5, "w") as f:
                            d = f.create_dataset("d", shape=(1, *shape), dtype=dtype, chunks=(1, *shape), **filt)
                            d.id.write_direct_chunk((0, 0, 0), open(chunk, "rb").read(), filter_mask=0)
                        with h5py.File(h5, "r") as f:
                            problem = layout_problem(f["d"], cname)
                            mask, _ = f["d"].id.read_direct_chunk((0, 0, 0))
                            back = f["d"][0]
                        if problem or mask != 0 or back.tobytes() != a.tobytes():
                            print(f"FAIL ours->plugin {case} block {block}: {problem or ''} filter mask {mask}")
                            failures += 1
                        checked += 1
                    # the plugin -> ours: only what it really filtered
                    with h5py.File(h5, "w") as f:
                        f.create_dataset("d", data=a[None], chunks=(1, *shape), **filt)
                    with h5py.File(h5, "r") as f:
                        problem = layout_problem(f["d"], cname)
                        mask, data = f["d"].id.read_direct_chunk((0, 0, 0))
                    if problem or mask != 0:
                        print(f"FAIL plugin->ours {case}: the plugin stored {problem or ''} filter mask {mask}")
                        failures += 1
                        checked += 1
                        continue
                    open(chunk, "wb").write(data)
                    run("decode", "--dtype", name, "--codec", cname, chunk, "-o", raw + ".back")
                    if open(raw + ".back", "rb").read() != a.tobytes():
                        print(f"FAIL plugin->ours {case}")
                        failures += 1
                    checked += 1
    print(f"interop with hdf5plugin {hdf5plugin.version}: {checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
