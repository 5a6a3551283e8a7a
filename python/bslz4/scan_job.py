"""bslz4.sparse_scan: what `bslz4 sparse INPUT.h5 -o OUTPUT.h5` does, from Python: the same job
(the C++ reader, decoders and writer of the command, on the GPU or the CPU), the same options
and the same output file, with the GIL released while it runs and progress through a callback.

    summary = bslz4.sparse_scan("scan.h5", "scan_sparse.h5", cut=10, matrix="matrix.h5",
                                progress=lambda done, total: print(done, "/", total))
"""
import os
import re

from .matrix_file import MatrixFile, split_spec

_OPTIONS = {
    # the command's spelling -> the keyword of sparse_scan, as its messages should say it
    "--use-mask": "use_mask",
    "--mask": "mask",
    "--no-mask": "no_mask=True",
    "--matrix": "matrix",
    "--dataset": "dataset",
    "--cut": "cut",
    "--acc": "acc",
    "--frames": "frames",
    "--cpu": "where='cpu'",
    "--gpu": "where='gpu'",
    "--device": "devices",
    "--overwrite": "overwrite=True",
    "--per-file": "per_file=True",
    "--compression": "compression",
    "--on-error": "on_error",
    "--howmany": "howmany",
    "--thresholds": "thresholds",
    "--pixels-in-spot": "pixels_in_spot",
    "--readers": "readers",
    "--preset": "preset",
    "--quiet": "progress=None",
    "-o": "output",
}
_OPTION = re.compile(r"(?<![\w-])(-o|--[a-z][a-z0-9-]*)(?![\w-])")


def python_names(message):
    """A message of the command's job with its option names as sparse_scan's keywords."""
    return _OPTION.sub(lambda m: _OPTIONS.get(m.group(1), m.group(1).lstrip("-").replace("-", "_")), message)


def _mask_spec(value, what):
    """'FILE:PATH' or an EDF file, as the job reads masks; "" for None."""
    if value is None:
        return ""
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError("%s: expected 'FILE:PATH' (the mask dataset's file and its path in it) or an EDF file, "
                         "got %s (an array mask: bslz4.scan_batches takes one)" % (what, type(value).__name__))
    value = os.fspath(value)
    path, sep, inner = value.rpartition(":")
    if not value.lower().endswith(".edf") and (not sep or not path or not inner):
        raise ValueError("%s %r: expected 'FILE:PATH' (the mask dataset's file and its path in it) or an EDF "
                         "image FILE.edf" % (what, value))
    return value


def _matrix_spec(value):
    """'FILE.h5:GROUP' for the job from a matrix file's spec (GROUP default /matrix, where
    bslz4-matrix writes) or a MatrixFile; "" for None."""
    if value is None:
        return ""
    if isinstance(value, MatrixFile):
        return value.spec
    if not isinstance(value, (str, os.PathLike)):
        raise ValueError("matrix: a matrix file 'FILE.h5[:GROUP]' (bslz4-matrix writes one from a PONI file) or "
                         "a bslz4.MatrixFile, got %s" % type(value).__name__)
    return "%s:%s" % split_spec(os.fspath(value))


