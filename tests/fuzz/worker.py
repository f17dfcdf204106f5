"""The fuzzing child: reads inputs ``start, start + step, ...`` and reports each as a JSON line.

It runs in its own process so that the parent can kill it when one input hangs inside C code
(where no alarm reaches) and notice when it dies (a segfault, the address-space limit). Before
each input it prints ``{"start": i}``, after it ``{"done": i, ...}``: the parent knows which input
was running when the child went silent or died.

Class 2 inputs (tensors declaring gigabytes) are read for real here, under an address-space
limit, so that a regression in size checks shows as an over-allocation, not as a dead machine.
"""

from __future__ import annotations

import gc
import json
import random
import resource
import shutil
import sys
import threading
from pathlib import Path

from . import checks, memory, seeds

#: Address space of the child: room for the interpreter, numpy and the 64x + 64 MiB budget of
#: the largest seed, below what one broadcast bomb asks for, so that a bomb fails at once with
#: MemoryError instead of spending seconds filling a gigabyte.
ADDRESS_LIMIT = 1 << 30


def case_for(seed: int, i: int, seed_files: dict[str, bytes], extras: dict[str, bytes]) -> checks.Case:
    """The ``i``-th input of a run started with ``seed``: a pure function of both."""
    return checks.build_case(seed_files, random.Random(f"{seed}:{i}"), extras)


def main(argv: list[str]) -> None:
    """Read the inputs of ``argv`` (seed, start, step, stop, time limit[, scratch folder]) in a
    scratch folder of its own, removed when the child ends or is interrupted; a child killed
    (SIGKILL) leaves it to the parent, which removes the whole run's scratch folder."""
    seed, start, step, stop, time_limit = (int(a) for a in argv[:5])
    if len(argv) > 5:
        scratch = Path(argv[5]) / f"child-{start}"
        scratch.mkdir(parents=True)
    else:
        scratch = checks.workdir()
    try:
        _read(seed, start, step, stop, time_limit, scratch / "in")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


#: Stack of each thread the reader starts in a child (bytes). The default (the 8 MiB stack limit)
#: is reserved as address space per thread: on a machine under heavy load the reader's short
#: threads (inotify's closer: one per Logdir closed, waiting on the kernel's grace period) piled
#: up to ~80 at once, filled the address-space limit, and reads failed with "can't start new
#: thread" (11 of 139,508 inputs at load 9 on 2 cores; each replays clean).
THREAD_STACK = 1 << 20


def _read(seed: int, start: int, step: int, stop: int, time_limit: int, root: Path) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_LIMIT, ADDRESS_LIMIT))
    threading.stack_size(THREAD_STACK)
    seed_files, extras = seeds.load_seeds(), seeds.projector_files()
    meter = memory.PeakMeter("rss")
    checks.warm_up(root)
    gc.collect()
    gc.freeze()  # the seeds and modules stay: the collector need not walk them after each input
    out = sys.stdout
    for i in range(start, stop, step):
        out.write(json.dumps({"start": i}) + "\n")
        out.flush()
        case = case_for(seed, i, seed_files, extras)
        outcome = checks.run_case(case, root, meter, time_limit=time_limit, run_bombs=True)
        failures = [[f.label, f.kind, f.key, f.detail] for f in outcome.failures]
        out.write(json.dumps({"done": i, "failures": failures, "peak": outcome.peak,
                              "steps": case.steps}) + "\n")
        out.flush()

if __name__ == "__main__":
    main(sys.argv[1:])
