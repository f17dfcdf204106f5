"""Reloading many runs at once: their new bytes framed and decoded together, then applied run by run.

A logdir of thousands of small runs (a sweep) costs little in bytes but much in fixed costs:
each run's batch pays for dozens of numpy calls on arrays of a few hundred records, and a
group of records too small to decode in bulk (a run's step-0 records) goes through protobuf.
Here the new bytes of many runs' files are read into one buffer, framed by one ``frame_bulk``
call and decoded by one ``decode_scalars`` (and ``walk_values``) call; the decoded columns are
then cut per file and applied to each run's data by ``bulk_apply.BulkBatch``, exactly as a
file's own batch would be.

Only *clean* files take this path: every new byte of the file belongs to a whole, verified
record chained from where the file was read to, so framing the file alone would find the same
records and no problem. A run with any other file (damage, a record still being written, a file
gone, shrunk, too large or unreadable) is left whole to ``Run.reload``, which reads and reports
it as it always does. Either way a run's result is the one the general path gives.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ..events.scalars_bulk import BulkScalars, decode_scalars
from ..events.values_bulk import BulkValues, walk_values
from ..files.problems import Problem
from ..files.read_buffer import ReadBufferPool
from ..files.storage import FilePath
from ..records.frame_bulk import frame_bulk
from ..records.records import FOOTER_SIZE, HEADER_SIZE
from ..runs.bulk_apply import BULK_MIN_RECORDS, BulkBatch
from ..runs.run import FileState, Run
from ..runs.run_data import RunDelta
from .batch_cold import ColdSeries, Sorted, apply_cold, eligible, series_of

#: Fewer changed runs than this are reloaded one by one (a poll that finds a run or two grown).
BATCH_MIN_RUNS = 8
#: Files with more new bytes than this are read by their run's own loader, in its chunks.
BATCH_FILE_BYTES = 1 << 20
#: New bytes read into one batch (then the next batch begins): as much as a run's loader reads at
#: once, which bounds what a batch holds besides the data kept (the bytes, framing, decoding).
BATCH_BYTES = 8 << 20
#: The last batch joins the one before when it holds less than this part of ``BATCH_BYTES``.
TAIL_FRACTION = 4


@dataclass
class _Piece:
    """The new bytes of one file: ``buf[lo:hi]`` of the batch, from file offset ``offset``."""

    path: FilePath
    offset: int
    size: int
    lo: int = 0
    hi: int = 0


@dataclass
class _Job:
    """One run of the batch and its files (``pieces``: those with new bytes, in name order)."""

    index: int
    run: Run
    paths: list[FilePath]
    sizes: list[int]
    pieces: list[_Piece]
    data: list[bytes]


def reload_here(jobs: list[tuple[Run, list[FilePath]]], bulk: bool, threads: int,
                first_bytes: int | None = None) -> list[RunDelta]:
    """Reload runs in this process: many changed runs' small files at once (``reload_batched``),
    the rest run by run on ``threads`` threads (runs share nothing, and a run's own loader spends
    its time in numpy calls that release the GIL). ``first_bytes``: see ``Logdir.reload``."""
    batched: list[RunDelta | None] = [None] * len(jobs)
    if bulk and len(jobs) >= BATCH_MIN_RUNS:
        batched = reload_batched(jobs)
    rest = [job for job, delta in zip(jobs, batched) if delta is None]
    done = iter(_reload_each(rest, threads, first_bytes))
    return [delta if delta is not None else next(done) for delta in batched]


def _reload_each(jobs: list[tuple[Run, list[FilePath]]], threads: int, first_bytes: int | None) -> list[RunDelta]:
    """Reload runs one by one, on ``threads`` threads."""
    workers = min(len(jobs), threads)
    buffers = ReadBufferPool()  # one read buffer per worker, reused run after run

    def reload(job: tuple[Run, list[FilePath]]) -> RunDelta:
        with buffers.lease() as buffer:
            return job[0].reload(job[1], buffer, first_bytes)

    if workers <= 1:
        return [reload(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="tbnb-reload") as pool:
        return list(pool.map(reload, jobs))


def reload_batched(jobs: list[tuple[Run, list[FilePath]]]) -> list[RunDelta | None]:
    """Reload the runs of ``jobs`` (each with its event files in name order) that can be
    reloaded together; for each job its delta, or None where it is left to ``Run.reload``."""
    out: list[RunDelta | None] = [None] * len(jobs)
    full: list[_Job] = []  # the last full batch, applied once what follows is known
    batch: list[_Job] = []
    held = 0
    for index, (run, paths) in enumerate(jobs):
        job = _read(index, run, paths)
        if job is None:
            continue
        batch.append(job)
        held += sum(len(d) for d in job.data)
        if held >= BATCH_BYTES:
            if full:
                _apply(full, out)
            full, batch, held = batch, [], 0
    # A tail much smaller than a batch joins the one before: alone, a run or two hold too few
    # records of each length for the bulk decoders (``grouping.MIN_DECODE_GROUP``), and their
    # protobuf-parsed records would keep them off the cold path (``batch_cold``).
    if full and held < BATCH_BYTES // TAIL_FRACTION:
        full, batch = full + batch, []
    for part in (full, batch):
        if part:
            _apply(part, out)
    return out


def _read(index: int, run: Run, paths: list[FilePath]) -> _Job | None:
    """The run's new bytes, or None when anything calls for the run's own loader."""
    if any(p not in paths for p in run.files):
        return None  # a file went away: the loader reports it
    storage = run.storage
    sizes: list[int] = []
    pieces: list[_Piece] = []
    try:
        for path in paths:
            size = storage.size(path)
            state = run.files.get(path)
            offset = state.offset if state is not None else 0
            if size < offset or size - offset > BATCH_FILE_BYTES:
                return None
            sizes.append(size)
            if size > offset:
                pieces.append(_Piece(path, offset, size))
        data: list[bytes] = []
        for piece in pieces:
            with storage.open(piece.path) as fh:
                fh.seek(piece.offset)
                got = fh.read(piece.size - piece.offset)
            if len(got) != piece.size - piece.offset:
                return None  # the file changed under us: the loader reads what is there
            data.append(got)
    except OSError:
        return None  # the loader reports it
    return _Job(index, run, paths, sizes, pieces, data)


def _apply(batch: list[_Job], out: list[RunDelta | None]) -> None:
    """Frame and decode the batch's bytes at once; apply every run whose files are clean."""
    buf = b"".join(d for job in batch for d in job.data)
    pos = 0
    for job in batch:
        for piece, data in zip(job.pieces, job.data):
            piece.lo, pos = pos, pos + len(data)
            piece.hi = pos
        job.data = []
    view = memoryview(buf)
    framed = frame_bulk(view)
    starts, lengths, rows = framed.starts, framed.lengths, framed.rows
    pieces = [piece for job in batch for piece in job.pieces]
    lo = np.array([p.lo for p in pieces], dtype=np.int64)
    hi = np.array([p.hi for p in pieces], dtype=np.int64)
    first, last, clean = _locate(starts, lengths, framed.problems, lo, hi)
    if not clean.all():
        starts, lengths, clean = _rescue(view, starts, lengths, lo, hi, first, last, clean)
        rows = {}  # (the framer's gathered rows no longer match the records)
        first, last, _ = _locate(starts, lengths, [], lo, hi)
    segments = np.concatenate([[0], first]).astype(np.int64)
    scalars = decode_scalars(view, starts, lengths, rows, segments)
    rest = np.ones(len(starts), dtype=bool)
    rest[scalars.rows] = False
    rest_rows = np.flatnonzero(rest)
    values = BulkValues.empty()
    if len(rest_rows) >= BULK_MIN_RECORDS:
        values = walk_values(view, starts[rest_rows], lengths[rest_rows])
        values.rows = rest_rows[values.rows]
    scalar_parts, value_parts = _scalars_parts(scalars, first, last), _values_parts(values, first, last)
    bounds = list(zip(first.tolist(), last.tolist()))
    cold_at, cold_rows, cold = _cold(batch, clean, scalar_parts, value_parts)
    k = 0
    for job in batch:
        n = len(job.pieces)
        if not clean[k : k + n].all():
            k += n
            continue  # left to the run's own loader
        delta = RunDelta()
        run = job.run
        # (only a one-piece job is cold: a job with no piece shares its k with the next job)
        c = cold_at.get(k) if n == 1 else None
        done = False
        if c is not None and cold_rows is not None:
            a, b = bounds[k]
            piece = job.pieces[0]
            done = apply_cold(run.data, view, starts[a:b], lengths[a:b], str(piece.path), piece.offset - piece.lo,
                              delta, scalar_parts[k], cold[c], cold_rows)
        for i, piece in enumerate(job.pieces if not done else (), start=k):
            a, b = bounds[i]
            BulkBatch(run.data, view, starts[a:b], lengths[a:b], str(piece.path), piece.offset - piece.lo, delta,
                      scalar_parts[i], value_parts[i]).apply()
        k += n
        for path, size in zip(job.paths, job.sizes):
            state = run.files.setdefault(path, FileState())
            state.offset = state.size = size
        run.data.flush(delta)
        delta.problems.sort(key=lambda p: (p.path, p.offset))
        out[job.index] = delta


