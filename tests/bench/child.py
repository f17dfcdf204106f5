"""One measurement in a fresh Python process: ``python tests/bench/child.py '<json job>'``.

Run by the harness as a script (not as ``tests.bench.child``) so that the child imports nothing
but the standard library and the loader it measures. Imports happen before the clock starts: the
figures are the load call alone. The result is one line ``BENCH-RESULT {json}`` on stdout.

Jobs (``kind``):
- ``tbnb``: ``tbnb.load(path)``: seconds, peak RSS, scalar points and bytes held per point.
- ``incremental``: load, append events to a run with a new ``EventWriter`` file, time ``reload()``.
- ``tb-python``: TensorBoard's ``EventMultiplexer``: ``AddRunsFromDirectory`` + ``Reload``.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import tempfile
import time
from typing import Any

RESULT_PREFIX = "BENCH-RESULT "


def _status_mb(field: str) -> float | None:
    """A ``/proc/self/status`` memory field (``VmHWM``, ``VmRSS``) in MB, None off Linux."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) * 1024 / 1e6
    except OSError:
        pass
    return None


def peak_rss_mb() -> float:
    """This process's peak resident set so far, in MB (VmHWM, else ``ru_maxrss``)."""
    hwm = _status_mb("VmHWM")
    if hwm is not None:
        return hwm
    scale = 1 if sys.platform == "darwin" else 1024  # bytes on macOS, KiB on Linux
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale / 1e6


def _private_mb() -> float | None:
    """This process's private resident pages now (``smaps_rollup``), in MB; None off Linux."""
    try:
        with open("/proc/self/smaps_rollup") as fh:
            kib = sum(int(line.split()[1]) for line in fh if line.startswith(("Private_Clean:", "Private_Dirty:")))
    except OSError:
        return None
    return kib * 1024 / 1e6


def watch_helpers(folder: str) -> None:
    """Have each forked helper of a load (``tbnb.reader.logdir.forked``) write, as it ends, its
    own memory into ``folder``: its private pages then, and its peak and final RSS. A helper
    shares the kernel's pages (the interpreter, the modules, the checksum tables grown before
    the fork); those are counted once, in the kernel's RSS, not again in the helper's."""
    from tbnb.reader.logdir import forked

    child = forked._child

    def reporting(*args: Any) -> None:
        try:
            child(*args)
        finally:
            figures = {"private_end_mb": _private_mb(), "hwm_mb": _status_mb("VmHWM"), "rss_end_mb": _status_mb("VmRSS")}
            with open(os.path.join(folder, f"helper-{os.getpid()}.json"), "w") as fh:
                json.dump(figures, fh)

    forked._child = reporting


def helpers_mb(rss_before: float | None, folder: str | None = None) -> dict[str, Any]:
    """Memory of the forked helpers a load used (``tbnb.reader.logdir.forked``): the largest
    one's peak RSS, and what the helpers added beyond the pages they share with this process.

    ``helpers_added_mb``: with ``folder`` (``watch_helpers``), for each helper its private pages
    at its end plus what its RSS fell from its peak by then (what it freed: at most all of it
    private), which bounds its private pages at its peak from above as long as it touched no
    shared page for the first time after its peak (its code paths are all run by its first
    chunk); a helper that wrote nothing (killed) counted as below. Without it, or as
    ``helpers_added_rss_estimate_mb``: (the largest peak - this process's RSS before the load)
    for each helper a load may fork, an estimate that comes out low when a helper touches fewer
    of the shared pages than this process held (measured on (a): 12 MB against 20 by the
    bound)."""
    from tbnb.reader.logdir.forked import spare_processes

    scale = 1 if sys.platform == "darwin" else 1024
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 1e6
    high = max(0.0, peak - (rss_before or 0.0)) * spare_processes()
    added = high
    if folder is not None:
        reports = []
        for name in sorted(os.listdir(folder)):
            with open(os.path.join(folder, name)) as fh:
                reports.append(json.load(fh))
            os.remove(os.path.join(folder, name))
        if reports and all(None not in r.values() for r in reports):
            added = sum(r["private_end_mb"] + max(0.0, r["hwm_mb"] - r["rss_end_mb"]) for r in reports)
            added += max(0, spare_processes() - len(reports)) * high / max(1, spare_processes())
    return {"helpers_peak_rss_mb": peak, "helpers_added_mb": added, "helpers_added_rss_estimate_mb": high}


