"""The installed wheel, run by tests/wheel/check_wheel.sh from a fresh venv: the package is the
venv's (not this tree's), nothing there can compile, it decodes the reference cases of
tests/data and ../shared/testdata (or BSLZ4_TESTDATA) to the pixels those folders hold, with
tests/python's own readers of them, and (where the wheel has bslz4._scan) sparse_scan lists the
committed zstd scan of tests/data with the HDF5 the wheel carries."""
import hashlib
import importlib.util
import json
import os
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest

import bslz4

REPO = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "python"))
import conftest as reference  # noqa: E402  tests/python's readers of the reference data

VENV = os.environ.get("BSLZ4_WHEEL_VENV")
pytestmark = pytest.mark.skipif(not VENV, reason="run by tests/wheel/check_wheel.sh (BSLZ4_WHEEL_VENV unset)")


def test_the_package_is_the_fresh_venvs_and_nothing_there_builds():
    venv = pathlib.Path(VENV).resolve()
    for module in (bslz4, bslz4._bslz4):
        assert pathlib.Path(module.__file__).resolve().is_relative_to(venv), module.__file__
    assert pathlib.Path(sys.prefix).resolve() == venv and sys.prefix != sys.base_prefix
    assert not pathlib.Path(bslz4.__file__).resolve().is_relative_to(REPO.resolve())
    for tool in ("gcc", "g++", "cc", "c++", "clang", "nvcc", "ld"):
        assert shutil.which(tool) is None, tool
    assert os.environ.get("CC") == "/bin/false" and os.environ.get("CXX") == "/bin/false"
    for package in ("pip", "setuptools", "mesonpy", "mesonbuild", "ninja", "pybind11"):
        assert importlib.util.find_spec(package) is None, package


def test_build_info_and_the_cpu_path():
    info = bslz4.build_info()
    print("build_info:", info, "cpu path:", bslz4._bslz4.cpu_path())
    assert info["version"] == bslz4.__version__
    assert bslz4._bslz4.cpu_path() in ("portable", "avx2", "avx512")
    expect = os.environ.get("BSLZ4_WHEEL_EXPECT_GPU_RUNTIME")
    if expect is not None:  # bootstrap.sh wheel: 1 when it built with the main build's fatbin
        assert bslz4._bslz4.has_gpu_runtime == (expect == "1")


def raw_sha256s(folder):
    lines = (folder / "cases.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"))) for line in lines[1:]]
    return {row["name"]: row["raw_sha256"] for row in rows}


FOLDERS = {"tests/data": lambda: REPO / "tests" / "data", "shared/testdata": reference.testdata_dir}


@pytest.mark.parametrize("which", sorted(FOLDERS))
def test_reference_cases_decode_to_their_pixels(which):
    folder = FOLDERS[which]()
    if folder is None or not (folder / "cases.tsv").is_file():
        pytest.skip("no reference data: %s is not in this tree (BSLZ4_TESTDATA unset)" % which)
    sha = raw_sha256s(folder)
    decoded = listed = 0
    for name, type_name, ni, nj, chunk, pixels in reference.read_cases(folder):
        dtype = reference.DTYPES[type_name]
        got = bslz4.decompress(chunk, dtype)
        assert hashlib.sha256(got.tobytes()).hexdigest() == sha[name], name
        decoded += 1
        if pixels is None:
            continue
        assert got.view(np.uint8).tobytes() == pixels.view(np.uint8).tobytes(), name
        mask = np.ones((ni, nj), np.uint8)
        mask.reshape(-1)[::7] = 0
        n, (values, indices) = bslz4.chunk2sparse(mask, dtype)(chunk, 1)
        want_i, want_v = reference.expected_lists(pixels, mask, 1)
        assert n == len(want_i), name
        np.testing.assert_array_equal(indices[:n], want_i, err_msg=name)
        np.testing.assert_array_equal(values[:n].view(np.uint8), want_v.view(np.uint8), err_msg=name)
        listed += 1
    print("%s: %d cases decoded, %d listed against their pixels" % (which, decoded, listed))
    assert decoded == len(sha) and listed > 100


SCAN = REPO / "tests" / "data" / "hdf5plugin_zstd_scan.h5"
# The pixels above 10 outside its pixel_mask's gap in tests/make_hdf5plugin_zstd_scan.py's frames
# (numpy over the frames of its generator): 12 frames.
SCAN_FRAMES, SCAN_PIXELS = 12, 4272


def sparse_scan(output, plugin_path, where="cpu"):
    """bslz4.sparse_scan of SCAN in a child process (HDF5 reads HDF5_PLUGIN_PATH once, at its
    start): (exit status, the summary's frames, pixels, bad_frames and decoder, stderr)."""
    env = {k: v for k, v in os.environ.items() if k != "HDF5_PLUGIN_PATH"}
    if plugin_path is not None:
        env["HDF5_PLUGIN_PATH"] = str(plugin_path)
    code = ("import bslz4, json, sys; s = bslz4.sparse_scan(sys.argv[1], sys.argv[2], cut=10, where=sys.argv[3]); "
            "print(json.dumps({k: s[k] for k in ('frames', 'pixels', 'bad_frames', 'decoder')}))")
    r = subprocess.run([sys.executable, "-c", code, str(SCAN), str(output), where], env=env,
                       capture_output=True, text=True, timeout=300)
    summary = json.loads(r.stdout.splitlines()[-1]) if r.returncode == 0 and r.stdout.strip() else None
    return r.returncode, summary, r.stderr


def check_scan_output(output, summary):
    assert summary["frames"] == SCAN_FRAMES and summary["pixels"] == SCAN_PIXELS, summary
    assert summary["bad_frames"] == 0
    assert output.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"


@pytest.fixture
def scan_module():
    if importlib.util.find_spec("bslz4._scan") is None:
        pytest.skip("this wheel has no bslz4._scan (built without HDF5)")


def test_sparse_scan_lists_the_zstd_scan_with_the_wheels_hdf5(scan_module, tmp_path):
    empty = tmp_path / "no-plugins"
    empty.mkdir()
    rc, summary, err = sparse_scan(tmp_path / "out.h5", empty)
    assert rc == 0, err[-3000:]
    check_scan_output(tmp_path / "out.h5", summary)


def test_sparse_scan_beside_the_hosts_hdf5_filter_plugins(scan_module, tmp_path):
    # The wheel's HDF5 (grafted by auditwheel) must not load the host's plugins: Debian's
    # bitshuffle plugin links the host's libhdf5, a second HDF5 in the process, and the output's
    # dataset creation failed in its callback ("error during user callback") until _scan turned
    # plugin loading off for the wheel's copy.
    rc, summary, err = sparse_scan(tmp_path / "out.h5", None)
    assert rc == 0, err[-3000:]
    check_scan_output(tmp_path / "out.h5", summary)
