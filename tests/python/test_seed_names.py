"""Every public name of the seed package (bslz4_to_sparse 0.0.22a2, in the interop venv) is ours
too, with its parameters, and gives the seed's results on the same input: detect_codec,
locate_chunks, offsets_lengths, decompress and decompress_from_buffer (pixels and blocks as
stored, into out), block_starts and block_starts_from_buffer, from_frames, plan, build_info,
describe, FixedPointMatrix.to_scipy. The refusals the seed makes, we make."""
import inspect

import numpy as np
import pytest

import bslz4
from conftest import random_frames

SEED_SIGNATURES_DIFFER = {
    # wbits is our C++ weight_bits (2 to 63; the seed's default 32 read as 63); doc/python.md lists it
    "fixed_point_matrix": {"wbits"},
}


def seed_022(seed):
    if not seed.version.startswith("0.0.22"):
        pytest.skip("these compare with bslz4_to_sparse 0.0.22a2, not %s" % seed.version)
    return seed


def parameters(obj):
    target = obj.__init__ if inspect.isclass(obj) else obj
    return [(p.name, p.default if p.default is not inspect.Parameter.empty else "<none>")
            for p in inspect.signature(target).parameters.values() if p.kind is not p.KEYWORD_ONLY]


def test_every_public_name_of_the_seed_is_ours_with_its_parameters(seed_package):
    seed = seed_022(seed_package)
    for name in seed.__all__:
        assert hasattr(bslz4, name), name
        theirs = getattr(seed, name)
        if not callable(theirs):
            continue
        ours = getattr(bslz4, name)
        skip = SEED_SIGNATURES_DIFFER.get(name, set())
        t = [(n, d) for n, d in parameters(theirs) if n not in skip]
        o = [(n, d) for n, d in parameters(ours) if n not in skip]
        assert [n for n, _ in o] == [n for n, _ in t], name
        for (n, d_o), (_, d_t) in zip(o, t):
            if isinstance(d_t, (type(None), bool, int, float, str)):
                assert d_o == d_t or (n == "dtype" and np.dtype(d_o) == np.dtype(d_t)), (name, n)
    for cls in ("chunk2sparse", "chunk2sparseCSC"):
        methods = [m for m in vars(getattr(seed, cls)) if not m.startswith("_")] + ["__call__"]
        assert "from_frames" in methods
        for method in methods:
            theirs = getattr(getattr(seed, cls), method)
            if not callable(theirs):
                assert hasattr(getattr(bslz4, cls), method), (cls, method)
                continue
            ours = getattr(getattr(bslz4, cls), method)
            assert [p.name for p in inspect.signature(ours).parameters.values()] == [
                p.name for p in inspect.signature(theirs).parameters.values()], (cls, method)
    assert callable(bslz4.plan(np.ones((4, 4), np.uint8), _unit_matrix(16), np.uint16).context)
    assert callable(bslz4.FixedPointMatrix.to_scipy)


def _unit_matrix(npix):
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    return scipy_sparse.csc_matrix((np.ones(npix, np.float32), (np.arange(npix) % 3, np.arange(npix))),
                                   shape=(3, npix))


@pytest.fixture(scope="module")
def scan(tmp_path_factory):
    """An h5py file of 5 frames (48 x 40 u16) with an lz4 and a zstd dataset."""
    h5py = pytest.importorskip("h5py", reason="h5py is not installed")
    hdf5plugin = pytest.importorskip("hdf5plugin", reason="hdf5plugin is not installed")
    frames = random_frames(np.uint16, 5, 48, 40, seed=3)
    path = tmp_path_factory.mktemp("scan") / "scan.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("lz4", data=frames, chunks=(1, 48, 40), **hdf5plugin.Bitshuffle(cname="lz4"))
        f.create_dataset("zstd", data=frames, chunks=(1, 48, 40), **hdf5plugin.Bitshuffle(cname="zstd"))
        f.create_dataset("plain", data=frames)
    return path, frames


def chunks_of(path, name):
    import h5py

    with h5py.File(path, "r") as f:
        ds = f[name]
        return [ds.id.read_direct_chunk((k, 0, 0))[1] for k in range(ds.shape[0])]


def test_detect_codec_locate_chunks_and_offsets_lengths_are_the_seeds(seed_package, scan):
    import h5py

    seed = seed_022(seed_package)
    path, _ = scan
    with h5py.File(path, "r") as f:
        for name in ("lz4", "zstd", "plain"):
            assert bslz4.detect_codec(f[name]) == seed.detect_codec(f[name]), name
        assert bslz4.detect_codec(f["zstd"]) == bslz4.CODEC_ZSTD
        where = bslz4.locate_chunks(f["lz4"])
        assert where == seed.locate_chunks(f["lz4"])
        for name in ("plain",):  # refused by both: not chunked
            with pytest.raises(ValueError):
                seed.locate_chunks(f[name])
            with pytest.raises(ValueError):
                bslz4.locate_chunks(f[name])
    for frames in ([4, 0, 2], [1]):
        ours, theirs = bslz4.offsets_lengths(where, frames), seed.offsets_lengths(where, frames)
        for a, b in zip(ours, theirs):
            np.testing.assert_array_equal(a, b)
            assert a.dtype == b.dtype


