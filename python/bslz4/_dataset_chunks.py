"""What an h5py dataset says about its chunks, as the seed's detect_codec, locate_chunks and
offsets_lengths: the codec its bitshuffle filter was set up with, and where each frame's chunk
lies in the file, so that from_buffer (or decompress_from_buffer) reads the chunks from one
buffer holding the file (an np.memmap) with no h5py call a frame."""
import numpy as np

from ._arguments import CODEC_LZ4

BITSHUFFLE_FILTER = 32008  # HDF5's registered id of the bitshuffle filter
_CODEC_VALUE = 4  # its cd_values[4]: 0 none, 2 lz4, 3 zstd (our CODEC_LZ4 and CODEC_ZSTD)


def detect_codec(ds):
    """CODEC_LZ4 or CODEC_ZSTD: the block codec of the dataset's bitshuffle filter, read from its
    HDF5 filter pipeline (cd_values[4]); CODEC_LZ4 when that cannot be read (no bitshuffle
    filter, an old writer that recorded fewer values, not an h5py dataset)."""
    try:
        plist = ds.id.get_create_plist()
        for k in range(plist.get_nfilters()):
            filter_id, _flags, values, _name = plist.get_filter(k)
            if filter_id == BITSHUFFLE_FILTER and len(values) > _CODEC_VALUE:
                return int(values[_CODEC_VALUE])
    except Exception:  # noqa: BLE001 -- anything unreadable is the default, as in the seed
        pass
    return CODEC_LZ4


def locate_chunks(ds):
    """{frame: (byte_offset, byte_size)}: where each frame's compressed chunk lies in the HDF5
    file of a (nframes, ni, nj) dataset chunked one frame a chunk. ValueError for another
    chunking, and for a chunk stored with the bitshuffle filter skipped (it is raw pixels)."""
    chunks = None if ds.chunks is None else tuple(ds.chunks)
    if chunks is None or len(chunks) != 3 or chunks[0] != 1:
        raise ValueError("locate_chunks needs a (nframes, ni, nj) dataset chunked (1, ni, nj), got chunks=%r"
                         % (chunks,))
    found = {}

    def keep(frame, offset, size, filter_mask):
        if filter_mask & 1:
            raise ValueError("the chunk of frame %d was stored with the bitshuffle filter skipped (filter_mask=%d): "
                             "it holds raw pixels, which the decoders do not take" % (frame, filter_mask))
        found[int(frame)] = (int(offset), int(size))

    if hasattr(ds.id, "chunk_iter"):  # one pass over the B-tree (HDF5 >= 1.12.3 / 1.14)
        ds.id.chunk_iter(lambda info: keep(info.chunk_offset[0], info.byte_offset, info.size, info.filter_mask))
    else:
        for k in range(ds.id.get_num_chunks()):
            info = ds.id.get_chunk_info(k)
            keep(info.chunk_offset[0], info.byte_offset, info.size, info.filter_mask)
    return found


def offsets_lengths(frame_offsets, frames):
    """(offsets int64, lengths int32): what from_buffer takes for the given frame numbers, from
    locate_chunks' {frame: (offset, size)}. KeyError for a frame that has no stored chunk."""
    offsets = np.empty(len(frames), np.int64)
    lengths = np.empty(len(frames), np.int32)
    for k, frame in enumerate(frames):
        offsets[k], lengths[k] = frame_offsets[frame]
    return offsets, lengths
