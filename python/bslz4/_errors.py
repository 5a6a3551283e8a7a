"""bslz4.DecodeError: a chunk that cannot be decoded, and where it went wrong, in our words and
in the seed's (its error number and message form, see _seed_errors)."""
import re

from . import _seed_errors

_FRAME = re.compile(r"^frame (\d+): ")
_BLOCK = re.compile(r"\bblock (\d+)\b")


class DecodeError(Exception):
    """A chunk that cannot be decoded (truncated, a lying header or block length, a broken LZ4
    sequence or zstd frame, the wrong decoded size).

    str(e) is the seed's form, then ours: "Error decoding batch: -107: a chunk is corrupt or
    truncated (...); chunks [1]. frame 1: block 0: ..." ("chunk" for a call of one chunk).
    message: the C++ library's, naming the frame of the call and the block; code: the name of
    its bslz4::ErrorCode ("truncated_chunk", "bad_lz4_sequence", ...); frame and block: the
    numbers the message names (from 0; None where it names none). seed_code: the seed's number
    for the fault (-2, -99, -106, -107, -110); seed_message: the seed's form alone; chunks: the
    bad chunks of the call ([frame])."""

    def __init__(self, message, code="unspecified", nframes=1, against="mask", chunks=None):
        # nframes: the chunks of the call (a batch when more than one); against: what a chunk's
        # decoded size was checked against ("mask", "gpu", "first": see _seed_errors.code_for)
        self.message = message
        self.code = code
        f = _FRAME.match(message)
        self.frame = int(f.group(1)) if f else None
        b = _BLOCK.search(message)
        self.block = int(b.group(1)) if b else None
        self._nframes, self._against = nframes, against
        self.seed_code = _seed_errors.code_for(code, message, against)
        self.chunks = list(chunks) if chunks is not None else [] if self.frame is None else [self.frame]
        self.seed_message = None if self.seed_code is None else _seed_errors.message(
            self.seed_code, nframes > 1, self.chunks, _seed_errors.detail_for(self.seed_code, against))
        super().__init__(message if self.seed_message is None else self.seed_message + ". " + message)

    def in_call(self, nframes, against="mask", chunks=None):
        """This error as raised by a call of nframes chunks (a batch when more than one) that
        checked decoded sizes against `against`: the same error, its seed form made again."""
        if (nframes, against, chunks) != (self._nframes, self._against, None):
            self.__init__(self.message, self.code, nframes, against, chunks)
        return self

    def __reduce__(self):
        return (type(self), (self.message, self.code, self._nframes, self._against, self.chunks))
