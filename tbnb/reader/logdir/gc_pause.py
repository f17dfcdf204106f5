"""Python's cyclic garbage collector paused while a reload builds a logdir's runs.

A cold load of a sweep makes tens of thousands of container objects (runs, their series, lists
and dicts) that all live on: the collector, triggered every 700 of them, walks the young ones
again and again and, as the heap grows, every object the process holds, and finds nothing to
free. Measured on 2,000 runs x 5 tags (``tests/bench/many_runs``): 125 collections, 17-21 ms of
a 0.23 s load, on the path every other step waits for. A reload makes no reference cycles of
its own, so pausing the collector while it reads frees nothing later than it would have been
freed; the collector runs again, with its usual thresholds, once the last reload in the process
has finished. A logdir's first read pauses it throughout (its listing, a Run per run and the
result's keys make as many objects as the read: pausing only the read left 61 collections and
20-30 ms of them); a later reload only while it reads ``PAUSE_MIN_RUNS`` runs or more: a Board's
poll, which finds a run or two grown, leaves the collector to the user's own code (a training
loop may share the kernel).

Process-wide, as the collector is: reloads of several ``Logdir`` objects on several threads
share one pause, and the collector is left as it was found (a user who disabled it keeps it
disabled).
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

#: A later reload (not a first read) pauses the collector while it reads at least this many runs.
PAUSE_MIN_RUNS = 8

_lock = threading.Lock()
_depth = 0
_was_enabled = False


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector for the body (nested and concurrent pauses share one),
    enabling it again afterwards only if it was enabled before the first."""
    global _depth, _was_enabled
    with _lock:
        if _depth == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _was_enabled:
                gc.enable()


def pause_gc_if(*, first_read: bool = False, runs: int = 0) -> AbstractContextManager[None]:
    """``paused_gc()`` for a logdir's first read or a read of ``PAUSE_MIN_RUNS`` runs or more;
    nothing otherwise."""
    return paused_gc() if first_read or runs >= PAUSE_MIN_RUNS else nullcontext()
