"""Long projections (t-SNE, UMAP) run on a thread of their own, one per layout, stoppable.

The page's requests are answered on the kernel's main thread; a t-SNE of 10,000 points takes
long enough that answering it there would freeze every other card. So the first request starts a
job and is answered "running" with the progress; the page asks again until it is "done" (each
answer is immediate), and a ``projector_stop`` request, or ``Board.projector_stop()``, stops it
between iterations.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .nonlinear import Stopped

RUNNING, DONE, STOPPED, FAILED = "running", "done", "stopped", "error"


@dataclass
class Job:
    """One background computation and what the page is told about it."""

    state: str = RUNNING
    done: int = 0
    total: int = 0
    result: np.ndarray | None = None
    message: str = ""
    stop: threading.Event = field(default_factory=threading.Event)
    thread: threading.Thread | None = None

    def progress(self, done: int, total: int) -> bool:
        self.done, self.total = done, total
        return self.stop.is_set()

    def status(self) -> dict[str, Any]:
        return {"state": self.state, "progress": [self.done, self.total], "message": self.message}


class Jobs:
    """Jobs by key. A stopped job stays stopped when asked again (the page keeps asking while it
    shows progress), until ``drop``; a failed one is started again."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[tuple[Any, ...], Job] = {}

    def get(self, key: tuple[Any, ...]) -> Job | None:
        with self._lock:
            return self._jobs.get(key)

    def start(self, key: tuple[Any, ...], work: Callable[[Callable[[int, int], bool]], np.ndarray]) -> Job:
        """The job for ``key``: the running or finished one, else a new one running ``work``."""
        with self._lock:
            job = self._jobs.get(key)
            if job is not None and job.state in (RUNNING, DONE, STOPPED):
                return job
            job = Job()
            self._jobs[key] = job

        def run() -> None:
            try:
                job.result = work(job.progress)
                job.state = DONE
            except Stopped:
                job.state, job.message = STOPPED, "stopped"
            except Exception as err:  # noqa: BLE001 - reported to the page as the job's error
                job.state, job.message = FAILED, f"{type(err).__name__}: {err}"

        job.thread = threading.Thread(target=run, name="tbnb-projector-job", daemon=True)
        job.thread.start()
        return job

    def stop(self, key: tuple[Any, ...] | None = None) -> int:
        """Stop the job for ``key`` (every running job when None); how many were asked to stop."""
        with self._lock:
            jobs = list(self._jobs.values()) if key is None else [self._jobs[key]] if key in self._jobs else []
        running = [j for j in jobs if j.state == RUNNING]
        for job in running:
            job.stop.set()
        return len(running)

    def drop(self, key: tuple[Any, ...]) -> None:
        with self._lock:
            self._jobs.pop(key, None)
