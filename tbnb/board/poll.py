"""Polling the logdir on a background thread, holding its owner (the Board) weakly.

A thread, not an asyncio task: ipykernel's event loop is blocked while a cell runs, and the
cell that runs is usually the training loop writing the logdir we want to show live. Widget
messages sent from a thread still reach JupyterLab (ipykernel's IOPub socket is thread-safe);
Colab does not render them (colabtools#3373), hence ``Board.refresh()``.

The thread must never keep the board alive (a user's ``del board`` or a closed widget would
otherwise poll forever), so it holds a weak reference and takes a strong one only for the
duration of a tick. It stops on ``stop()``, when the owner is collected, and at interpreter exit.
"""

from __future__ import annotations

import itertools
import logging
import threading
import weakref
from typing import Any, Callable, Generic, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")
_NAMES = itertools.count(1)


def _run(ref: weakref.ref[T], tick: Callable[[T], object], interval: float, stop: threading.Event) -> None:
    """The thread body: a module function, so that the thread references nothing but ``ref``."""
    while not stop.wait(interval):
        owner = ref()
        if owner is None:
            return
        try:
            tick(owner)
        except Exception:  # a poll must never kill the thread; the next tick may succeed
            log.exception("tbnb: polling failed; will retry")
        finally:
            del owner


class Poller(Generic[T]):
    """Calls ``tick(owner)`` every ``interval`` seconds on a daemon thread until stopped."""

    def __init__(self, owner: T, tick: Callable[[T], object], interval: float) -> None:
        if not interval > 0:
            raise ValueError(f"interval must be positive, got {interval!r}")
        self.interval = float(interval)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=_run, args=(weakref.ref(owner), tick, self.interval, self._stop),
            name=f"tbnb-poll-{next(_NAMES)}", daemon=True,
        )
        # Runs when the owner is collected, and at exit (atexit=True is finalize's default).
        self._finalizer = weakref.finalize(owner, self._stop.set)

    def start(self) -> None:
        """Start the thread (once)."""
        self._thread.start()

    @property
    def alive(self) -> bool:
        """True while the thread runs."""
        return self._thread.is_alive()

    @property
    def thread_name(self) -> str:
        """The thread's name (``tbnb-poll-N``), for tests and debugging."""
        return self._thread.name

    def stop(self, timeout: float = 10.0) -> None:
        """Stop polling and wait for a tick in progress to end (not when called from a tick)."""
        self._stop.set()
        self._finalizer.detach()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(timeout)


def weak_call(obj: Any, method: Callable[[Any], object]) -> Callable[[], None]:
    """``method(obj)`` if obj is still alive; holds obj weakly (a comm callback must not keep it)."""
    ref = weakref.ref(obj)

    def call() -> None:
        target = ref()
        if target is not None:
            method(target)

    return call
