"""sparse_scan: `bslz4 sparse`'s job from Python. The file it writes holds what the command writes
(row, col, intensity, nnz, powders) for the same options; progress comes through the callback in
order; a callback returning False or raising stops the scan and keeps the frames done as the
command does; the GIL is released while it runs; its messages name its keywords, never the
command's options; a file it reads is never its output."""
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time
import warnings

import numpy as np
import pytest

import bslz4

h5py = pytest.importorskip("h5py")
hdf5plugin = pytest.importorskip("hdf5plugin")
pytest.importorskip("bslz4._scan", reason="this build of bslz4 has no HDF5 (no sparse_scan)")

REPO = pathlib.Path(__file__).resolve().parents[2]
LIST_DATASETS = ("row", "col", "intensity", "nnz")


def write_scan(path, frames, pixel_mask=None):
    with h5py.File(path, "w") as f:
        f.create_dataset("/entry/data/data", data=frames, chunks=(1,) + frames.shape[1:],
                         **hdf5plugin.Bitshuffle(cname="lz4"))
        if pixel_mask is not None:
            f["/entry/instrument/detector/pixel_mask"] = pixel_mask


def scan_frames(nframes=150, seed=5, dtype=np.uint16):
    rng = np.random.default_rng(seed)
    return rng.poisson(0.8, (nframes, 61, 83)).astype(dtype)


def read_group(path, group="/entry/data/data"):
    with h5py.File(path, "r") as f:
        g = f[group]
        return {k: g[k][()] for k in g if isinstance(g[k], h5py.Dataset)}, dict(g.attrs)


def bslz4_command():
    for c in (os.environ.get("BSLZ4_COMMAND"), REPO / "build" / "tools" / "bslz4", shutil.which("bslz4")):
        if c and pathlib.Path(c).is_file() and os.access(c, os.X_OK):
            return str(c)
    return None


def test_the_file_lists_every_frame_above_the_cut_with_the_files_mask(tmp_path):
    frames = scan_frames()
    bad = np.zeros(frames.shape[1:], np.uint32)
    bad[10, :] = 1
    write_scan(tmp_path / "s.h5", frames, bad)
    s = bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu")
    assert s["frames"] == 150 and not s["interrupted"] and s["bad_frames"] == 0
    assert s["mask_source"].endswith("/entry/instrument/detector/pixel_mask")
    got, attrs = read_group(tmp_path / "out.h5")
    use = bad.ravel() == 0
    want = [np.flatnonzero((f.ravel() > 1) & use) for f in frames]
    assert np.array_equal(got["nnz"], [w.size for w in want])
    assert s["pixels"] == sum(w.size for w in want)
    flat = np.concatenate(want)
    assert np.array_equal(got["row"].astype(np.int64) * 83 + got["col"], flat)
    assert np.array_equal(got["intensity"], np.concatenate([f.ravel()[w] for f, w in zip(frames, want)]))
    assert attrs["complete"] == 1
    with h5py.File(tmp_path / "out.h5", "r") as f:
        assert f.attrs["command_line"].startswith("bslz4.sparse_scan(")


@pytest.mark.skipif(bslz4_command() is None, reason="no bslz4 command (build/tools/bslz4, BSLZ4_COMMAND or PATH)")
@pytest.mark.parametrize("options, keywords", [
    (["--cut", "2"], dict(cut=2)),
    (["--cut", "1", "--preset", "imaged11"], dict(cut=1, preset="imaged11")),
    (["--cut", "0", "--howmany", "50", "--thresholds", "1,3", "--frames", "7:120"],
     dict(cut=0, howmany=50, thresholds=[1, 3], frames="7:120")),
])
def test_the_same_lists_as_the_command_for_the_same_options(tmp_path, options, keywords):
    frames = scan_frames(dtype=np.uint32)
    write_scan(tmp_path / "s.h5", frames)
    subprocess.run([bslz4_command(), "sparse", str(tmp_path / "s.h5"), "-o", str(tmp_path / "cli.h5"), "--cpu",
                    "--quiet"] + options, check=True, capture_output=True)
    bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "py.h5"), where="cpu", **keywords)
    cli, cli_attrs = read_group(tmp_path / "cli.h5")
    py, py_attrs = read_group(tmp_path / "py.h5")
    assert sorted(cli) == sorted(py)
    for k in cli:
        assert np.array_equal(cli[k], py[k]), k
    for k in ("cut", "nframes", "npx", "frames_expected", "complete"):
        assert np.array_equal(cli_attrs[k], py_attrs[k]), k


