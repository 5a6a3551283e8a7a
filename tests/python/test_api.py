"""The package's calls as the seed's users make them: errors, the drop-in import, the h5py
function, top pixels, threads."""
import threading

import numpy as np
import pytest

import bslz4
from conftest import expected_lists, hdf5plugin_chunks, random_frames


def small_chunk(values=None):
    frame = (np.arange(600) % 17).astype(np.uint16) if values is None else values
    return bslz4._bslz4.encode_chunk(frame.tobytes(), 2, "lz4"), frame


def test_a_truncated_chunk_is_a_decode_error_naming_frame_and_block():
    chunk, _ = small_chunk()
    c = bslz4.chunk2sparse(np.ones((20, 30), np.uint8), np.uint16)
    with pytest.raises(bslz4.DecodeError) as e:
        c.multi([chunk, chunk[:-5]], 1)
    assert e.value.frame == 1 and e.value.block == 0 and e.value.code == "bad_block_length"
    assert "frame 1" in str(e.value)
    n, _ = c(chunk, 1)  # the object keeps working
    assert n > 0


def test_bad_arguments_are_value_errors():
    chunk, _ = small_chunk()
    mask = np.ones((20, 30), np.uint8)
    with pytest.raises(ValueError):
        bslz4.chunk2sparse(np.ones(600, np.uint8), np.uint16)  # not 2-D
    with pytest.raises(ValueError):
        bslz4.chunk2sparse(mask, np.complex64)
    with pytest.raises(ValueError):
        bslz4.chunk2sparse(mask, ">u2")
    with pytest.raises(ValueError):
        bslz4.chunk2sparse(mask, np.uint16, codec="gzip")
    c = bslz4.chunk2sparse(mask, np.uint16)
    with pytest.raises(ValueError):
        c.multi([], 1)
    with pytest.raises(ValueError):
        c(chunk, float("nan"))
    with pytest.raises(ValueError):
        c.set_top_pixels(10, [5, 3])  # not sorted
    with pytest.raises(ValueError):
        c.set_top_pixels(-1)
    with pytest.raises(ValueError):
        c.from_buffer(chunk, [0], [len(chunk) + 10], 1)  # outside the buffer
    with pytest.raises(ValueError):
        c.from_buffer(chunk, [-1], [10], 1)
    with pytest.raises(TypeError):
        c([1, 2, 3], 1)
    with pytest.raises(ValueError):
        c(np.frombuffer(chunk, np.uint8)[::2], 1)  # not contiguous
    with pytest.raises(bslz4.DecodeError) as e:  # a chunk of another frame size than the mask's
        bslz4.chunk2sparse(np.ones((10, 30), np.uint8), np.uint16)(chunk, 1)
    assert e.value.code == "wrong_decoded_size" and e.value.frame == 0


def test_the_cpu_classes_refuse_a_cut_below_zero_as_the_seed_does_at_the_call():
    frame = np.array([-5, -2, 0, 3] * 150, np.int16)
    chunk = bslz4._bslz4.encode_chunk(frame.tobytes(), 2, "lz4")
    c = bslz4.chunk2sparse(np.ones((20, 30), np.uint8), np.int16)  # made: the refusal is the call's
    for cut in (-2.5, -0.5, -1, float("-inf")):  # integer pixels: floored first, so -0.5 is below 0
        for call in (lambda: c(chunk, cut), lambda: c.multi([chunk], cut), lambda: c.from_frames(frame[None], cut)):
            with pytest.raises(ValueError) as e:
                call()
            assert str(e.value).startswith("Error decoding chunk: -100: the cut must not be negative")
            assert e.value.seed_code == -100
    n, (values, indices) = c(chunk, -0.0)
    assert n == 150 and set(values[:n]) == {3}
    n, (values, indices) = c(chunk, 0)
    assert n == 150


def test_top_pixels_keep_the_first_howmany_above_the_chosen_threshold():
    frame = np.zeros(600, np.uint16)
    frame[::3] = 5
    frame[::10] = 40
    chunk = bslz4._bslz4.encode_chunk(frame.tobytes(), 2, "lz4")
    c = bslz4.chunk2sparse(np.ones((20, 30), np.uint8), np.uint16, howmany=50, thresholds=[1, 10, 100])
    n, (values, indices) = c(chunk, 0)
    # 240 pixels above 0 and above 1; above 10 the 60 at 40 (not fewer than 50); above 100 none
    assert n == 0 and c.last_cut[0] == 100 and c.last_nabove[0] == 0
    c.set_top_pixels(70, [1, 10, 100])
    n, (values, indices) = c(chunk, 0)
    assert n == 60 and c.last_cut[0] == 10 and c.last_nabove[0] == 60
    c.set_top_pixels(None)
    n, _ = c(chunk, 0)
    assert n == 240 and c.last_cut[0] == 0 and c.last_nabove[0] == 240


