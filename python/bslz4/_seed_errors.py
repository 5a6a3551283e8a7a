"""The seed's error numbers and the form of its messages, so that code written for the seed
(which raised plain Exceptions reading "Error decoding chunk: -107: ..." or "Error decoding
batch: -107: ...", and named bad chunks "chunks [k]") still matches ours. Each of our errors
that has a seed counterpart begins with that form and carries seed_code and seed_message;
what follows is our own message (naming the frame and block)."""
import re

# The seed's numbers and its descriptions of them, word for word: code written for the seed
# matches on them ("corrupt", "truncated", "no chunks were given"), so they are an interface.
DESCRIPTIONS = {
    -100: "the cut must not be negative or NaN, and the top_pixels request must be well formed",
    -2: "a chunk failed to decompress (its compressed data is corrupt)",
    -99: "a chunk's decompressed size needs more pixels than the mask has",
    -105: "no chunks were given",
    -106: "the chunks do not share the same total size and block size",
    -107: "a chunk is corrupt or truncated (its header, a block length or its raw tail lies outside the chunk)",
    -108: "a chunk offset or size lies outside the buffer it refers to",
    -110: "a chunk's decompressed size is smaller than the mask (frame and mask shapes differ)",
}

# Our ErrorCode names -> the seed's number for the same fault (a wrong decoded size: code_for).
_BY_CODE = {
    "truncated_chunk": -107,
    "bad_header": -107,
    "bad_block_length": -107,
    "bad_lz4_sequence": -2,
    "bad_zstd_frame": -2,
}
_SIZES = re.compile(r"decoded size (\d+) bytes is not the frame size (\d+) bytes")


def code_for(code_name, message, against="mask"):
    """The seed's number for one of our errors (code name and C++ message), or None. against:
    what a chunk's decoded size was checked against: "mask" (the CPU classes: -99 or -110 by
    which way it is wrong), "gpu" (the GPU classes: -106, as the seed's GPU) or "first" (the
    first chunk of a call without a mask, decompress and block_starts: -106)."""
    if code_name in _BY_CODE:
        return _BY_CODE[code_name]
    if code_name == "wrong_decoded_size":
        m = _SIZES.search(message)
        if against == "mask" and m:
            return -99 if int(m.group(1)) > int(m.group(2)) else -110
        return -106
    return None


def detail_for(seed_code, against):
    """The seed's GPU classes said -106 of one chunk, not of chunks that differ."""
    if seed_code == -106 and against == "gpu":
        return "the chunk is not a frame of the mask's size"
    return None


def message(seed_code, batch, chunks=None, detail=None):
    """'Error decoding batch: -107: <description>; chunks [1]' (chunk instead of batch for a call
    of one chunk). detail replaces the description (the seed's GPU wording of -106)."""
    text = "Error decoding %s: %d: %s" % ("batch" if batch else "chunk", seed_code,
                                         detail or DESCRIPTIONS.get(seed_code, "unknown error"))
    if chunks:
        text += "; chunks %s" % (list(chunks),)
    return text


def value_error(seed_code, ours=None, batch=True, chunks=None):
    """A ValueError (our kind for a bad argument) that reads, and carries, the seed's error: the
    seed's form first, then our message when it adds something."""
    seed_text = message(seed_code, batch, chunks)
    e = ValueError(seed_text + "." + ("" if ours is None else " " + ours))
    e.seed_code, e.seed_message, e.chunks = seed_code, seed_text, list(chunks or [])
    return e
