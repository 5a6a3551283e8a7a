"""The conveyor's engine, as the seed's run: the units in one queue, and workers that each own
`slots_per_worker` buffers and a reader.

    reader k   when worker k has a free buffer, takes the next unit and reads it (os.preadv, in
               file order, io_bytes a call) into that buffer while the worker decodes another
    worker k   decodes each unit its reader hands over straight from the buffer (from_buffer),
               batch frames a call, and gives its sink the results

A faster worker frees its buffers sooner and so takes more units: the load balances itself,
and reading goes as fast as decoding asks. The buffers are one anonymous shared mmap, each
worker's first touched by that worker (pinned, its pages near its CPU). Workers are threads
(the decoders release the GIL) or forked processes, around the same code.

Memory: workers x slots x the largest unit."""
import mmap
import multiprocessing as mp
import os
import queue
import resource
import threading
import time

import numpy as np

from ._sinks import NullSink

_DONE = None


class _Threads:
    Queue = staticmethod(queue.Queue)
    Event = staticmethod(threading.Event)
    Barrier = staticmethod(threading.Barrier)

    @staticmethod
    def Worker(target, args):
        return threading.Thread(target=target, args=args, daemon=True)


class _Processes:
    def __init__(self):
        self.ctx = mp.get_context("fork")
        self.Queue, self.Event, self.Barrier = self.ctx.Queue, self.ctx.Event, self.ctx.Barrier

    def Worker(self, target, args):
        return self.ctx.Process(target=target, args=args, daemon=True)


def _cpulist(text):
    """The CPUs of a sysfs cpulist ("0-3,8,10-11"); none for a node of memory alone."""
    cpus = []
    for part in text.strip().split(","):
        if part:
            a, _, b = part.partition("-")
            cpus += list(range(int(a), int(b or a) + 1))
    return cpus


def numa_nodes(allowed=None):
    """[[cpu, ...], ...]: the CPUs this process may use (or `allowed`), by NUMA node."""
    allowed = set(os.sched_getaffinity(0)) if allowed is None else set(allowed)
    nodes = []
    root = "/sys/devices/system/node"
    if os.path.isdir(root):
        for name in sorted((n for n in os.listdir(root) if n.startswith("node") and n[4:].isdigit()),
                           key=lambda n: int(n[4:])):
            with open(os.path.join(root, name, "cpulist")) as f:
                cpus = [c for c in _cpulist(f.read()) if c in allowed]
            if cpus:
                nodes.append(cpus)
    return nodes or [sorted(allowed)]


def _faults():
    return resource.getrusage(resource.RUSAGE_THREAD).ru_minflt


def _out_bytes(npx, values, indices, powder):
    """Bytes of a batch's results as handed to the sink."""
    n = values.nbytes if indices is None else int(npx.sum()) * (values.dtype.itemsize + indices.dtype.itemsize) + npx.nbytes
    return n + (0 if powder is None else powder.nbytes)


def _read_unit(u, view, io_bytes):
    fd = os.open(u.path, os.O_RDONLY)
    try:
        got = 0
        while got < u.span:
            want = min(io_bytes or u.span, u.span - got)
            r = os.preadv(fd, [view[got:got + want]], u.start + got)
            if r <= 0:
                raise IOError("short read of %s at byte %d" % (u.path, u.start + got))
            got += r
    finally:
        os.close(fd)


def _reader(k, todo, ready, free, buf, slot_bytes, cpus, io_bytes, go, stop, results):
    st = dict(role="reader", k=k, bytes=0, read_s=0.0, wait_s=0.0, error=None, minflt=0)
    try:
        if cpus:
            os.sched_setaffinity(0, cpus)
        go.wait()
        faults0 = _faults()
        view = memoryview(buf)
        while True:
            t = time.perf_counter()
            slot = free.get()
            st["wait_s"] += time.perf_counter() - t
            if stop.is_set():
                break
            u = todo.get()
            if u is _DONE:
                break
            t = time.perf_counter()
            _read_unit(u, view[slot * slot_bytes:slot * slot_bytes + u.span], io_bytes)
            st["read_s"] += time.perf_counter() - t
            st["bytes"] += u.span
            ready.put((slot, u))
        st["minflt"] = _faults() - faults0
        ready.put(_DONE)
    except BaseException as e:  # noqa: BLE001 -- reported, and the worker unblocked
        st["error"] = repr(e)
        stop.set()
        ready.put(_DONE)
    results.put(st)


