"""The live soak: ``python -m tests.soak --minutes 10``.

A writer appends scalars at about 1 kHz to several runs (``scenario``) while a Board polls the
logdir every second in a real kernel (``kernel``). At the end it checks, and prints figures:

* every required point of the ledger is read exactly once, optional points at most once,
  forbidden points (a deleted run's old life) not at all;
* kernel RSS flat after warm-up: growth from the end of warm-up (the first 20 %) to the end is
  within 5 % of the warm-up RSS, beyond what the points kept by then explain (48 bytes per new
  point: int64 step, float64 wall time and value, and the spare capacity of growing columns);
* no file descriptor or thread leaked: the fewest fds and threads of the last probes are no more
  than the most seen during warm-up;
* the Board's ``status`` or ``problems`` say what happened to the deleted run.
"""

from __future__ import annotations

import argparse
import base64
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .kernel import KernelBoard, Probe
from .scenario import Scenario

BYTES_PER_POINT = 48
WARMUP = 0.2
PROBE_EVERY = 5.0


@dataclass
class SoakResult:
    seconds: float
    written: int = 0
    read: int = 0
    missing: int = 0
    duplicated: int = 0
    unexpected: int = 0
    forbidden_present: int = 0
    optional_kept: int = 0
    rss_warm: int = 0
    rss_end: int = 0
    rss_excess: int = 0
    threads: tuple[int, int] = (0, 0)
    fds: tuple[int, int] = (0, 0)
    deleted_run_reported: bool = False
    status: dict = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    events: list[str] = field(default_factory=list)
    probes: list[Probe] = field(default_factory=list)
    #: Descriptor targets open at the end and not during warm-up (socket ids reduced to "socket").
    new_fds: list[str] = field(default_factory=list)

    @property
    def points_ok(self) -> bool:
        return not (self.missing or self.duplicated or self.unexpected or self.forbidden_present)

    @property
    def rss_ok(self) -> bool:
        return self.rss_excess <= 0.05 * self.rss_warm

    @property
    def leaks_ok(self) -> bool:
        return self.threads[1] <= self.threads[0] and self.fds[1] <= self.fds[0]


def _read_series(dump: dict) -> dict[tuple[str, str], Counter]:
    out = {}
    for key, (steps, values) in dump["series"].items():
        run, tag = key.split("\t", 1)
        s = np.frombuffer(base64.b64decode(steps), dtype="<i8")
        v = np.frombuffer(base64.b64decode(values), dtype="<f8")
        out[(run, tag)] = Counter(zip(s.tolist(), v.tolist()))
    return out


def _kinds(targets: Counter) -> Counter:
    out: Counter = Counter()
    for t, n in targets.items():
        out["socket" if t.startswith("socket:") else "pipe" if t.startswith("pipe:") else
            "anon_inode" if t.startswith("anon_inode:") else t] += n
    return out


def soak(seconds: float, logdir: Path | None = None, log=print) -> SoakResult:
    root = Path(logdir or tempfile.mkdtemp(prefix="tbnb-soak-"))
    board = KernelBoard(root, reload_interval=1.0)
    scenario = Scenario(root, seconds)  # the clock starts once the kernel is up
    result = SoakResult(seconds)
    warm_probes: list[Probe] = []
    warm_points = 0
    warm_fds: Counter = Counter()
    try:
        next_probe = time.monotonic()
        while scenario.elapsed() < seconds:
            scenario.tick()
            if time.monotonic() >= next_probe:
                p = board.probe()
                result.probes.append(p)
                if scenario.elapsed() <= WARMUP * seconds:
                    warm_probes.append(p)
                    warm_points = scenario.ledger.written
                    warm_fds = board.fd_targets()
                next_probe += PROBE_EVERY
            time.sleep(0.001)
        scenario.finish()
        time.sleep(4.0)  # three polls and a margin: the Board reads the last bytes
        end_probes = [board.probe() for _ in range(3) if time.sleep(0.5) is None]
        result.new_fds = sorted((_kinds(board.fd_targets()) - _kinds(warm_fds)).elements())
        dump = board.dump()
    finally:
        board.close()
    got = _read_series(dump)
    led = scenario.ledger
    result.written = led.written
    result.read = sum(sum(c.values()) for c in got.values())
    for key in set(got) | set(led.required) | set(led.optional) | set(led.forbidden):
        have = got.get(key, Counter())
        req, opt, bad = (d.get(key, Counter()) for d in (led.required, led.optional, led.forbidden))
        result.missing += sum(max(0, n - have[p]) for p, n in req.items())
        for p, n in have.items():
            allowed = req[p] + opt[p]
            if n > max(allowed, 1):
                result.duplicated += n - max(allowed, 1)
            if not allowed:
                if bad[p]:
                    result.forbidden_present += n
                else:
                    result.unexpected += n
            elif opt[p] and not req[p]:
                result.optional_kept += 1
    result.rss_warm = max(p.rss for p in warm_probes or result.probes[:1])
    result.rss_end = min(p.rss for p in end_probes)
    result.rss_excess = result.rss_end - result.rss_warm - BYTES_PER_POINT * max(0, result.read - warm_points)
    result.threads = (max(p.threads for p in warm_probes or result.probes[:1]), min(p.threads for p in end_probes))
    result.fds = (max(p.fds for p in warm_probes or result.probes[:1]), min(p.fds for p in end_probes))
    result.status, result.problems, result.events = dump["status"], dump["problems"], scenario.events
    text = " ".join([str(result.status.get("message") or "")] + result.problems)
    result.deleted_run_reported = "r1" in text
    return result


def report(r: SoakResult, out=print) -> None:
    out(f"soak: {r.seconds:.0f} s, {r.written} points written ({r.written / r.seconds:.0f}/s), {r.read} read")
    for e in r.events:
        out(f"  {e}")
    out(f"points: missing {r.missing}, duplicated {r.duplicated}, unexpected {r.unexpected}, "
        f"deleted run's points still held {r.forbidden_present}, truncated points kept {r.optional_kept}")
    out(f"kernel RSS: warm {r.rss_warm / 2**20:.1f} MiB, end {r.rss_end / 2**20:.1f} MiB, "
        f"beyond the points kept {r.rss_excess / 2**20:+.1f} MiB (limit {0.05 * r.rss_warm / 2**20:.1f})")
    out(f"threads warm/end {r.threads[0]}/{r.threads[1]}, fds warm/end {r.fds[0]}/{r.fds[1]}, "
        f"new at the end: {r.new_fds}")
    out(f"status {r.status}")
    out(f"problems ({len(r.problems)}): {r.problems[:5]}")
    out(f"deleted run reported by status/problems: {r.deleted_run_reported}")
    out(f"checks: points {'ok' if r.points_ok else 'FAIL'}, rss {'ok' if r.rss_ok else 'FAIL'}, "
        f"leaks {'ok' if r.leaks_ok else 'FAIL'}, deleted run {'ok' if r.deleted_run_reported else 'FAIL'}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.soak", description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0)
    p.add_argument("--logdir", type=Path, help="where to write (default: a new temporary folder)")
    args = p.parse_args(argv)
    r = soak(60 * args.minutes, args.logdir)
    report(r)
    return 0 if (r.points_ok and r.rss_ok and r.leaks_ok and r.deleted_run_reported) else 1


if __name__ == "__main__":
    sys.exit(main())