@pytest.mark.parametrize("codec", ["lz4", "zstd"])
def test_decompress_and_decompress_from_buffer_give_the_seeds_arrays(seed_package, scan, codec):
    import h5py

    seed = seed_022(seed_package)
    path, frames = scan
    chunks = chunks_of(path, codec)
    for unshuffle in (True, False):
        ours = bslz4.decompress(chunks, np.uint16, unshuffle=unshuffle)
        theirs = seed.decompress(chunks, np.uint16, unshuffle=unshuffle)
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(bslz4.decompress(chunks, np.uint16).reshape(frames.shape), frames)
    out = np.zeros((6, 48 * 40), np.uint16)
    assert bslz4.decompress(chunks, np.uint16, out=out) is out
    np.testing.assert_array_equal(out[:5].reshape(frames.shape), frames)
    with h5py.File(path, "r") as f:
        offsets, lengths = bslz4.offsets_lengths(bslz4.locate_chunks(f[codec]), [3, 1])
    whole = np.fromfile(path, np.uint8)
    ours = bslz4.decompress_from_buffer(whole, offsets, lengths, np.uint16)
    np.testing.assert_array_equal(ours, seed.decompress_from_buffer(whole, offsets, lengths, np.uint16))
    np.testing.assert_array_equal(ours.reshape(2, 48, 40), frames[[3, 1]])
    mapped = np.memmap(path, np.uint8, "r")
    np.testing.assert_array_equal(bslz4.decompress_from_buffer(mapped, offsets, lengths, np.uint16, unshuffle=False),
                                  seed.decompress_from_buffer(mapped, offsets, lengths, np.uint16, unshuffle=False))


def test_decompress_refuses_what_the_seed_refuses(seed_package, scan):
    seed = seed_022(seed_package)
    path, _ = scan
    chunks = chunks_of(path, "lz4")
    for call in (lambda m: m.decompress([], np.uint16),
                 lambda m: m.decompress(chunks, np.uint16, out=np.zeros(10, np.uint16)),
                 lambda m: m.decompress(chunks, np.dtype("V3")),  # 3-byte pixels
                 lambda m: m.decompress_from_buffer(b"".join(chunks), [0], [10 ** 6], np.uint16),
                 lambda m: m.block_starts([], np.uint16)):
        with pytest.raises(Exception) as theirs:
            call(seed)
        with pytest.raises(Exception) as ours:
            call(bslz4)
        assert isinstance(ours.value, ValueError), ours.value
        code = str(theirs.value).split(":")[1].strip() if str(theirs.value).startswith("Error decoding") else None
        if code is not None:
            assert str(ours.value).split(":")[1].strip() == code, (str(ours.value), str(theirs.value))


def test_one_chunk_alone_decompresses_to_its_pixels():
    frame = (np.arange(600) % 13).astype(np.int32)
    chunk = bslz4._bslz4.encode_chunk(frame.tobytes(), 4, "lz4")
    got = bslz4.decompress(chunk, np.int32)
    assert got.shape == (600,)
    np.testing.assert_array_equal(got, frame)


def test_block_starts_are_the_seeds_and_name_every_bad_chunk(seed_package, scan):
    seed = seed_022(seed_package)
    path, _ = scan
    chunks = chunks_of(path, "lz4")
    ours = bslz4.block_starts(chunks, np.uint16)
    np.testing.assert_array_equal(ours, seed.block_starts(chunks, np.uint16))
    assert ours.dtype == np.uint32
    base = b"".join(chunks)
    offsets = np.cumsum([0] + [len(c) for c in chunks[:-1]])
    lengths = [len(c) for c in chunks]
    np.testing.assert_array_equal(bslz4.block_starts_from_buffer(base, offsets, lengths, np.uint16),
                                  seed.block_starts_from_buffer(base, offsets, lengths, np.uint16))
    out = np.zeros(ours.size + 3, np.uint32)
    np.testing.assert_array_equal(bslz4.block_starts(chunks, np.uint16, out=out), ours)
    bad = [chunks[0], chunks[1][:30], chunks[2], chunks[3][:40]]
    with pytest.raises(Exception) as theirs:
        seed.block_starts(bad, np.uint16)
    with pytest.raises(bslz4.DecodeError) as e:
        bslz4.block_starts(bad, np.uint16)
    assert e.value.chunks == [1, 3] and e.value.seed_code == -107
    assert str(e.value).startswith(str(theirs.value).rstrip(".").split(";")[0])
    assert "chunks [1, 3]" in str(e.value) and "chunks [1, 3]" in str(theirs.value)


