#!/usr/bin/python3
"""Our chunks against the reference HDF5 filter (hdf5plugin's bitshuffle, filter 32008), both
ways: chunks written by `bslz4 encode` are read back through HDF5 with the plugin, and chunks
the plugin compressed are decoded by `bslz4 decode`. Runs under the venv that tools/bootstrap.sh
makes ($BSLZ4_INTEROP_VENV); exits 77 (skipped) without h5py and hdf5plugin.
"""
import os
import subprocess
import sys
import tempfile

VENV_PYTHON = os.path.join(os.environ.get("BSLZ4_INTEROP_VENV", ""), "bin", "python")
if os.path.exists(VENV_PYTHON) and os.path.realpath(sys.prefix) != os.path.realpath(os.path.dirname(os.path.dirname(VENV_PYTHON))):
    os.execv(VENV_PYTHON, [VENV_PYTHON, *sys.argv])

try:
    import h5py
    import hdf5plugin
    import numpy as np
except ImportError as e:
    print(f"SKIP: {e} (tools/bootstrap.sh test installs h5py and hdf5plugin from PyPI)")
    sys.exit(77)
if not h5py.h5z.filter_avail(hdf5plugin.BSHUF_ID):
    print("SKIP: this hdf5plugin has no bitshuffle filter (32008) registered")
    sys.exit(77)

TOOL = os.environ["BSLZ4_TOOL"]
TYPES = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i8": np.int8,
         "i16": np.int16, "i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}
SHAPES = [(1, 1), (1, 7), (3, 5), (17, 33), (130, 257)]


def codecs():
    out = ["lz4"]
    try:
        hdf5plugin.Bitshuffle(cname="zstd")
        out.append("zstd")
    except (TypeError, ValueError):
        print("note: this hdf5plugin has no zstd bitshuffle; lz4 only")
    return out


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
    subprocess.run([TOOL, *args], check=True)


def main():
    failures = 0
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        for cname in codecs():
            for name, dtype in TYPES.items():
                for shape in SHAPES:
                    a = frame(dtype, shape, hash((name, shape)) & 0xFFFF)
                    raw = os.path.join(tmp, "raw")
                    chunk = os.path.join(tmp, "chunk")
                    a.tofile(raw)
                    filt = hdf5plugin.Bitshuffle(cname=cname)
                    h5 = os.path.join(tmp, "x.h5")
                    # ours -> the plugin
                    for block in (None, 8 * a.itemsize * 4):
                        extra = ["--block-bytes", str(block)] if block else []
                        run("encode", "--dtype", name, "--codec", cname, *extra, raw, "-o", chunk)
                        with h5py.File(h5, "w") as f:
                            d = f.create_dataset("d", shape=(1, *shape), dtype=dtype, chunks=(1, *shape), **filt)
                            d.id.write_direct_chunk((0, 0, 0), open(chunk, "rb").read(), filter_mask=0)
                        with h5py.File(h5, "r") as f:
                            back = f["d"][0]
                        if back.tobytes() != a.tobytes():
                            print(f"FAIL ours->plugin {cname} {name} {shape} block {block}")
                            failures += 1
                        checked += 1
                    # the plugin -> ours
                    with h5py.File(h5, "w") as f:
                        f.create_dataset("d", data=a[None], chunks=(1, *shape), **filt)
                    with h5py.File(h5, "r") as f:
                        _, data = f["d"].id.read_direct_chunk((0, 0, 0))
                    open(chunk, "wb").write(data)
                    run("decode", "--dtype", name, "--codec", cname, chunk, "-o", raw + ".back")
                    if open(raw + ".back", "rb").read() != a.tobytes():
                        print(f"FAIL plugin->ours {cname} {name} {shape}")
                        failures += 1
                    checked += 1
    print(f"interop with hdf5plugin {hdf5plugin.version}: {checked - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
