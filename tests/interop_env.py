"""What the Python tests against PyPI's tools share: they run under the venv that
tools/bootstrap.sh makes ($BSLZ4_INTEROP_VENV), and skip (exit 77, saying why) where it lacks
what they need, rather than fail on a host that never installed it.
"""
import os
import sys


def enter_venv():
    """Re-runs this script under the venv's Python, unless it already runs there."""
    venv_python = os.path.join(os.environ.get("BSLZ4_INTEROP_VENV", ""), "bin", "python")
    venv = os.path.dirname(os.path.dirname(venv_python))
    if os.path.exists(venv_python) and os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(venv_python, [venv_python, *sys.argv])


def skip(why):
    print(f"SKIP: {why}")
    sys.exit(77)


def require_bitshuffle_plugin():
    """h5py, hdf5plugin and numpy, with hdf5plugin's bitshuffle filter (32008) registered."""
    try:
        import h5py
        import hdf5plugin
        import numpy as np
    except ImportError as e:
        skip(f"{e} (tools/bootstrap.sh test installs h5py and hdf5plugin from PyPI)")
    if not h5py.h5z.filter_avail(hdf5plugin.BSHUF_ID):
        skip("this hdf5plugin has no bitshuffle filter (32008) registered")
    return h5py, hdf5plugin, np


def pixel_types(np):
    """Our pixel type names and their numpy types."""
    return {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64, "i8": np.int8,
            "i16": np.int16, "i32": np.int32, "i64": np.int64, "f32": np.float32, "f64": np.float64}


# A script's checks: each printed as it is made, the failures counted for finish().
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def finish():
    """Exits 1 naming how many checks failed, if any did."""
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)