def store_stats(lg: Any) -> dict[str, Any]:
    """Scalar points held and bytes of their columns (spare capacity included), from each run's
    data: ``Logdir._runs[run].data.scalar_footprint()``."""
    try:
        total_bytes = points = 0
        for run in lg._runs.values():
            n, nbytes = run.data.scalar_footprint()
            total_bytes += int(nbytes)
            points += int(n)
    except AttributeError as err:
        return {"store_error": (f"tbnb's store changed ({err}); the benchmark reads "
                                "Logdir._runs[run].data.scalar_footprint(): update tests/bench/child.py")}
    return {"scalar_points": points, "scalar_bytes": total_bytes,
            "bytes_per_point": total_bytes / points if points else None}


def job_tbnb(job: dict[str, Any]) -> dict[str, Any]:
    """Cold ``tbnb.load``."""
    import tbnb

    folder = tempfile.mkdtemp(prefix="tbnb-bench-helpers-")
    watch_helpers(folder)
    rss_before = _status_mb("VmRSS")
    began = time.perf_counter()
    lg = tbnb.load(job["path"])
    seconds = time.perf_counter() - began
    helpers = helpers_mb(rss_before, folder)
    os.rmdir(folder)
    peak = peak_rss_mb()
    return {"seconds": seconds, "peak_rss_mb": peak, "rss_before_mb": rss_before, **helpers,
            "peak_with_helpers_mb": peak + helpers["helpers_added_mb"],
            "runs": len(lg.runs()), "problems": len(lg.problems), **store_stats(lg)}


def job_incremental(job: dict[str, Any]) -> dict[str, Any]:
    """Load, append ``steps`` steps of every tag of ``run`` in a second event file, ``reload()``."""
    import tbnb
    from tbnb.testing import EventWriter

    began = time.perf_counter()
    lg = tbnb.load(job["path"])
    cold = time.perf_counter() - began
    run, tags, first, steps, start = job["run"], job["tags"], job["first_step"], job["steps"], job["start"]
    missing = [t for t in tags if t not in lg.tags(run)]
    if missing:
        raise RuntimeError(f"run {run!r} lacks the tags the benchmark appends to: {missing[:3]}")
    writer = EventWriter(os.path.join(job["path"], run), start_time=start + 1.0 + 0.05 * first)
    try:
        with writer:
            for step in range(first, first + steps):
                wall = start + 1.0 + 0.05 * step
                for i, tag in enumerate(tags):
                    writer.add_scalar(tag, 0.5 + 1e-4 * i, step, wall_time=wall + 1e-3 * i)
        began = time.perf_counter()
        result = lg.reload()
        reload_s = time.perf_counter() - began
    finally:
        os.remove(writer.path)  # the copy is reused by the next repetition
    return {"cold_seconds": cold, "reload_seconds": reload_s, "appended": steps * len(tags),
            "reloaded_points": int(sum(result.points.values())), "peak_rss_mb": peak_rss_mb()}


def job_tb_python(job: dict[str, Any]) -> dict[str, Any]:
    """TensorBoard's Python loader with its default size guidance."""
    from tensorboard.backend.event_processing import plugin_event_multiplexer

    began = time.perf_counter()
    multiplexer = plugin_event_multiplexer.EventMultiplexer()
    multiplexer.AddRunsFromDirectory(job["path"])
    multiplexer.Reload()
    seconds = time.perf_counter() - began
    return {"seconds": seconds, "peak_rss_mb": peak_rss_mb(), "runs": len(multiplexer.Runs())}


JOBS = {"tbnb": job_tbnb, "incremental": job_incremental, "tb-python": job_tb_python}


def main(argv: list[str]) -> int:
    """Run the job given as JSON in ``argv[1]`` and print its result line."""
    job = json.loads(argv[1])
    result = JOBS[job["kind"]](job)
    print(RESULT_PREFIX + json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
