"""Loader for a single run: its event files, each read from its own byte offset, into its data.

On a reload, only the files that changed are read, and only the bytes added since the last
read, every file in name order (TensorBoard's Rust loader; its Python loader tails only the
newest file and so loses a second writer's data). What the records say is ``RunData``'s
(``run_data``); this module only finds bytes, frames them into records and hands each batch on.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import BinaryIO

from ..events.events import cannot_read
from ..files.problems import Problem
from ..files.read_buffer import ReadBuffer
from ..files.storage import FilePath, LocalStorage, Storage
from ..records.frame_bulk import SAMPLE_SPAN, frame_bulk, large_records
from ..records.records import frame
from .bulk_apply import apply_batch
from .run_data import RunData, RunDelta

#: Bytes read from a file at a time (a larger record grows the read until it fits). Framing and
#: decoding a chunk hold about three times its size in temporary arrays, in each loading thread:
#: 1 MiB keeps a 2.56 M-point load under 100 MB peak RSS (8 MiB: 154 MB; 2 MiB: 103 MB) for a
#: few percent more CPU time (``python -m tests.bench``: the per-chunk costs are paid more often,
#: on fewer cache misses).
READ_CHUNK = 1 << 20
#: The same for logs of large records (images, histograms): their batches hold little besides the
#: bytes, and each batch has fixed costs, as has each reservoir's look at a tag.
LARGE_READ_CHUNK = 32 << 20


@dataclass
class FileState:
    """How far an event file has been read, and what was last seen of its size."""

    offset: int = 0
    size: int = -1


def _chunk_for(fh: BinaryIO, offset: int) -> int:
    """READ_CHUNK, or LARGE_READ_CHUNK where the records from ``offset`` on are large (the
    bulk framer's test, on their first few records)."""
    fh.seek(offset)
    return LARGE_READ_CHUNK if large_records(memoryview(fh.read(SAMPLE_SPAN))) else READ_CHUNK


class Run:
    """One run directory: where each of its event files has been read to, and its ``data``."""

    def __init__(self, name: str, directory: FilePath, capacities: dict[str, int | None],
                 purge_orphaned_data: bool = True, bulk: bool = True, storage: Storage | None = None) -> None:
        self.name = name
        #: False parses every record with protobuf (the bulk path's reference).
        self.bulk = bulk
        self.directory = directory
        #: Where the files are read from (local files unless told otherwise).
        self.storage: Storage = storage if storage is not None else LocalStorage(directory)
        self.files: dict[FilePath, FileState] = {}
        self.data = RunData(capacities, purge_orphaned_data)

    def reload(self, paths: list[FilePath], buffer: ReadBuffer | None = None,
               first_bytes: int | None = None) -> RunDelta:
        """Read what is new in every event file of the run (``paths`` in name order), into
        ``buffer`` (a buffer of its own if not given). A file that went away is reported; what
        was read from it stays. With ``first_bytes``, a preview that the next reload continues:
        at most about that many new bytes (whole records) of each file, and no file after one it
        left unfinished, so that every point arrives in the order one reload would read it."""
        delta = RunDelta()
        buffer = buffer or ReadBuffer()
        for gone in [p for p in self.files if p not in paths]:
            del self.files[gone]
            delta.problems.append(Problem(str(gone), 0, "event file is gone; the data read from it is kept"))
        for path in paths:
            state = self.files.setdefault(path, FileState())
            self._read_file(path, state, delta, buffer, first_bytes)
            if first_bytes is not None and state.offset < state.size:
                break  # a preview leaves the later files alone: read in order, as one reload reads them
        self.data.flush(delta)
        delta.problems.sort(key=lambda p: (p.path, p.offset))
        return delta

    def for_task(self, paths: list[FilePath]) -> Run:
        """A copy of this run to reload in a task (``tasks``): where each file was read to,
        the storage (its listing cut to ``paths``), and ``RunData.for_task``'s copy of the data."""
        task = copy.copy(self)
        task.storage = self.storage.for_files(paths)
        task.files = {p: FileState(s.offset, s.size) for p, s in self.files.items()}
        task.data = self.data.for_task()
        return task

    def absorb(self, done: Run, delta: RunDelta) -> None:
        """Take a task's reload (``done``, made by ``for_task``): its offsets and data."""
        self.files = done.files
        self.data.absorb(done.data, delta)

    def changed(self, paths: list[FilePath], sizes: bool = True) -> bool:
        """Whether a reload could find anything: a file added or gone, one of another size, or
        one not read to its end (a file that cannot be stat-ed counts: the reload reports it).

        ``sizes=False``: the files are known to have the sizes last seen (no change was
        notified in the run's directory), so none is stat-ed."""
        files = self.files
        if len(paths) != len(files):
            return True
        if not sizes:
            for path in paths:
                state = files.get(path)
                if state is None or state.size != state.offset:
                    return True
            return False
        size_of = self.storage.size
        try:
            for path in paths:  # (a plain loop: an idle poll of 10,000 runs calls this 10,000 times)
                state = files.get(path)
                if state is None:
                    return True
                size = size_of(path)
                if size != state.size or size != state.offset:
                    return True
        except OSError:
            return True
        return False

    def unread(self, paths: list[FilePath]) -> int:
        """Bytes of ``paths`` (as they are now) not read yet; a file that cannot be stat-ed
        counts nothing (its reload reports it)."""
        total = 0
        for path in paths:
            state = self.files.get(path)
            try:
                total += max(0, self.storage.size(path) - (state.offset if state is not None else 0))
            except OSError:
                pass
        return total

    def unread_bytes(self) -> int:
        """Bytes of the run's files (as last seen) not read yet."""
        return sum(max(0, s.size - s.offset) for s in self.files.values())

    def _read_file(self, path: FilePath, state: FileState, delta: RunDelta, buffer: ReadBuffer,
                   first_bytes: int | None = None) -> None:
        try:
            size = self.storage.size(path)
        except OSError as err:
            delta.problems.append(Problem(str(path), state.offset, f"cannot stat: {err.strerror or err}"))
            return
        if size < state.offset:
            delta.problems.append(Problem(str(path), state.offset,
                                          f"file shrank to {size} bytes; reading it again from the start"))
            state.offset = 0
        state.size = size
        if size == state.offset:
            return
        name = str(path)
        end = size if first_bytes is None else min(size, state.offset + first_bytes)
        try:
            with self.storage.open(path) as fh:
                chunk = READ_CHUNK
                while state.offset < end:
                    left = end - state.offset
                    if chunk == READ_CHUNK < left:
                        chunk = _chunk_for(fh, state.offset)
                    fh.seek(state.offset)
                    buf = buffer.read(fh, min(chunk, left))
                    if not buf:
                        break
                    framed = (frame_bulk if self.bulk else frame)(buf, name, state.offset)
                    delta.problems.extend(framed.problems)
                    apply_batch(self.data, buf, framed, name, state.offset, delta, self.bulk)
                    state.offset += framed.consumed
                    if framed.consumed == 0:
                        if end < size:
                            break  # a preview ends at its first record that runs past it
                        if len(buf) < size - state.offset:
                            chunk *= 2  # one record larger than the chunk: read more at once
                            continue
                        break  # an incomplete record at the end: the writer is mid-flush
        except OSError as err:
            delta.problems.append(Problem(name, state.offset, cannot_read(err)))
