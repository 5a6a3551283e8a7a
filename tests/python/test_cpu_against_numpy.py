"""The CPU classes against numpy: hdf5plugin compresses, numpy thresholds, every pixel type and
both codecs; the reference chunks of ../shared/testdata against their raw pixels."""
import numpy as np
import pytest

import bslz4
from conftest import DTYPES, expected_lists, hdf5plugin_chunks, random_frames


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
@pytest.mark.parametrize("type_name", sorted(DTYPES))
def test_lists_equal_numpy_for_every_type_and_codec(type_name, codec, tmp_path):
    dtype = DTYPES[type_name]
    frames = random_frames(dtype, 5, 37, 61, seed=len(type_name) + (codec == "zstd"))
    chunks = hdf5plugin_chunks(frames, codec, tmp_path)
    mask = (np.random.default_rng(3).random((37, 61)) > 0.1).astype(np.uint8)
    c = bslz4.chunk2sparse(mask, dtype)
    # (a cut below 0 is refused by the CPU classes, as the seed's: test_api; the C++ tests compare them)
    for cut in (0, 2, 7.5, -0.0):
        npixels, (values, indices) = c.multi(chunks, cut)
        assert values.shape == (5, 37 * 61) and indices.shape == (5, 37 * 61)
        for f in range(5):
            want_i, want_v = expected_lists(frames[f], mask, cut)
            assert npixels[f] == len(want_i)
            np.testing.assert_array_equal(indices[f, : npixels[f]], want_i)
            np.testing.assert_array_equal(values[f, : npixels[f]], want_v)
        assert c.codec == (bslz4.CODEC_ZSTD if codec == "zstd" else bslz4.CODEC_LZ4)


def test_one_frame_call_from_buffer_and_coo_agree_with_multi(tmp_path):
    frames = random_frames(np.uint16, 3, 20, 30, seed=1)
    chunks = hdf5plugin_chunks(frames, "lz4", tmp_path)
    mask = np.ones((20, 30), np.uint8)
    c = bslz4.chunk2sparse(mask, np.uint16)
    want = [expected_lists(f, mask, 1) for f in frames]
    n, (values, indices) = c(chunks[1], 1)
    assert n == len(want[1][0]) and isinstance(n, int)
    np.testing.assert_array_equal(indices[:n], want[1][0])
    base = b"".join(chunks)
    offsets = np.cumsum([0] + [len(x) for x in chunks[:-1]])
    npixels, (values, indices) = c.from_buffer(base, offsets, [len(x) for x in chunks], 1)
    for f in range(3):
        np.testing.assert_array_equal(indices[f, : npixels[f]], want[f][0])
    n, row, col, vals = c.coo(np.frombuffer(chunks[2], np.uint8), 1)
    np.testing.assert_array_equal(row.astype(np.int64) * 30 + col, want[2][0])
    np.testing.assert_array_equal(vals, want[2][1])
    assert row.dtype == np.uint16 and col.dtype == np.uint16


def test_reference_chunks_list_what_numpy_lists(cases):
    checked = 0
    for name, type_name, ni, nj, chunk, pixels in cases:
        if pixels is None:
            continue
        mask = np.ones((ni, nj), np.uint8)
        mask.reshape(-1)[::7] = 0
        c = bslz4.chunk2sparse(mask, DTYPES[type_name])
        n, (values, indices) = c(chunk, 1)
        want_i, want_v = expected_lists(pixels, mask, 1)
        assert n == len(want_i), name
        np.testing.assert_array_equal(indices[:n], want_i, err_msg=name)
        np.testing.assert_array_equal(values[:n].view(np.uint8), want_v.view(np.uint8), err_msg=name)
        checked += 1
    assert checked > 100


def test_decompress_gives_every_pixel(cases):
    for name, type_name, ni, nj, chunk, pixels in cases[:60]:
        if pixels is not None:
            got = bslz4.decompress(chunk, DTYPES[type_name])
            np.testing.assert_array_equal(got.view(np.uint8), pixels.view(np.uint8), err_msg=name)
