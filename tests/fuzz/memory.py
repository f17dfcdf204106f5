"""Peak memory of one input: the allocation check.

Limit: ``64 x input bytes + 64 MiB``. Why these numbers: a reader holds at most a few copies of
an input (the read buffer, decoded columns of 24 bytes per scalar point from records of at least
~20 bytes, one decoded value at a time, protobuf objects of small records that weigh several
times their wire size), so honest reading stays far below 64x; the constant absorbs the first
use of numpy/protobuf code paths and allocator slack. The broadcast bombs of issue 16 turn 107
bytes into gigabytes: four orders of magnitude above the line, so the margin costs no finding.
Fixed per-process costs (the bulk reader's CRC tables, grown once to the widest record group and
kept) are paid by ``checks.warm_up`` before the first input.

Two meters: ``rss`` resets the kernel's peak-RSS mark (``/proc/self/clear_refs``) and reads
``VmHWM``, which sees every allocation that is touched, C++ protobuf's included, at the cost of
two tiny file operations; ``tracemalloc`` sees Python and numpy allocations even when untouched
but slows the interpreter several-fold (used by the property tests).
"""

from __future__ import annotations

import os
import tracemalloc

MIB = 1 << 20
FACTOR = 64
CONSTANT = 64 * MIB


def limit(input_bytes: int) -> int:
    return FACTOR * input_bytes + CONSTANT


def _status(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field):
                return int(line.split()[1]) * 1024
    raise OSError(f"{field} not in /proc/self/status")


def rss_meter_available() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return _status("VmHWM:") > 0
    except OSError:
        return False


class PeakMeter:
    """``start()`` then ``peak()``: bytes allocated at the peak since ``start`` (above its level)."""

    def __init__(self, mode: str = "rss") -> None:
        if mode == "rss" and not rss_meter_available():
            mode = "tracemalloc"
        self.mode = mode
        self._base = 0
        if mode == "rss":
            # Kept open: the meter runs twice per input, and opening these files costs more than
            # reading them (a pread at offset 0 has the kernel write the status afresh).
            self._clear = os.open("/proc/self/clear_refs", os.O_WRONLY)
            self._status = os.open("/proc/self/status", os.O_RDONLY)
        elif not tracemalloc.is_tracing():
            tracemalloc.start()

    def _read(self, field: bytes) -> int:
        text = os.pread(self._status, 1 << 16, 0)
        at = text.index(field) + len(field)
        return int(text[at:text.index(b"kB", at)]) * 1024

    def start(self) -> None:
        if self.mode == "rss":
            os.write(self._clear, b"5")
            self._base = self._read(b"VmRSS:")
        else:
            tracemalloc.reset_peak()
            self._base = tracemalloc.get_traced_memory()[0]

    def peak(self) -> int:
        if self.mode == "rss":
            return max(self._read(b"VmHWM:") - self._base, 0)
        return max(tracemalloc.get_traced_memory()[1] - self._base, 0)