def test_powders_from_a_matrix_file_equal_scan_batches(tmp_path):
    pytest.importorskip("pyFAI")
    pytest.importorskip("scipy")
    from pyFAI.integrator.azimuthal import AzimuthalIntegrator
    from bslz4 import matrix_file

    rng = np.random.default_rng(9)
    frames = rng.poisson(2, (30, 195, 487)).astype(np.uint16)
    write_scan(tmp_path / "s.h5", frames)
    ai = AzimuthalIntegrator(dist=0.1, poni1=0.02, poni2=0.03, detector="Pilatus100k", wavelength=1e-10)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        made = matrix_file.make(ai, (195, 487), 100, unit="2th_deg")
    matrix_file.write(made, str(tmp_path / "m.h5"))
    bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=3, matrix=str(tmp_path / "m.h5"),
                      where="cpu")
    got, _ = read_group(tmp_path / "out.h5")
    powders = np.concatenate([b.powder for b in bslz4.scan_batches(str(tmp_path / "s.h5"), cut=3,
                                                                  matrix=str(tmp_path / "m.h5"))])
    assert np.array_equal(got["powder"], powders)


def test_progress_comes_in_order_and_ends_at_the_frames_of_the_scan(tmp_path):
    write_scan(tmp_path / "s.h5", scan_frames(300))
    seen = []
    bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu",
                      progress=lambda done, total: seen.append((done, total)))
    assert len(seen) > 1
    assert [t for _, t in seen] == [300] * len(seen)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen) and seen[-1][0] == 300


def test_a_callback_returning_false_stops_the_scan_and_keeps_the_frames_done(tmp_path):
    write_scan(tmp_path / "s.h5", scan_frames(400))
    s = bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu",
                          progress=lambda done, total: done < 100)
    assert s["interrupted"] and 100 <= s["frames"] < 400
    assert not (tmp_path / "out.h5").exists()  # an interrupted run never takes the output's name
    kept = pathlib.Path(s["incomplete_output"])
    assert kept.exists()
    got, attrs = read_group(kept)
    assert attrs["complete"] == 0 and got["nnz"].size == s["frames"]


def test_a_callback_that_raises_stops_the_scan_and_its_exception_reaches_the_caller(tmp_path):
    write_scan(tmp_path / "s.h5", scan_frames(400))

    def boom(done, total):
        raise KeyError("from the callback")

    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        with pytest.raises(KeyError, match="from the callback"):
            bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu", progress=boom)
    assert not (tmp_path / "out.h5").exists()


def test_the_gil_is_released_while_the_scan_runs(tmp_path):
    # A thread that gives the GIL up at every step and, with a switch interval of 10 s, gets it
    # back only when no one holds it: it counts only while the scan runs without the GIL.
    write_scan(tmp_path / "s.h5", scan_frames(1500))
    ticks, done = [0], threading.Event()

    def count():
        while not done.is_set():
            ticks[0] += 1
            time.sleep(0)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(10)
    t = threading.Thread(target=count)
    try:
        t.start()
        before = ticks[0]
        bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu")
        during = ticks[0] - before
    finally:
        done.set()
        t.join()
        sys.setswitchinterval(interval)
    assert during > 100


