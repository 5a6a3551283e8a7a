"""The sidecar chunk index of a data file: where each frame's compressed chunk lies, kept flat
beside the file so that a run finds every chunk without HDF5 (whose index is B-tree nodes spread
through the file, read under h5py's global lock). The seed's format, so either package reads the
other's sidecars:

    <file>.bslz4idx, or <index_dir>/<the path, / replaced by __>.bslz4idx
    b"BSLZ4IDX", uint32 H (little endian), H bytes of JSON (dataset, shape, dtype, chunks, codec,
    file_size, file_mtime_ns, nframes, declared_nframes, version), zeros to a multiple of 8,
    then nframes int64 byte offsets and nframes int32 byte lengths (little endian).

A sidecar whose recorded size or modification time no longer match the data file is stale and
refused. Only harvest() touches HDF5 (h5py), once a file."""
import json
import os
import struct

import numpy as np

MAGIC = b"BSLZ4IDX"
VERSION = 1
SUFFIX = ".bslz4idx"


class StaleIndex(ValueError):
    """The sidecar describes the data file as it was, not as it is."""


class Index:
    """meta (the JSON header), dataset, shape (frames stored, ni, nj: meta["declared_nframes"] is
    what HDF5 declares, more when an acquisition stopped early), dtype, codec (CODEC_LZ4 or
    CODEC_ZSTD), offsets int64[nframes] and lengths int32[nframes] (each frame's chunk in the file)."""

    def __init__(self, meta, offsets, lengths):
        self.meta = meta
        self.dataset = meta["dataset"]
        self.shape = tuple(meta["shape"])
        self.dtype = np.dtype(meta["dtype"])
        self.codec = meta["codec"]
        self.offsets, self.lengths = offsets, lengths


def sidecar_path(path, index_dir=None):
    """Where the index of data file `path` is kept: beside it, or in index_dir."""
    path = os.path.abspath(path)
    if index_dir is None:
        return path + SUFFIX
    return os.path.join(index_dir, path.strip("/").replace("/", "__") + SUFFIX)


def harvest(path, dset):
    """The Index of dataset `dset` of the HDF5 file `path`, read through h5py (once, serially:
    h5py holds a global lock). A dataset chunked one frame a chunk; frames declared but never
    written are dropped when they are all at the end (an acquisition stopped early). Nothing is
    written: see write_index."""
    import h5py

    from .._dataset_chunks import detect_codec, locate_chunks

    st = os.stat(path)
    with h5py.File(path, "r") as f:
        ds = f[dset]
        if ds.chunks is None or len(ds.chunks) != 3 or ds.chunks[0] != 1:
            raise ValueError("%s: needs one frame per chunk, got chunks=%r" % (path, ds.chunks))
        try:
            where = locate_chunks(ds)
        except ValueError as e:
            raise ValueError("%s: %s" % (path, e))
        declared = int(ds.shape[0])
        stored = len(where)
        if sorted(where) != list(range(stored)):
            raise ValueError("%s: %d of %d frames have no stored chunk and they are not all at the end"
                             % (path, declared - stored, declared))
        offsets = np.array([where[k][0] for k in range(stored)], np.int64)
        lengths = np.array([where[k][1] for k in range(stored)], np.int32)
        meta = dict(version=VERSION, dataset=dset, shape=[stored] + [int(n) for n in ds.shape[1:]],
                    dtype=ds.dtype.str, chunks=[int(n) for n in ds.chunks], codec=int(detect_codec(ds)),
                    file_size=st.st_size, file_mtime_ns=st.st_mtime_ns, nframes=stored,
                    declared_nframes=declared)
    return Index(meta, offsets, lengths)


def write_index(index, path, index_dir=None):
    """Write the Index of data file `path` to its sidecar (12 bytes a frame), under a temporary
    name then renamed, so a reader never sees half of one; returns the sidecar's path."""
    head = json.dumps(index.meta, sort_keys=True).encode("utf-8")
    pad = -(len(MAGIC) + 4 + len(head)) % 8
    out = sidecar_path(path, index_dir)
    if index_dir is not None:
        os.makedirs(index_dir, exist_ok=True)
    tmp = "%s.tmp%d" % (out, os.getpid())
    with open(tmp, "wb") as f:
        f.write(MAGIC + struct.pack("<I", len(head)) + head + b"\0" * pad)
        f.write(np.ascontiguousarray(index.offsets, "<i8").tobytes())
        f.write(np.ascontiguousarray(index.lengths, "<i4").tobytes())
    os.replace(tmp, out)
    return out


def read_index(path, index_dir=None, check=True):
    """The Index in the sidecar of data file `path` (FileNotFoundError when there is none);
    check=True refuses a stale one (StaleIndex)."""
    sidecar = sidecar_path(path, index_dir)
    with open(sidecar, "rb") as f:
        raw = f.read()
    if raw[:8] != MAGIC:
        raise ValueError("%s is not a bslz4 chunk index" % sidecar)
    (head_bytes,) = struct.unpack("<I", raw[8:12])
    meta = json.loads(raw[12:12 + head_bytes].decode("utf-8"))
    if meta.get("version") != VERSION:
        raise ValueError("%s: index version %r, this reads %d" % (sidecar, meta.get("version"), VERSION))
    n = meta["nframes"]
    start = (12 + head_bytes + 7) // 8 * 8
    if len(raw) != start + 12 * n:
        raise ValueError("%s: truncated or corrupt (%d bytes for %d frames)" % (sidecar, len(raw), n))
    offsets = np.frombuffer(raw, "<i8", n, start).astype(np.int64)
    lengths = np.frombuffer(raw, "<i4", n, start + 8 * n).astype(np.int32)
    if check:
        st = os.stat(path)
        if st.st_size != meta["file_size"] or st.st_mtime_ns != meta["file_mtime_ns"]:
            raise StaleIndex("%s was written for a file of %d bytes modified at %d; %s is %d bytes, modified at %d"
                             % (sidecar, meta["file_size"], meta["file_mtime_ns"], path, st.st_size,
                                st.st_mtime_ns))
    return Index(meta, offsets, lengths)
