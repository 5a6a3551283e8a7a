"""bslz4.conveyor, the seed's file pipeline (bslz4_to_sparse.conveyor), over our classes:
storage -> memory -> decoders -> sinks, in Python.

    units     consecutive frames of a file, one large contiguous read each (make_work_units),
              found through a sidecar chunk index (harvest / write_index / read_index: h5py once a
              file, then no HDF5 at all)
    workers   each with its buffers and a reader: the reader reads the next unit (os.preadv)
              while the worker decodes the last one with from_buffer (CpuBackend: bslz4's
              chunk2sparse / chunk2sparseCSC; GpuBackend: bslz4.cuda's; DecompressBackend:
              bslz4.decompress_from_buffer) and hands the results to its sink
    sinks     where results go (Sink, NullSink, TeeSink; ImageD11SparseSink, RingSink write files)

run(units, backend, workers, ...) drives it (threads, or forked processes); iterate(...) gives the
batches to a for loop. Integrator / IntegratorStack keep what turns powders into intensities;
fixed_weights / clip_exact_powder apply ImageD11's wtmax to exact powders afterwards. Our C++
scan job (bslz4 sparse) is not reachable from Python, so this is Python over h5py for the index
and the same byte ranges read_direct_chunk returns. Needs numpy; h5py for the index and the
writers, hdf5plugin for compressed output, scipy and pyFAI for Integrator, ImageD11 for min_pixels."""

from ._backends import CpuBackend, DecompressBackend, GpuBackend
from ._clip import clip_exact_powder, fixed_weights
from ._engine import numa_nodes, report, run
from ._index import Index, StaleIndex, harvest, read_index, sidecar_path, write_index
from ._integrator import Integrator, IntegratorStack
from ._iter import iterate
from ._ringfile import RingSink, peak_windows, rings_name
from ._sinks import NullSink, Sink, TeeSink, check_powder_size
from ._source import WorkUnit, make_work_units
from ._sparsefile import ImageD11SparseSink, imaged11_name

__all__ = [
    "make_work_units", "WorkUnit", "Index", "read_index", "write_index", "harvest", "sidecar_path", "StaleIndex",
    "Sink", "NullSink", "TeeSink", "check_powder_size", "CpuBackend", "DecompressBackend", "GpuBackend", "run",
    "iterate", "Integrator", "IntegratorStack", "ImageD11SparseSink", "RingSink", "peak_windows", "rings_name",
    "fixed_weights", "clip_exact_powder", "imaged11_name", "report", "numa_nodes",
]