def sparse_scan(input, output, cut=None, *, dataset=None, mask=None, use_mask=None, no_mask=False, matrix=None,
                acc="f64", frames=None, where="any", devices=None, overwrite=False, per_file=False,
                compression="bitshuffle-lz4", on_error="stop", howmany=None, thresholds=None, pixels_in_spot=None,
                preset=None, readers=0, progress=None):
    """Lists (and with a matrix integrates) every frame of HDF5 file `input` into the sparse file
    `output`, as `bslz4 sparse` does; returns a summary dict (frames, pixels, seconds, decoder,
    mask_source, bad_frames, interrupted, incomplete_output, summary: the command's line, ...).

    cut: pixels > cut are listed. dataset: the frames' path (default: /entry/data/data, an Eiger
    master's data files, or a LImA file's one dataset). mask='FILE:PATH' (or an EDF file): nonzero
    = do NOT use the pixel (NeXus's pixel_mask); use_mask='FILE:PATH': nonzero = use it;
    no_mask=True: every pixel; none of them: the file's pixel_mask. matrix='FILE.h5[:GROUP]' (GROUP
    default /matrix) or a bslz4.MatrixFile: the powders (bslz4-matrix writes it from a PONI file). acc: 'f64', 'f32' or 'i64'. frames: 'A:B'.
    where: 'any' (a GPU when there is one), 'cpu' or 'gpu'; devices: GPUs to spread the scan over
    ('0,1' or 'all'). overwrite: replace an existing output (never a file the job reads).
    per_file: a group per data file of an Eiger master. compression: 'bitshuffle-lz4',
    'deflate' or 'none'. on_error: 'stop' or 'skip' (a bad frame written empty and listed).
    howmany, thresholds: the top pixels as chunk2sparse; pixels_in_spot: drop 8-connected groups
    smaller than this. preset='imaged11': ImageD11's segmenter's defaults (howmany 100,000,
    thresholds cut x 2^i for i < 6, pixels_in_spot 3) where not given. readers: reading
    threads (0: the job's choice). progress: a callable progress(done, total) called after each
    batch (returning False stops the scan, keeping the frames done as the command does), True for
    the command's progress bar on stderr, None for nothing. Ctrl-C stops it likewise and raises
    KeyboardInterrupt.

    Bad arguments are ValueError, an undecodable frame bslz4.DecodeError (on_error='stop'), a
    failed read or write RuntimeError; each says what became of the output."""
    try:
        from . import _scan
    except ImportError as e:
        raise RuntimeError("bslz4.sparse_scan: this build of bslz4 has no HDF5 (it was built without "
                           "libhdf5-dev); install it and reinstall bslz4 (%s)" % e) from None
    if preset not in (None, "imaged11"):
        raise ValueError("preset %r: the one preset is 'imaged11' (ImageD11's segmenter's defaults)" % (preset,))
    if sum(x is not None and x is not False for x in (mask, use_mask, no_mask or None)) > 1:
        raise ValueError("give one of mask='FILE:PATH' (nonzero = do not use), use_mask='FILE:PATH' "
                         "(nonzero = use) or no_mask=True")
    if where not in ("any", "cpu", "gpu"):
        raise ValueError("where %r: 'any', 'cpu' or 'gpu'" % (where,))
    if where == "cpu" and devices is not None:
        raise ValueError("give where='cpu' or devices, not both")
    if cut is None:
        raise ValueError("give the cut: cut=C (pixels > C are listed)")
    if preset == "imaged11":
        d = _scan.imaged11_defaults()
        howmany = d["howmany"] if howmany is None else howmany
        if thresholds is None:
            thresholds = [cut * 2.0 ** i for i in range(d["thresholds"])]
        pixels_in_spot = d["pixels_in_spot"] if pixels_in_spot is None else pixels_in_spot
    cut = float(cut)
    if cut != cut or cut in (float("inf"), float("-inf")):
        raise ValueError("cut %r: the cut must be a finite number (pixels > cut are listed)" % (cut,))
    if thresholds is not None and howmany is None:
        raise ValueError("thresholds goes with howmany=N")
    if howmany is not None and (int(howmany) != howmany or howmany < 0):
        raise ValueError("howmany %r: a count of pixels (0 or more)" % (howmany,))
    if not 0 <= int(readers) <= 16:
        raise ValueError("readers %r: from 1 to 16 threads, or 0 for the job's choice" % (readers,))
    if devices is not None and not isinstance(devices, str):
        devices = ",".join(str(int(d)) for d in devices)
    if progress is not None and progress is not True and not callable(progress):
        raise ValueError("progress: a callable progress(done, total), True (a bar on stderr) or None")
    call = "bslz4.sparse_scan(%r, %r, cut=%r%s)" % (input, output, cut, "".join(
        ", %s=%r" % (k, v) for k, v in (("dataset", dataset), ("mask", mask), ("use_mask", use_mask),
                                        ("no_mask", no_mask or None), ("matrix", matrix), ("frames", frames),
                                        ("howmany", howmany), ("thresholds", thresholds),
                                        ("pixels_in_spot", pixels_in_spot), ("preset", preset)) if v is not None))
    try:
        return _scan.run(input=os.fspath(input), output=os.fspath(output), cut=cut, dataset=dataset or "",
                         mask=_mask_spec(mask, "mask"), use_mask=_mask_spec(use_mask, "use_mask"), no_mask=bool(no_mask),
                         matrix=_matrix_spec(matrix), acc=str(acc), frames=frames or "", where=where,
                         devices=devices, overwrite=bool(overwrite), per_file=bool(per_file),
                         compression=str(compression), on_error=str(on_error),
                         howmany=None if howmany is None else int(howmany),
                         thresholds=None if thresholds is None else [float(t) for t in thresholds],
                         pixels_in_spot=int(pixels_in_spot or 0), readers=int(readers), bar=progress is True,
                         call=call, progress=progress if callable(progress) else None)
    except (ValueError, RuntimeError, MemoryError) as e:
        text = str(e.args[0]) if e.args else str(e)
        renamed = python_names(text)
        if renamed == text:
            raise
        raise type(e)(renamed, *e.args[1:]) from None