def test_the_package_is_a_drop_in_for_the_seed_import():
    import bslz4 as bslz4_to_sparse  # how ImageD11's segmenter would take it

    chunk, frame = small_chunk()
    mask = np.ones((20, 30), np.uint8)
    c = bslz4_to_sparse.chunk2sparse(mask, dtype=np.uint16)
    npx, (vals, inds) = c(chunk, 4)
    want_i, want_v = expected_lists(frame, mask, 4)
    np.testing.assert_array_equal(inds[:npx], want_i)
    np.testing.assert_array_equal(vals[:npx], want_v)


def test_bslz4_to_sparse_reads_a_frame_of_an_h5py_dataset(tmp_path):
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    hdf5plugin = pytest.importorskip("hdf5plugin", reason="hdf5plugin is not installed")
    frames = random_frames(np.uint32, 3, 25, 40, seed=7)
    mask = (np.arange(1000).reshape(25, 40) % 5 != 0).astype(np.uint8)
    with h5py.File(tmp_path / "scan.h5", "w") as f:
        ds = f.create_dataset("data", data=frames, chunks=(1, 25, 40), **hdf5plugin.Bitshuffle())
        npx, (values, indices) = bslz4.bslz4_to_sparse(ds, 2, 3, mask)
        want_i, want_v = expected_lists(frames[2], mask, 3)
        np.testing.assert_array_equal(indices[:npx], want_i)
        np.testing.assert_array_equal(values[:npx], want_v)
        buf = (np.empty(1000, np.uint32), np.empty(1000, np.uint32))
        npx2, (v2, i2) = bslz4.bslz4_to_sparse(ds, 2, 3, mask.ravel(), pixelbuffer=buf)
        assert npx2 == npx and v2 is buf[0] and i2 is buf[1]
        np.testing.assert_array_equal(buf[1][:npx], want_i)
        npx3, _ = bslz4.bslz4_to_sparse(ds, 0, 3)
        assert npx3 == int((frames[0] > 3).sum())
        # a strided pixelbuffer would be written through a copy and come back unwritten: refused
        strided = (np.empty(2000, np.uint32)[::2], np.empty(1000, np.uint32))
        with pytest.raises(ValueError, match="C-contiguous"):
            bslz4.bslz4_to_sparse(ds, 2, 3, mask.ravel(), pixelbuffer=strided)


def test_objects_in_threads_decode_at_once_with_the_gil_released(tmp_path):
    frames = random_frames(np.uint16, 8, 64, 64, seed=11)
    chunks = hdf5plugin_chunks(frames, "lz4", tmp_path)
    mask = np.ones((64, 64), np.uint8)
    want = [expected_lists(f, mask, 2)[0] for f in frames]
    errors = []

    def work():
        c = bslz4.chunk2sparse(mask, np.uint16, threads=1)
        for _ in range(30):
            npixels, (values, indices) = c.multi(chunks, 2)
            for f in range(8):
                if not np.array_equal(indices[f, : npixels[f]], want[f]):
                    errors.append(f)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_one_object_refuses_a_second_threads_call_while_in_one(tmp_path):
    frames = random_frames(np.uint16, 64, 256, 256, seed=12)
    chunks = hdf5plugin_chunks(frames, "lz4", tmp_path)
    c = bslz4.chunk2sparse(np.ones((256, 256), np.uint8), np.uint16, threads=1)
    refused, other = [], []

    def call():
        try:
            for _ in range(5):
                c.multi(chunks, 1)
        except ValueError as e:
            refused.append(str(e))
        except Exception as e:  # anything else is a defect
            other.append(repr(e))

    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert other == []
    assert all("another thread" in r for r in refused)
    npixels, (values, indices) = c.multi(chunks, 1)  # still right afterwards
    np.testing.assert_array_equal(indices[5, : npixels[5]], expected_lists(frames[5], np.ones((256, 256)), 1)[0])
