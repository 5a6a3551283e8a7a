"""What the classes' arguments mean, checked once before they reach C++: a bad argument is a
ValueError (or TypeError for a wrong kind of object) naming it."""
import math

import numpy as np

CODEC_LZ4 = 2  # the seed's numbers (bslz4_to_sparse.CODEC_LZ4, CODEC_ZSTD), as HDF5's cd_values[4]
CODEC_ZSTD = 3
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

_TYPE_NAMES = {
    ("u", 1): "u8", ("u", 2): "u16", ("u", 4): "u32", ("u", 8): "u64",
    ("i", 1): "i8", ("i", 2): "i16", ("i", 4): "i32", ("i", 8): "i64",
    ("f", 4): "f32", ("f", 8): "f64",
}


def pixel_type(dtype):
    """(numpy dtype, the C++ PixelType name) of a pixel dtype; little-endian or native only."""
    dt = np.dtype(dtype)
    name = _TYPE_NAMES.get((dt.kind, dt.itemsize))
    if name is None:
        raise ValueError("pixel dtype %s: expected one of uint8 ... uint64, int8 ... int64, float32, float64" % dt)
    if dt.byteorder == ">":
        raise ValueError("pixel dtype %s is big-endian: bitshuffle chunks hold little-endian pixels" % dt)
    return dt.newbyteorder("="), name


def frame_mask(mask):
    """(a contiguous uint8 array of the mask, nonzero = use the pixel; ni; nj) of a 2-D mask."""
    m = np.asarray(mask)
    if m.ndim != 2:
        raise ValueError("mask must be a 2-D array (ni, nj), got shape %s" % (m.shape,))
    if m.dtype == np.uint8 or m.dtype == np.bool_:
        m = np.ascontiguousarray(m).view(np.uint8)
    else:
        m = np.ascontiguousarray(m != 0, np.uint8)
    return m, m.shape[0], m.shape[1]


def codec_number(codec):
    """CODEC_LZ4 / CODEC_ZSTD of a codec argument, or None (found from the first chunk)."""
    if codec is None:
        return None
    if isinstance(codec, str):
        names = {"lz4": CODEC_LZ4, "zstd": CODEC_ZSTD}
        if codec.lower() in names:
            return names[codec.lower()]
    elif codec in (CODEC_LZ4, CODEC_ZSTD):
        return int(codec)
    raise ValueError("codec %r: expected None, 'lz4', 'zstd', CODEC_LZ4 or CODEC_ZSTD" % (codec,))


def codec_name(number):
    return "zstd" if number == CODEC_ZSTD else "lz4"


def chunk_codec(chunk):
    """The codec of a chunk's blocks: a zstd block starts with zstd's magic number."""
    head = memoryview(chunk).cast("B")[16:20]
    return CODEC_ZSTD if bytes(head) == _ZSTD_MAGIC else CODEC_LZ4


def cut_value(cut):
    """The cut as a float: one number; NaN is refused (no pixel is above it)."""
    c = np.asarray(cut)
    if c.size != 1:
        raise ValueError("the cut must be one number, got %d values" % c.size)
    v = float(c.reshape(-1)[0])
    if math.isnan(v):
        raise ValueError("the cut must not be NaN")
    return v


def top_pixels(howmany, thresholds):
    """(howmany, thresholds) as C++ takes them: None or an integer >= 0; None or a list of floats
    (C++ checks the list: at most 16, sorted increasing, no NaN)."""
    if howmany is not None:
        if isinstance(howmany, (bool, np.bool_)) or int(howmany) != howmany or howmany < 0:
            raise ValueError("howmany must be None or an integer >= 0, got %r" % (howmany,))
        howmany = int(howmany)
    if thresholds is not None:
        thresholds = [float(t) for t in np.asarray(thresholds, np.float64).ravel()]
    return howmany, thresholds


def count_or_zero(value, name):
    """batch, group: None (chosen by the library, 0 in C++) or an integer >= 1."""
    if value is None:
        return 0
    if int(value) != value or value < 1:
        raise ValueError("%s must be None or an integer >= 1, got %r" % (name, value))
    return int(value)


def threads_or_zero(threads):
    if threads is None:
        return 0
    if int(threads) != threads or threads < 0:
        raise ValueError("threads must be None or an integer >= 0, got %r" % (threads,))
    return int(threads)