def test_ctrl_c_stops_the_scan_after_the_batch_in_hand_and_raises_keyboardinterrupt(tmp_path):
    write_scan(tmp_path / "s.h5", scan_frames(3000))
    first, sent = threading.Event(), threading.Event()

    main_thread = threading.main_thread().ident

    def interrupt():
        first.wait(60)
        # To the main thread, as a terminal's Ctrl-C reaches Python: sent to the process, the
        # signal may land on one of the job's threads, and the main thread learns of it only
        # at its next check, which a loaded host can put after the scan's last batch.
        signal.pthread_kill(main_thread, signal.SIGINT)
        sent.set()

    def progress(done, total):
        # The first batch waits until the signal has been sent (a wait the signal interrupts),
        # not a fixed time: on a loaded host this thread may not run within a second.
        if not first.is_set():
            first.set()
            sent.wait(60)
            time.sleep(0.5)  # the handler runs at the main thread's next check, here at the latest

    # Python turns SIGINT into KeyboardInterrupt only where it was not ignored when the
    # interpreter started, and a job started in the background by a shell without job control
    # (`cmd &` in a script, nohup) inherits it ignored: the test sets the handler itself.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    t = threading.Thread(target=interrupt)
    t.start()
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            with pytest.raises(KeyboardInterrupt):
                bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu", progress=progress)
    finally:
        first.set()
        t.join()
        signal.signal(signal.SIGINT, before)
    assert not (tmp_path / "out.h5").exists()
    assert any("incomplete" in str(w.message) for w in seen)


@pytest.mark.parametrize("keywords, message", [
    (dict(cut=1), r"overwrite=True"),
    (dict(cut=1, mask="m.h5"), r"mask"),
    (dict(cut=1, use_mask=np.ones((3, 3)), overwrite=True), r"use_mask"),
    (dict(cut=1, compression="zip", overwrite=True), r"compression"),
    (dict(cut=1, on_error="maybe", overwrite=True), r"on_error|maybe"),
    (dict(cut=1, frames="9:3", overwrite=True), r"9:3"),
    (dict(cut=1, acc="f16", overwrite=True), r"f16"),
    (dict(), r"cut=C"),
    (dict(cut=1, thresholds=[1, 2], overwrite=True), r"howmany=N"),
    (dict(cut=1, mask="a.h5:/m", no_mask=True), r"no_mask=True"),
])
def test_a_bad_argument_is_a_valueerror_naming_the_keyword_never_a_command_option(tmp_path, keywords, message):
    write_scan(tmp_path / "s.h5", scan_frames(3))
    (tmp_path / "out.h5").write_bytes(b"already here")
    with pytest.raises(ValueError, match=message) as e:
        bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), where="cpu", **keywords)
    assert "--" not in str(e.value), str(e.value)
    assert (tmp_path / "out.h5").read_bytes() == b"already here"


def test_no_gpu_is_an_error_naming_where_not_a_run_on_the_cpu(tmp_path):
    try:
        from bslz4 import cuda

        if cuda.device_count() > 0:
            pytest.skip("a GPU is present")
    except ImportError:
        pass  # no GPU runtime, or no driver: the case of this test
    write_scan(tmp_path / "s.h5", scan_frames(3))
    with pytest.raises(ValueError, match=r"where='cpu'") as e:
        bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="gpu")
    assert "--" not in str(e.value)
    assert not (tmp_path / "out.h5").exists()


def test_the_output_is_never_a_file_it_reads(tmp_path):
    frames = scan_frames(5)
    write_scan(tmp_path / "s.h5", frames)
    before = (tmp_path / "s.h5").read_bytes()
    with pytest.raises(ValueError, match="s.h5"):
        bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "s.h5"), cut=1, overwrite=True, where="cpu")
    assert (tmp_path / "s.h5").read_bytes() == before


def test_a_missing_input_or_mask_file_names_the_file_and_writes_nothing(tmp_path):
    with pytest.raises(RuntimeError, match="nope.h5: cannot open"):
        bslz4.sparse_scan(str(tmp_path / "nope.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu")
    write_scan(tmp_path / "s.h5", scan_frames(3))
    with pytest.raises(RuntimeError, match="nomask.h5: cannot open") as e:
        bslz4.sparse_scan(str(tmp_path / "s.h5"), str(tmp_path / "out.h5"), cut=1, where="cpu",
                          use_mask=str(tmp_path / "nomask.h5") + ":/m")
    assert "--" not in str(e.value)
    assert not (tmp_path / "out.h5").exists()
