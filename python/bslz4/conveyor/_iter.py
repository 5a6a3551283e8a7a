"""iterate: a run's results in a plain for loop, the conveyor running behind it."""
import queue
import threading

from ._engine import run
from ._sinks import Sink

_END = object()


class _Stopped(Exception):
    """The loop over the results stopped before the run did."""


class _QueueSink(Sink):
    """Each batch, copied and cut to the pixels it holds, onto the consumer's queue."""

    def __init__(self, q, closed):
        self.q, self.closed = q, closed

    def write(self, file, frame0, npx, values, indices, powder):
        widest = int(npx.max()) if len(npx) else 0
        item = (file, frame0, npx.copy(),
                values[:, :widest].copy() if indices is not None else values.copy(),
                None if indices is None else indices[:, :widest].copy(),
                None if powder is None else powder.copy())
        while not self.closed.is_set():
            try:
                self.q.put(item, timeout=0.5)
                return
            except queue.Full:
                pass
        raise _Stopped()


def iterate(units, backend, workers, depth=4, **kw):
    """A generator of (file, frame0, npx, values, indices, powder), one a batch: Sink.write's
    arguments, as copies to keep. Batches come as the workers finish them (file and frame0 say
    where each belongs). At most depth batches a worker wait for the loop, so a slow loop slows
    the decoders instead of filling memory. Threads only; leaving the loop stops the run. Other
    keywords go to run."""
    if kw.get("mode", "threads") != "threads":
        raise ValueError("iterate works with threads")
    q = queue.Queue(maxsize=depth * workers)
    closed = threading.Event()
    box = {}

    def conveyor():
        try:
            box["result"] = run(units, backend, workers, sink=lambda k: _QueueSink(q, closed), **kw)
        except BaseException as e:  # noqa: BLE001 -- handed to the loop
            box["error"] = e
        while True:  # the end mark, even into a full queue nobody reads any more
            try:
                q.put(_END, timeout=0.5)
                return
            except queue.Full:
                if closed.is_set():
                    return

    t = threading.Thread(target=conveyor, daemon=True)
    t.start()
    try:
        while True:
            item = q.get()
            if item is _END:
                break
            yield item
    finally:
        closed.set()
        t.join()
    error = box.get("error")
    if error is not None and "_Stopped" not in repr(error):
        raise error
