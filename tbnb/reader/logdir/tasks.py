"""Reloading runs in an executor's tasks (``tbnb.load(url, executor=...)``): any
``concurrent.futures.Executor``, such as a process pool or a Dask client's ``get_executor()``.

Each changed run goes to a task as ``Run.for_task`` makes it: where each of its files was read
to, its rules' state and its sampled series, but none of its scalar points. The task reads and
parses only what is new and sends back the run as read: new scalar columns, sampled items (blobs
as references) and the offsets reached. Nothing here imports dask.
"""

from __future__ import annotations

from concurrent.futures import Executor

from ..files.storage import FilePath
from ..runs.run import Run
from ..runs.run_data import RunDelta


def reload_run(run: Run, paths: list[FilePath]) -> tuple[Run, RunDelta]:
    """The task: reload ``run``'s files (``paths``, in name order) where it runs."""
    delta = run.reload(paths)
    return run, delta


def reload_in(executor: Executor, jobs: list[tuple[Run, list[FilePath]]]) -> list[RunDelta]:
    """Reload each run in a task of ``executor`` and take its results back, in ``jobs`` order."""
    futures = [executor.submit(reload_run, run.for_task(paths), paths) for run, paths in jobs]
    deltas: list[RunDelta] = []
    for (run, _), future in zip(jobs, futures):
        done, delta = future.result()
        run.absorb(done, delta)
        deltas.append(delta)
    return deltas
