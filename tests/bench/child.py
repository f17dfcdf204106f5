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


def helpers_mb(rss_before: float | None) -> dict[str, Any]:
    """Memory of the forked helpers a load used (``tbnb.reader.logdir.forked``): the largest
    one's peak RSS, and what the helpers added beyond the pages they share with this process,
    counted high: (peak - this process's RSS before the load, which is at most what a fork
    shares) for each helper a load may fork."""
    from tbnb.reader.logdir.forked import spare_processes

    scale = 1 if sys.platform == "darwin" else 1024
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale / 1e6
    added = max(0.0, peak - (rss_before or 0.0)) * spare_processes()
    return {"helpers_peak_rss_mb": peak, "helpers_added_mb": added}


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

    rss_before = _status_mb("VmRSS")
    began = time.perf_counter()
    lg = tbnb.load(job["path"])
    seconds = time.perf_counter() - began
    helpers = helpers_mb(rss_before)
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