def test_from_frames_gives_the_seeds_lists_and_our_multis(seed_package):
    seed = seed_022(seed_package)
    frames = random_frames(np.uint16, 4, 30, 20, seed=5)
    mask = np.ones((30, 20), np.uint8)
    mask[3:7, 2:9] = 0
    chunks = [bslz4._bslz4.encode_chunk(f.tobytes(), 2, "lz4") for f in frames]
    for howmany in (None, 20):
        ours = bslz4.chunk2sparse(mask, np.uint16, howmany=howmany)
        theirs = seed.chunk2sparse(mask, np.uint16, howmany=howmany)
        n, (v, i) = ours.from_frames(frames, 1)
        n, v, i = n.copy(), v.copy(), i.copy()
        tn, (tv, ti) = theirs.from_frames(frames, 1)
        mn, (mv, mi) = ours.multi(chunks, 1)
        np.testing.assert_array_equal(n, tn)
        np.testing.assert_array_equal(n, mn)
        for f in range(4):
            np.testing.assert_array_equal(i[f, :n[f]], ti[f, :n[f]])
            np.testing.assert_array_equal(v[f, :n[f]], tv[f, :n[f]])
            np.testing.assert_array_equal(i[f, :n[f]], mi[f, :n[f]])
    n_flat = ours.from_frames(frames.reshape(4, -1).astype(np.int64), 1)[0]  # copied to the pixel dtype
    np.testing.assert_array_equal(n_flat, mn)
    with pytest.raises(ValueError):
        ours.from_frames(frames[:, :5], 1)
    with pytest.raises(ValueError):
        theirs.from_frames(frames[:, :5], 1)


def test_from_frames_powders_equal_multis_on_the_chunks():
    frames = random_frames(np.uint16, 3, 30, 20, seed=6)
    mask = np.ones((30, 20), np.uint8)
    chunks = [bslz4._bslz4.encode_chunk(f.tobytes(), 2, "lz4") for f in frames]
    for matrix in (_unit_matrix(600), bslz4.fixed_point_matrix(_unit_matrix(600), mask, np.uint16)):
        c = bslz4.chunk2sparseCSC(mask, matrix, np.uint16)
        p_frames = c.from_frames(frames, 2)[2].copy()
        np.testing.assert_array_equal(p_frames, c.multi(chunks, 2)[2])


def test_fixed_point_to_scipy_times_a_frame_is_the_int64_powder():
    rng = np.random.default_rng(2)
    scipy_sparse = pytest.importorskip("scipy.sparse", reason="scipy is not installed")
    npix = 600
    csc = scipy_sparse.csc_matrix((rng.random(2 * npix).astype(np.float32),
                                   (rng.integers(0, 40, 2 * npix), rng.integers(0, npix, 2 * npix))), shape=(40, npix))
    mask = np.ones((30, 20), np.uint8)
    mask[0, :5] = 0
    fixed = bslz4.fixed_point_matrix(csc, mask, np.uint16)
    m = fixed.to_scipy()
    assert m.format == "csc" and m.dtype == np.int64 and m.shape == (40, npix)
    frames = random_frames(np.uint16, 2, 30, 20, seed=8)
    c = bslz4.chunk2sparseCSC(mask, fixed, np.uint16)
    powder = c.from_frames(frames, 0)[2]
    for f in range(2):
        np.testing.assert_array_equal(m @ frames[f].reshape(-1).astype(np.int64), powder[f])
    m.data[:] = 0  # a copy: the matrix is not changed
    np.testing.assert_array_equal(c.from_frames(frames, 0)[2], powder)


def test_a_plan_makes_objects_that_equal_chunk2sparsecsc_and_refuses_another_mask():
    frames = random_frames(np.uint16, 3, 30, 20, seed=9)
    mask = np.ones((30, 20), np.uint8)
    mask[5, :] = 0
    matrix = _unit_matrix(600)
    p = bslz4.plan(mask, matrix, np.uint16)
    direct = bslz4.chunk2sparseCSC(mask, matrix, np.uint16).from_frames(frames, 1)[2].copy()
    for c in (p.context(), p.context(howmany=5), bslz4.chunk2sparseCSC(mask, p, np.uint16)):
        np.testing.assert_array_equal(c.from_frames(frames, 1)[2], direct)
    assert p.context(howmany=5).howmany == 5
    with pytest.raises(ValueError):
        bslz4.chunk2sparseCSC(np.ones((30, 20), np.uint8), p, np.uint16)


def test_build_info_has_the_seeds_keys_and_describe_its_steps(seed_package):
    seed = seed_022(seed_package)
    ours, theirs = bslz4.build_info(), seed.build_info()
    assert set(ours) == set(theirs)
    assert ours["version"] == bslz4.version and len(ours["src_sha256"]) == 64
    assert isinstance(ours["modified"], list) and ours["built_utc"].endswith("Z")
    assert set(bslz4.describe()) == set(seed.describe())
    assert set(bslz4.describe({"dot": "csc"})) == set(seed.describe({"dot": "csc"}))
    assert all(v is None for v in bslz4.describe({"dot": "csc"}).values())
