"""A big reload shared with forked copies of this process: the machine's other cores.

A sweep's first read (thousands of small runs), or a few big runs, is Python and numpy work in
one process, where RustBoard spreads it over every core. Threads do not help (the per-run work holds the GIL, and
two threads passing it back and forth run slower than one), and a process pool's tasks would
pickle each run on the way there. A fork needs neither: each child starts with the runs as they
are, takes chunks of them from the front of a shared counter while this process takes chunks
from the back, packs each chunk it read as it goes (each run's offsets, data and delta; its
scalar series in a few arrays, ``columns_pack``) and sends it back at once, its big arrays
received straight into their own buffers by a thread of this process (no chunk is held twice
on the way, so the memory taken by the children stays about one chunk each). Every chunk is
read by the same ``reload_chunk`` on the same runs in the same state, so the result is the one
a reload in this process gives (how a series is stored can depend on which runs were batched
together, ``batch_reload``: never its points).

A child that fails, dies or stops making progress is not waited for: the chunks it took are read
again here, from this process's runs, which the child never touched (a fork copies them).
Only on Linux, where fork is the platform's own way and copies nothing up front; only for local
logdirs (a remote file system's client runs event loops on threads a fork does not carry over).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import pickle
import sys
import threading
import time
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

from tbnb.format import crc

from ..files.storage import FilePath
from ..runs.columns_pack import pack, unpack
from ..runs.run import Run
from ..runs.run_data import RunDelta

Job = tuple[Run, list[FilePath]]
#: Reads a chunk of runs in place (each run's ``files`` and ``data``), returning their deltas.
ReloadChunk = Callable[[list[Job]], list[RunDelta]]

#: Fewer changed runs than this are read in this process alone: forking and taking a child's runs
#: back cost ~10 ms and ~5 µs a series. Measured here (2 cores), cold loads of small runs: 256 runs
#: 46 ms alone, 55 forked; 500 runs even (95, 91); 1,000 runs 343, 294; 10,000 runs 9.9 s, 6.1.
FORK_MIN_RUNS = 512
#: Or this many unread bytes, in at least two runs: a few big runs (a long scalar log, histograms
#: and images) fork too, each run a chunk. Measured here (2 cores), cold loads of 8 runs: 142 MB
#: of TF1 scalars 0.64 s alone, 0.47-0.54 forked; 160 MB of TF2 scalars 0.73, 0.40; 82 MB of
#: histograms and images 0.12, 0.10 (a fork and taking its runs back cost ~10-25 ms).
FORK_MIN_BYTES = 32 << 20
#: At most this many forked helpers (a reload also reads in this process).
MAX_HELPERS = 3
#: Chunks per process taking part: small enough that the last chunk leaves little waiting, large
#: enough that each keeps the many-run batch path efficient.
CHUNKS_PER_PROCESS = 8
#: A chunk holds at least this many runs (the batch path's fixed costs are per chunk).
MIN_CHUNK_RUNS = 32
#: A child that has finished no chunk for this long (or ``STALL_CHUNKS`` times the slowest chunk
#: read here, if longer) is given up: its chunks are read here.
STALL_SECONDS = 20.0
STALL_CHUNKS = 20


def spare_processes() -> int:
    """Helpers a big reload may fork here: one per core beyond this process's, at most
    ``MAX_HELPERS``; 0 off Linux and in a daemonic process (which may not have children)."""
    if not sys.platform.startswith("linux") or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    if multiprocessing.current_process().daemon:
        return 0
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    return max(0, min(MAX_HELPERS, cores - 1))


def worth_forking(jobs: list[Job]) -> bool:
    """Whether a reload of ``jobs`` is shared with forked helpers: many runs, or a few big ones
    (their files' unread bytes counted only then: a stat per file)."""
    return len(jobs) >= FORK_MIN_RUNS or (len(jobs) >= 2
                                          and sum(run.unread(files) for run, files in jobs) >= FORK_MIN_BYTES)


def chunked(jobs: list[Job], processes: int) -> list[list[Job]]:
    """``jobs`` cut into consecutive chunks of about equal numbers of runs (one run each when
    there are too few runs for chunks of ``MIN_CHUNK_RUNS``: a few big runs)."""
    many = len(jobs) // MIN_CHUNK_RUNS
    n = max(1, min(many if many >= processes else len(jobs), processes * CHUNKS_PER_PROCESS))
    bounds = [len(jobs) * i // n for i in range(n + 1)]
    return [jobs[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


class _Counter:
    """The chunks not taken yet, ``[front, back)``, shared by the processes through a fork.

    A child killed while it holds the lock would hold it for good: a taker that waits longer
    than ``STALL_SECONDS`` takes nothing more (the chunks nobody read are read at the end)."""

    def __init__(self, n: int) -> None:
        ctx = multiprocessing.get_context("fork")
        self._bounds = ctx.RawArray("q", [0, n])
        self._done = ctx.RawValue("q", 0)  # chunks the children have finished (their progress)
        self._lock = ctx.Lock()

    def _take(self, front: bool) -> int | None:
        if not self._lock.acquire(timeout=STALL_SECONDS):
            return None
        try:
            lo, hi = self._bounds[0], self._bounds[1]
            if lo >= hi:
                return None
            if front:
                self._bounds[0] = lo + 1
                return lo
            self._bounds[1] = hi - 1
            return hi - 1
        finally:
            self._lock.release()

    def front(self) -> int | None:
        return self._take(True)

    def back(self) -> int | None:
        return self._take(False)

    def finished(self) -> None:
        """A child finished a chunk. Unlocked: two children adding at once may count one, which
        still shows progress, all this count is read for."""
        self._done.value += 1

    @property
    def done(self) -> int:
        return self._done.value


#: Arrays at least this big travel out of band, each in its own message received straight into
#: its buffer: neither process holds a second copy of a chunk's columns while it travels.
OUT_OF_BAND_BYTES = 64 << 10

Payload = tuple[bytes, list[bytearray]]


def _pack(chunk: list[Job], deltas: list[RunDelta]) -> tuple[bytes, list[memoryview]]:
    """A chunk as read in a child: each run's offsets, data and delta, pickled, with the scalar
    series of every run packed into a few arrays (``columns_pack``); its big arrays apart, as
    views of themselves (``OUT_OF_BAND_BYTES``)."""
    runs, tags, series = [], [], []
    for (run, _), delta in zip(chunk, deltas):
        scalars = run.data.take_scalars()
        runs.append((run.files, run.data, delta))
        tags.append(list(scalars))
        series.extend(scalars.values())
    apart: list[memoryview] = []

    def in_band(buffer: pickle.PickleBuffer) -> bool:
        raw = buffer.raw()
        if raw.nbytes < OUT_OF_BAND_BYTES:
            return True
        apart.append(raw)
        return False

    header = pickle.dumps((runs, tags, pack(series)), protocol=5, buffer_callback=in_band)
    return header, apart


def _unpack(chunk: list[Job], payload: Payload) -> list[RunDelta]:
    """Set each run of ``chunk`` as the child left it (``_pack``); their deltas."""
    header, buffers = payload
    runs, tags, packed = pickle.loads(header, buffers=buffers)
    series = iter(unpack(packed))
    for (_, data, _), names in zip(runs, tags):
        data.put_scalars({tag: next(series) for tag in names})
    if len(runs) != len(chunk) or next(series, None) is not None:
        raise ValueError("a chunk came back with other runs than were sent")
    for (run, _), (files, data, _) in zip(chunk, runs):  # (all or nothing: the chunk is read here otherwise)
        run.files, run.data = files, data
    return [delta for _, _, delta in runs]


def _send(conn: Connection, index: int, header: bytes, apart: list[memoryview]) -> None:
    """One chunk: its index, the sizes of its out-of-band buffers and its pickle in one message,
    then each buffer in a message of its own."""
    sizes = b"".join(b.nbytes.to_bytes(8, "little") for b in apart)
    conn.send_bytes(index.to_bytes(8, "little") + len(apart).to_bytes(4, "little") + sizes + header)
    for buffer in apart:
        conn.send_bytes(buffer)


def _child(chunks: list[list[Job]], reload_chunk: ReloadChunk, counter: _Counter, conn: Connection) -> None:
    """A forked helper: read chunks from the front until none is left, sending each as soon as
    it is packed (this process receives on a thread while it reads chunks from the back) and
    dropping it. If anything goes wrong it stops; this process reads the chunks that did not
    come back itself, and meets any error where it belongs. Its garbage collector stays off
    (``gc_pause``: the reload makes no cycles, the child ends after it, and a collection would
    walk, and so copy, pages of every object it shares with this process)."""
    gc.disable()
    try:
        while (i := counter.front()) is not None:
            header, apart = _pack(chunks[i], reload_chunk(chunks[i]))
            counter.finished()
            _send(conn, i, header, apart)
            del header, apart
        conn.send_bytes(b"")
    except BaseException:  # noqa: BLE001, S110 - the chunk is read again here, which reports it
        pass
    finally:
        conn.close()


def _start(chunks: list[list[Job]], reload_chunk: ReloadChunk, counter: _Counter,
           helpers: int) -> list[tuple[Any, Connection]]:
    """Fork up to ``helpers`` children (fewer if the system refuses one)."""
    ctx = multiprocessing.get_context("fork")
    started: list[tuple[Any, Connection]] = []
    for _ in range(helpers):
        receive, send = ctx.Pipe(duplex=False)
        try:
            process = ctx.Process(target=_child, args=(chunks, reload_chunk, counter, send), daemon=True,
                                  name="tbnb-reload")
            process.start()
        except OSError:  # no process to be had (limits, memory): read here
            receive.close()
            send.close()
            break
        send.close()
        started.append((process, receive))
    return started


def _chunk_message(conn: Connection, message: bytes) -> tuple[int, Payload] | None:
    """The chunk a header message announces, its buffers received into buffers of their own
    (writable: the columns are used as they arrive); None if the child stopped half-way."""
    count = int.from_bytes(message[8:12], "little")
    sizes = [int.from_bytes(message[12 + 8 * k : 20 + 8 * k], "little") for k in range(count)]
    buffers = []
    for size in sizes:
        buffer = bytearray(size)
        if size and conn.recv_bytes_into(buffer) != size:
            return None
        buffers.append(buffer)
    return int.from_bytes(message[:8], "little"), (message[12 + 8 * count :], buffers)


class _Receiver(threading.Thread):
    """Takes a child's chunks as they come (``got``), until its end, its death or its stall
    (then it is killed): the child never waits on a full pipe while this process reads."""

    def __init__(self, process: Any, conn: Connection, counter: _Counter) -> None:
        super().__init__(name="tbnb-reload-receive", daemon=True)
        self.process, self.conn, self.counter = process, conn, counter
        #: Seconds without progress after which the child is given up (raised once this
        #: process has timed its own chunks).
        self.stall = STALL_SECONDS
        self.got: list[tuple[int, Payload]] = []
        self.closing = False

    def run(self) -> None:
        process, conn, counter = self.process, self.conn, self.counter
        seen, since = counter.done, time.monotonic()
        try:
            while not self.closing:
                while not conn.poll(0.05):
                    if self.closing or (not process.is_alive() and not conn.poll(0)):
                        return
                    done = counter.done
                    if done != seen:
                        seen, since = done, time.monotonic()
                    elif time.monotonic() - since > self.stall:
                        process.kill()
                        return
                message = conn.recv_bytes()
                if not message:
                    return
                chunk = _chunk_message(conn, message)
                if chunk is None:
                    return
                self.got.append(chunk)
                since = time.monotonic()
        except (EOFError, OSError):
            return


def reload_forked(jobs: list[Job], reload_chunk: ReloadChunk, helpers: int) -> list[RunDelta]:
    """Reload ``jobs`` with ``reload_chunk``, here and in up to ``helpers`` forked children;
    their deltas in ``jobs`` order, each run left as a reload here would leave it."""
    chunks = chunked(jobs, helpers + 1)
    crc.prepare()  # the checksum tables every process would grow for itself: grown once, shared
    counter = _Counter(len(chunks))
    children = _start(chunks, reload_chunk, counter, helpers) if len(chunks) > 1 else []
    receivers = [_Receiver(process, conn, counter) for process, conn in children]
    for receiver in receivers:
        receiver.start()
    results: dict[int, list[RunDelta]] = {}
    received = False
    try:
        slowest = 0.0
        while (i := counter.back()) is not None:
            began = time.perf_counter()
            results[i] = reload_chunk(chunks[i])
            slowest = max(slowest, time.perf_counter() - began)
        for receiver in receivers:
            receiver.stall = max(STALL_SECONDS, STALL_CHUNKS * slowest)
        for receiver in receivers:
            receiver.join()
            for i, payload in receiver.got:
                try:
                    results[i] = _unpack(chunks[i], payload)
                except (pickle.UnpicklingError, EOFError, ValueError):
                    pass  # read here below
            receiver.got = []
        received = True
    finally:  # every child ends here: given a moment once all was received, killed on an error
        for receiver in receivers:
            receiver.closing = True
            receiver.join()
        for process, conn in children:
            conn.close()
            if received:
                process.join(5)
            if process.is_alive():
                process.kill()
                process.join()
    for i, chunk in enumerate(chunks):  # a child's that never came back
        if i not in results:
            results[i] = reload_chunk(chunk)
    return [delta for i in range(len(chunks)) for delta in results[i]]
