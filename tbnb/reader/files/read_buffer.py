"""Read buffers reused from one read to the next during a reload.

A fresh buffer for every read is written page by page for the first time, and each first touch
of a page costs a page fault: in a new process that is most of a cold load's reading time. A
buffer reused across the reads of a reload pays for its pages once.

What a reader gets is a view of the buffer, valid until its next read: everything kept from a
batch (records' bytes, decoded columns) is copied out of it, never viewed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import BinaryIO

import numpy as np


class ReadBuffer:
    """One reusable read buffer (grown as reads need).

    An uninitialised numpy array, not a bytearray: a bytearray is zeroed when made, page by page
    under the GIL, where ``readinto`` fills fresh pages with the GIL released.
    """

    def __init__(self) -> None:
        self._buf = np.empty(0, dtype=np.uint8)

    def read(self, fh: BinaryIO, size: int) -> memoryview:
        """Up to ``size`` bytes from ``fh``'s position, as a view that the next read overwrites."""
        if len(self._buf) < size:
            self._buf = np.empty(size, dtype=np.uint8)  # (a view of the old one still out keeps it alive)
        view = memoryview(self._buf)[:size]
        got = fh.readinto(view)
        return view[: got or 0]


class ReadBufferPool:
    """Buffers for the runs reloaded at once: one per thread at a time, reused by the next run."""

    def __init__(self) -> None:
        self._free: list[ReadBuffer] = []
        self._lock = threading.Lock()

    @contextmanager
    def lease(self) -> Iterator[ReadBuffer]:
        with self._lock:
            buffer = self._free.pop() if self._free else ReadBuffer()
        try:
            yield buffer
        finally:
            with self._lock:
                self._free.append(buffer)
