# Type stubs of the bslz4 package (the docstrings in the .py files say what each call does, as
# the C++ header comments do).
from typing import Any, Callable, Dict, Iterator, NamedTuple, Optional, Sequence, Tuple, Union

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
    seed_code: Optional[int]
    seed_message: Optional[str]
    chunks: list[int]
    def __init__(self, message: str, code: str = ..., nframes: int = ..., against: str = ...,
                 chunks: Optional[Sequence[int]] = ...) -> None: ...
    def in_call(self, nframes: int, against: str = ..., chunks: Optional[Sequence[int]] = ...) -> "DecodeError": ...

class FixedPointMatrix:
    scale: int
    nbins: int
    npix: int
    shape: Tuple[int, int]
    dtype: np.dtype[Any]
    def check(self, dtype: DTypeLike, npix: int) -> None: ...
    def to_scipy(self) -> Any: ...

def fixed_point_matrix(csc: Any, mask: npt.ArrayLike, dtype: DTypeLike, maxval: Optional[int] = ...,
                       wbits: int = ...) -> FixedPointMatrix: ...

class MatrixFile:
    spec: str
    format: str
    shape: Tuple[int, int]
    radial: Optional[npt.NDArray[np.float64]]
    radial_unit: str
    azimuthal: Optional[npt.NDArray[np.float64]]
    azimuthal_unit: str
    correction: Optional[npt.NDArray[np.float32]]
    npt_rad: int
    npt_azim: int
    empty: float
    def __init__(self, spec: str) -> None: ...
    @property
    def bins(self) -> int: ...
    def csr_matrix(self) -> Any: ...
    def normalisation(self, mask: Optional[npt.ArrayLike] = ...) -> npt.NDArray[np.float64]: ...
    def intensity(self, powder: npt.ArrayLike, mask: Optional[npt.ArrayLike] = ...) -> npt.NDArray[np.float64]: ...
    def shaped(self, rows: npt.ArrayLike) -> npt.NDArray[Any]: ...

def load_matrix(spec: str) -> MatrixFile: ...

class Batch(NamedTuple):
    first: int
    npixels: npt.NDArray[Any]
    values: npt.NDArray[Any]
    indices: npt.NDArray[Any]
    powder: Optional[npt.NDArray[Any]]
    intensity: Optional[npt.NDArray[np.float64]]

def scan_batches(path: str, cut: float, dataset: Optional[str] = ..., mask: Optional[npt.ArrayLike] = ...,
                 matrix: Any = ..., batch: int = ..., workers: int = ..., howmany: Optional[int] = ...,
                 thresholds: Optional[Sequence[float]] = ...) -> Iterator[Batch]: ...

def sparse_scan(input: str, output: str, cut: Optional[float] = ..., *, dataset: Optional[str] = ...,
                mask: Optional[str] = ..., use_mask: Optional[str] = ..., no_mask: bool = ...,
                matrix: Optional[str] = ..., acc: str = ..., frames: Optional[str] = ..., where: str = ...,
                devices: Union[None, str, Sequence[int]] = ..., overwrite: bool = ..., per_file: bool = ...,
                compression: str = ..., on_error: str = ..., howmany: Optional[int] = ...,
                thresholds: Optional[Sequence[float]] = ..., pixels_in_spot: Optional[int] = ...,
                preset: Optional[str] = ..., readers: int = ...,
                progress: Union[None, bool, Callable[[int, int], Any]] = ...) -> Dict[str, Any]: ...

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
    def from_frames(self, frames: npt.ArrayLike, cut: float) -> Tuple[npt.NDArray[np.int32], Lists]: ...
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
    matrix_file: Optional[MatrixFile]
    @property
    def powder_scale(self) -> Optional[int]: ...
    def intensity(self, powder: npt.ArrayLike) -> npt.NDArray[np.float64]: ...
    def __init__(self, mask: npt.ArrayLike, csc: Any, dtype: DTypeLike = ..., codec: Union[None, int, str] = ...,
                 pipeline: Any = ..., howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ..., *,
                 acc: Optional[str] = ..., threads: Optional[int] = ...) -> None: ...
    def __call__(self, buffer: Buffer, cut: float) -> Tuple[int, Lists, npt.NDArray[Any]]: ...
    def multi(self, chunks: Sequence[Buffer], cut: float) -> Tuple[npt.NDArray[np.int32], Lists, npt.NDArray[Any]]: ...
    def from_buffer(self, base: Buffer, offsets: npt.ArrayLike, lengths: npt.ArrayLike,
                    cut: float) -> Tuple[npt.NDArray[np.int32], Lists, npt.NDArray[Any]]: ...
    def coo(self, buffer: Buffer, cut: float) -> Tuple[int, npt.NDArray[np.uint16], npt.NDArray[np.uint16],
                                                        npt.NDArray[Any], npt.NDArray[Any]]: ...
    def from_frames(self, frames: npt.ArrayLike, cut: float) -> Tuple[npt.NDArray[np.int32], Lists, npt.NDArray[Any]]: ...
    def set_top_pixels(self, howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ...) -> None: ...

class plan:
    mask: npt.NDArray[np.uint8]
    shape: Tuple[int, int]
    dtype: np.dtype[Any]
    nbins: int
    def __init__(self, mask: npt.ArrayLike, csc: Any, dtype: DTypeLike = ..., codec: Union[None, int, str] = ...,
                 pipeline: Any = ...) -> None: ...
    def context(self, howmany: Optional[int] = ..., thresholds: Optional[Sequence[float]] = ...) -> chunk2sparseCSC: ...

def bslz4_to_sparse(ds: Any, num: int, cut: float, mask: Optional[npt.ArrayLike] = ...,
                    pixelbuffer: Optional[Tuple[npt.NDArray[Any], npt.NDArray[np.uint32]]] = ..., workspace: Any = ...,
                    codec: Union[None, int, str] = ..., pipeline: Any = ...) -> Tuple[int, Lists]: ...
def decompress(chunks: Union[Buffer, Sequence[Buffer]], dtype: DTypeLike, unshuffle: bool = ...,
               out: Optional[npt.NDArray[Any]] = ..., codec: Union[None, int, str] = ...) -> npt.NDArray[Any]: ...
def decompress_from_buffer(base: Buffer, offsets: npt.ArrayLike, lengths: npt.ArrayLike, dtype: DTypeLike,
                           unshuffle: bool = ..., out: Optional[npt.NDArray[Any]] = ...,
                           codec: Union[None, int, str] = ...) -> npt.NDArray[Any]: ...
def block_starts(chunks: Union[Buffer, Sequence[Buffer]], dtype: DTypeLike,
                 out: Optional[npt.NDArray[np.uint32]] = ...) -> npt.NDArray[np.uint32]: ...
def block_starts_from_buffer(base: Buffer, offsets: npt.ArrayLike, lengths: npt.ArrayLike, dtype: DTypeLike,
                             out: Optional[npt.NDArray[np.uint32]] = ...) -> npt.NDArray[np.uint32]: ...
def detect_codec(ds: Any) -> int: ...
def locate_chunks(ds: Any) -> dict[int, Tuple[int, int]]: ...
def offsets_lengths(frame_offsets: dict[int, Tuple[int, int]],
                    frames: Sequence[int]) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int32]]: ...
def build_info() -> dict[str, Any]: ...
def describe(pipeline: Any = ...) -> dict[str, Any]: ...
def gpu_runtime() -> Tuple[bool, bool, str]: ...