def _worker(k, backend, sink_factory, meta, ready, free, buf, slot_bytes, slots, batch, cpu, barrier, go, stop,
            results):
    st = dict(role="worker", k=k, frames=0, decode_s=0.0, write_s=0.0, idle_s=0.0, out_bytes=0, error=None, minflt=0)
    first = last = None
    mine = range(k * slots, (k + 1) * slots)
    try:
        if cpu is not None:
            os.sched_setaffinity(0, [cpu])
        for s in mine:  # first touch, from the CPU that will read the pages
            buf[s * slot_bytes:(s + 1) * slot_bytes:4096] = 0
        decode = backend.make_worker()
        sink = sink_factory(k)
        sink.begin(dict(meta, powder_scale=getattr(decode, "powder_scale", None)))
        for s in mine:
            free.put(s)
        barrier.wait()
        go.wait()
        cpu0, t0, faults0 = time.thread_time(), time.perf_counter(), _faults()
        while True:
            t = time.perf_counter()
            item = ready.get()
            st["idle_s"] += time.perf_counter() - t
            if item is _DONE or stop.is_set():
                break
            slot, u = item
            first = first or time.perf_counter()
            data = buf[slot * slot_bytes:slot * slot_bytes + u.span]
            sink.begin_unit(u)
            for f0 in range(0, u.n, batch):
                n = min(batch, u.n - f0)
                t = time.perf_counter()
                npx, values, indices, powder = decode(data, u.offsets[f0:f0 + n], u.lengths[f0:f0 + n])
                t1 = time.perf_counter()
                st["out_bytes"] += _out_bytes(npx, values, indices, powder)
                sink.write(u.file, u.frame0 + f0, npx, values, indices, powder)
                st["decode_s"] += t1 - t
                st["write_s"] += time.perf_counter() - t1
                st["frames"] += n
            t1 = time.perf_counter()
            sink.end_unit(u)
            st["write_s"] += time.perf_counter() - t1
            last = time.perf_counter()
            free.put(slot)
        for _ in range(slots + 1):  # our reader may wait for a buffer: never for ever
            free.put(0)
        st["minflt"] = _faults() - faults0
        st["sink"] = sink.end()
        st["wall_s"], st["cpu_s"] = time.perf_counter() - t0, time.thread_time() - cpu0
        st["active_s"] = (last - first) if first is not None and last is not None else 0.0
    except BaseException as e:  # noqa: BLE001 -- reported, and the reader unblocked
        st["error"] = repr(e)
        stop.set()
        try:
            barrier.abort()
        except Exception:  # noqa: BLE001
            pass
        for _ in range(slots + 1):
            free.put(0)
    results.put(st)


def _nbins(csc):
    """The rows of the backend's matrix (a frame's powder), None without one."""
    if csc is None:
        return None
    if getattr(csc, "nbins", None) is not None:
        return int(csc.nbins)
    shape = getattr(csc, "shape", None)
    if shape is not None:
        return int(shape[0])
    return int(np.prod(csc.bins))  # a pyFAI engine


