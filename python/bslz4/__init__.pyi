# Type stubs of the bslz4 package (the docstrings in the .py files say what each call does, as
# the C++ header comments do).
from typing import Any, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

Buffer = Union[bytes, bytearray, memoryview, npt.NDArray[Any]]
DTypeLike = npt.DTypeLike
Lists = Tuple[npt.NDArray[Any], npt.NDArray[np.uint32]]

CODEC_LZ4: int
CODEC_ZSTD: int
version: str
__version__: str

class DecodeError(Exception):
    message: str
    code: str
    frame: Optional[int]
    block: Optional[int]
    def __init__(self, message: str, code: str = ...) -> None: ...

class FixedPointMatrix:
    scale: int
    nbins: int
    npix: int
    shape: Tuple[int, int]
    dtype: np.dtype[Any]
    def check(self, dtype: DTypeLike, npix: int) -> None: ...

def fixed_point_matrix(csc: Any, mask: npt.ArrayLike, dtype: DTypeLike, maxval: Optional[int] = ...,
                       wbits: int = ...) -> FixedPointMatrix: ...

class chunk2sparse:
    mask: npt.NDArray[np.uint8]
    nfast: int
    npix: int
    dtype: np.dtype[Any]
    codec: int
    howmany: Optional[int]
    thresholds: Optional[list[float]]
    last_cut: npt.NDArray[np.float64]
    last_nabove: npt.NDArray[np.int64]
    def __init__(self, mask: npt.ArrayLike, dtype: DTypeLike = ..., codec: Union[None, int, str] = ...,
                 pipeline: Any = ..., howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ..., *,
                 threads: Optional[int] = ...) -> None: ...
    def __call__(self, buffer: Buffer, cut: float) -> Tuple[int, Lists]: ...
    def multi(self, chunks: Sequence[Buffer], cut: float) -> Tuple[npt.NDArray[np.int32], Lists]: ...
    def from_buffer(self, base: Buffer, offsets: npt.ArrayLike, lengths: npt.ArrayLike,
                    cut: float) -> Tuple[npt.NDArray[np.int32], Lists]: ...
    def coo(self, buffer: Buffer, cut: float) -> Tuple[int, npt.NDArray[np.uint16], npt.NDArray[np.uint16],
                                                        npt.NDArray[Any]]: ...
    def set_top_pixels(self, howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ...) -> None: ...

class chunk2sparseCSC:
    mask: npt.NDArray[np.uint8]
    nfast: int
    npix: int
    nbins: int
    acc: str
    dtype: np.dtype[Any]
    codec: int
    howmany: Optional[int]
    thresholds: Optional[list[float]]
    last_cut: npt.NDArray[np.float64]
    last_nabove: npt.NDArray[np.int64]
    @property
    def powder_scale(self) -> Optional[int]: ...
    def __init__(self, mask: npt.ArrayLike, csc: Any, dtype: DTypeLike = ..., codec: Union[None, int, str] = ...,
                 pipeline: Any = ..., howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ..., *,
                 acc: Optional[str] = ..., threads: Optional[int] = ...) -> None: ...
    def __call__(self, buffer: Buffer, cut: float) -> Tuple[int, Lists, npt.NDArray[Any]]: ...
    def multi(self, chunks: Sequence[Buffer], cut: float) -> Tuple[npt.NDArray[np.int32], Lists, npt.NDArray[Any]]: ...
    def from_buffer(self, base: Buffer, offsets: npt.ArrayLike, lengths: npt.ArrayLike,
                    cut: float) -> Tuple[npt.NDArray[np.int32], Lists, npt.NDArray[Any]]: ...
    def coo(self, buffer: Buffer, cut: float) -> Tuple[int, npt.NDArray[np.uint16], npt.NDArray[np.uint16],
                                                        npt.NDArray[Any], npt.NDArray[Any]]: ...
    def set_top_pixels(self, howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ...) -> None: ...

def bslz4_to_sparse(ds: Any, num: int, cut: float, mask: Optional[npt.ArrayLike] = ...,
                    pixelbuffer: Optional[Tuple[npt.NDArray[Any], npt.NDArray[np.uint32]]] = ..., workspace: Any = ...,
                    codec: Union[None, int, str] = ..., pipeline: Any = ...) -> Tuple[int, Lists]: ...
def decompress(chunk: Buffer, dtype: DTypeLike, codec: Union[None, int, str] = ...) -> npt.NDArray[Any]: ...
def gpu_runtime() -> Tuple[bool, bool, str]: ...
