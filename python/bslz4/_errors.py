"""bslz4.DecodeError: a chunk that cannot be decoded, and where it went wrong."""
import re

_FRAME = re.compile(r"^frame (\d+): ")
_BLOCK = re.compile(r"\bblock (\d+)\b")


class DecodeError(Exception):
    """A chunk that cannot be decoded (truncated, a lying header or block length, a broken LZ4
    sequence or zstd frame, the wrong decoded size).

    message: the C++ library's, naming the frame of the call and the block; code: the name of
    its bslz4::ErrorCode ("truncated_chunk", "bad_lz4_sequence", ...); frame and block: the
    numbers the message names (from 0; None where it names none)."""

    def __init__(self, message, code="unspecified"):
        super().__init__(message)
        self.message = message
        self.code = code
        f = _FRAME.match(message)
        self.frame = int(f.group(1)) if f else None
        b = _BLOCK.search(message)
        self.block = int(b.group(1)) if b else None

    def __reduce__(self):
        return (type(self), (self.message, self.code))