def run(units, backend, workers, sink=None, mode="threads", batch=16, slots_per_worker=2, worker_cpus=None,
        reader_cpus=None, io_bytes=0, meta=None, start_timeout=900):
    """Run the units through the conveyor; a dict of what it took (frames, wall_s, fps,
    steady_fps, read_gbs, in_bytes, out_bytes, in_gbs, out_gbs, out_over_in, slot_mb, memory_gb,
    worker_cpu_cores, fps_per_worker_mean, busy_frac, page_faults, files, sink).

    units: from make_work_units, handed to whichever worker is ready; backend: CpuBackend,
    DecompressBackend, GpuBackend (anything with make_worker()); workers: decoders, each with a
    reader; sink: factory k -> Sink, called in worker k (NullSink by default); mode: "threads"
    or "processes" (forked); batch: frames a decoder call; slots_per_worker: buffers a worker;
    worker_cpus: worker k pinned to worker_cpus[k % len]; reader_cpus: the readers' CPUs;
    io_bytes: bytes a read call (0: a unit in one); meta: given to the sinks' begin with shape,
    dtype, nbins and powder_scale added; start_timeout: seconds for every worker to start."""
    if not units:
        raise ValueError("no units")
    if mode not in ("threads", "processes"):
        raise ValueError("mode must be 'threads' or 'processes'")
    ctx = _Threads if mode == "threads" else _Processes()
    sink = sink or (lambda k: NullSink())
    meta = dict(meta or {})
    mask = getattr(backend, "mask", None)
    if mask is not None:
        meta.setdefault("shape", tuple(np.shape(mask)))
        meta.setdefault("dtype", str(np.dtype(backend.dtype)))
    meta.setdefault("nbins", _nbins(getattr(backend, "csc", None)))
    if getattr(backend, "prepare", None) is not None:
        backend.prepare()
    slots = slots_per_worker
    slot_bytes = (max(u.span for u in units) + 4095) // 4096 * 4096
    memory = mmap.mmap(-1, workers * slots * slot_bytes, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    buf = np.frombuffer(memory, np.uint8)
    results, todo = ctx.Queue(), ctx.Queue()
    ready = [ctx.Queue() for _ in range(workers)]
    free = [ctx.Queue() for _ in range(workers)]
    barrier, go, stop = ctx.Barrier(workers + 1), ctx.Event(), ctx.Event()
    started = [ctx.Worker(_worker, (k, backend, sink, meta, ready[k], free[k], buf, slot_bytes, slots, batch,
                                    None if not worker_cpus else worker_cpus[k % len(worker_cpus)], barrier, go, stop,
                                    results))
               for k in range(workers)]
    started += [ctx.Worker(_reader, (k, todo, ready[k], free[k], buf, slot_bytes, reader_cpus, io_bytes, go, stop,
                                     results))
                for k in range(workers)]
    for w in started:
        w.start()
    try:
        barrier.wait(timeout=start_timeout)
    except Exception:  # noqa: BLE001
        stop.set()
        go.set()
        errors = [s["error"] for s in (results.get() for _ in range(workers)) if s.get("error")]
        raise RuntimeError("a worker failed to start: %r" % (errors,))
    for u in units:
        todo.put(u)
    for _ in range(workers):
        todo.put(_DONE)
    t0 = time.perf_counter()
    go.set()
    got = [results.get() for _ in range(2 * workers)]
    wall = time.perf_counter() - t0
    for w in started:
        w.join()
    errors = [s["error"] for s in got if s.get("error")]
    if errors:
        raise RuntimeError(errors[0])
    wk = sorted((s for s in got if s["role"] == "worker"), key=lambda s: s["k"])
    rd = [s for s in got if s["role"] == "reader"]
    frames = sum(s["frames"] for s in wk)
    in_bytes = sum(int(u.lengths.sum()) for u in units)
    out_bytes = sum(s["out_bytes"] for s in wk)
    busy = [s for s in wk if s["active_s"] > 0]

    def share(key, of):
        return round(sum(s[key] for s in of) / wall / workers, 3)

    return dict(
        mode=mode, workers=workers, frames=frames, wall_s=round(wall, 3), fps=round(frames / wall, 1),
        # every worker between its first and last unit: the start and the slowest worker's end left out
        steady_fps=round(sum(s["frames"] / s["active_s"] for s in busy), 1),
        read_gbs=round(sum(u.span for u in units) / wall / 1e9, 3),
        in_bytes=in_bytes, out_bytes=out_bytes, in_gbs=round(in_bytes / wall / 1e9, 3),
        out_gbs=round(out_bytes / wall / 1e9, 3), out_over_in=round(out_bytes / in_bytes, 4) if in_bytes else 0.0,
        slot_mb=round(slot_bytes / 1e6), memory_gb=round(workers * slots * slot_bytes / 1e9, 2),
        worker_cpu_cores=round(sum(s["cpu_s"] for s in wk) / wall, 2),
        fps_per_worker_mean=round(float(np.mean([s["frames"] / s["wall_s"] for s in wk])), 1),
        busy_frac=dict(decode=share("decode_s", wk), write=share("write_s", wk), idle=share("idle_s", wk),
                       read=share("read_s", rd), read_wait_for_buffer=share("wait_s", rd)),
        page_faults=dict(workers=sum(s["minflt"] for s in wk), readers=sum(s["minflt"] for s in rd)),
        files=len(units),
        sink=[s.get("sink") for s in wk][:1],
    )


def report(r):
    """A run's result as text: bytes in and out, their ratio, the rates, where the workers' time went."""
    b = r["busy_frac"]
    return "\n".join([
        "%d frames of %d files in %.1f s with %d %s: %.0f frames/s" % (r["frames"], r["files"], r["wall_s"],
                                                                       r["workers"], r["mode"], r["fps"]),
        "input  %.3f GB compressed, %.3f GB/s (file span read %.3f GB/s)" % (r["in_bytes"] / 1e9, r["in_gbs"],
                                                                            r["read_gbs"]),
        "output %.3f GB as handed to the sink, %.3f GB/s, %.4f of the input" % (r["out_bytes"] / 1e9, r["out_gbs"],
                                                                               r["out_over_in"]),
        "workers: %.0f%% decode, %.0f%% sink, %.0f%% idle; readers %.0f%% reading" % (
            100 * b["decode"], 100 * b["write"], 100 * b["idle"], 100 * b["read"]),
    ])