def _cold(batch: list[_Job], clean: np.ndarray, scalar_parts: list[BulkScalars],
          value_parts: list[BulkValues]) -> tuple[dict[int, int], Sorted | None, list[list[ColdSeries]]]:
    """The runs of the batch read for the first time whose one piece holds only TF1 scalars
    (``batch_cold``): {piece index: their number}, their series' rows, each one's series."""
    at: dict[int, int] = {}
    parts: list[BulkScalars] = []
    k = 0
    for job in batch:
        n = len(job.pieces)
        if n == 1 and clean[k] and eligible(job.run.data, scalar_parts[k], len(value_parts[k].rows)):
            at[k] = len(parts)
            parts.append(scalar_parts[k])
        k += n
    if not parts:
        return at, None, []
    rows, series = series_of(parts)
    return at, rows, series


def _locate(starts: np.ndarray, lengths: np.ndarray, problems: list[Problem], lo: np.ndarray,
            hi: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per piece: the records [first, last) whose headers are in it, and whether it is clean:
    they chain from its first byte to its last, and no problem is in it."""
    heads = starts - HEADER_SIZE
    ends = starts + lengths + FOOTER_SIZE
    first, last = np.searchsorted(heads, lo), np.searchsorted(heads, hi)
    if not len(heads):
        return first, last, np.zeros(len(lo), dtype=bool)
    breaks = np.concatenate([[0], np.cumsum(ends[:-1] != heads[1:])])  # breaks before record i
    a = np.minimum(first, len(heads) - 1)
    b = np.maximum(last - 1, 0)
    ok = (last > first) & (heads[a] == lo) & (ends[b] == hi) & (breaks[b] == breaks[a])
    if problems:
        at = np.array(sorted(p.offset for p in problems), dtype=np.int64)
        ok &= np.searchsorted(at, lo) == np.searchsorted(at, hi)
    return first, last, ok


def _rescue(view: memoryview, starts: np.ndarray, lengths: np.ndarray, lo: np.ndarray, hi: np.ndarray,
            first: np.ndarray, last: np.ndarray, clean: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The records of the clean pieces, with those of the pieces that are clean when framed
    alone (a damaged or half-written file before them can make its framing run into them)."""
    keep_starts = [starts[a:b] for a, b, ok in zip(first.tolist(), last.tolist(), clean.tolist()) if ok]
    keep_lengths = [lengths[a:b] for a, b, ok in zip(first.tolist(), last.tolist(), clean.tolist()) if ok]
    clean = clean.copy()
    for k in np.flatnonzero(~clean).tolist():
        alone = frame_bulk(view[lo[k] : hi[k]])
        if not alone.problems and alone.consumed == hi[k] - lo[k] and len(alone.starts):
            keep_starts.append(alone.starts + lo[k])
            keep_lengths.append(alone.lengths)
            clean[k] = True
    if not keep_starts:
        return starts[:0], lengths[:0], clean
    starts, lengths = np.concatenate(keep_starts), np.concatenate(keep_lengths)
    order = np.argsort(starts, kind="stable")
    return starts[order], lengths[order], clean


def _parts(rows: np.ndarray, tag: np.ndarray, tags: list[str], first: np.ndarray,
           last: np.ndarray) -> list[tuple[slice, np.ndarray, list[str]]]:
    """Per piece (records [first, last)): the slice of the decoded rows in it, their tag index
    among the tags the piece uses, and those tags, found for all pieces at once (numbering each
    piece's tags on its own keeps a piece's batch as it would be alone)."""
    lo, hi = np.searchsorted(rows, first), np.searchsorted(rows, last)
    piece = np.repeat(np.arange(len(first), dtype=np.int64), hi - lo)
    if len(piece) != len(rows):  # rows outside every piece (a record of a file left to its loader)
        inside = np.zeros(len(rows), dtype=bool)
        for i, j in zip(lo.tolist(), hi.tolist()):
            inside[i:j] = True
        piece = np.full(len(rows), -1, dtype=np.int64)
        piece[inside] = np.repeat(np.arange(len(first), dtype=np.int64), hi - lo)
    width = max(len(tags), 1)
    keys = piece * width + tag
    size = len(first) * width
    if size <= 4 * len(rows) + 4096:  # a table of every (piece, tag): no sort
        seen = np.zeros(size, dtype=bool)
        seen[keys[piece >= 0]] = True
        used = np.flatnonzero(seen)
        rank = np.cumsum(seen) - 1
        bounds_all = np.searchsorted(used, np.arange(len(first) + 1, dtype=np.int64) * width)
        local = rank[np.maximum(keys, 0)] - bounds_all[np.maximum(piece, 0)]
    else:  # many distinct tags in few pieces
        used = np.unique(keys[piece >= 0])
        local = np.searchsorted(used, keys) - np.searchsorted(used, piece * width)
        bounds_all = np.searchsorted(used, np.arange(len(first) + 1, dtype=np.int64) * width)
    bounds = bounds_all.tolist()
    names = (used % width).tolist()
    return [(slice(i, j), local[i:j], [tags[t] for t in names[u:v]])
            for i, j, u, v in zip(lo.tolist(), hi.tolist(), bounds[:-1], bounds[1:])]


def _scalars_parts(s: BulkScalars, first: np.ndarray, last: np.ndarray) -> list[BulkScalars]:
    """The decoded scalar rows of each piece, indexed from its first record (``_parts``)."""
    return [BulkScalars(s.rows[part] - a, local, names, s.step[part], s.wall[part], s.value[part], s.tf2[part])
            for (part, local, names), a in zip(_parts(s.rows, s.tag, s.tags, first, last), first.tolist())]


def _values_parts(v: BulkValues, first: np.ndarray, last: np.ndarray) -> list[BulkValues]:
    """``_scalars_parts`` for the walked value rows."""
    if not len(v.rows):
        return [v] * len(first)
    return [BulkValues(v.rows[part] - a, local, names, v.step[part], v.wall[part], v.has_metadata[part])
            for (part, local, names), a in zip(_parts(v.rows, v.tag, v.tags, first, last), first.tolist())]
