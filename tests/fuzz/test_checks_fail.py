"""The fuzz checks can fail: each is shown a reader with a defect put back, and must say so.

A check that never fails proves nothing, and the long run's zeros are only worth what these
tests show: the allocation meter sees a broadcast bomb (issue 16 class 2) when the size check
is lifted, the oracle sees a dropped point, and the comparison sees the bulk path answer
differently from the general path.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from tbnb.format.proto import event_pb2
from tbnb.reader.events import tensors
from tbnb.reader.logdir.logdir import Logdir

from . import checks, damage, memory

#: Elements the bomb declares: a 128 MiB float32 broadcast from one value, twice the meter's
#: constant, far below the address-space cap of the test process.
BOMB_ELEMENTS = 1 << 25


@pytest.fixture(scope="module")
def root() -> Iterator[Path]:
    base = checks.workdir()
    checks.warm_up(base / "in")
    yield base / "in"
    shutil.rmtree(base, ignore_errors=True)


def _bomb_file() -> bytes:
    ev = event_pb2.Event(wall_time=1.0, step=1)
    v = ev.summary.value.add(tag="bomb")
    v.metadata.plugin_data.plugin_name = "histograms"
    v.tensor.dtype = 1
    v.tensor.float_val.append(1.0)
    v.tensor.tensor_shape.dim.add(size=BOMB_ELEMENTS)
    return damage.frame(ev.SerializeToString())


def _scalar_file(n: int) -> bytes:
    out = []
    for step in range(n):
        ev = event_pb2.Event(wall_time=1.0 + step, step=step)
        ev.summary.value.add(tag="loss", simple_value=float(step))
        out.append(damage.frame(ev.SerializeToString()))
    return b"".join(out)


def _case(data: bytes) -> checks.Case:
    return checks.Case({checks.MAIN: data}, ["defect"], [])


@pytest.mark.parametrize("mode", ["rss", "tracemalloc"])
def test_a_broadcast_bomb_put_back_is_an_over_allocation(root: Path, monkeypatch: pytest.MonkeyPatch,
                                                         mode: str) -> None:
    data = _bomb_file()
    meter = memory.PeakMeter(mode)
    clean = checks.run_case(_case(data), root, meter, run_bombs=True)
    assert not clean.failures, clean.failures  # the reader refuses the shape before allocating
    monkeypatch.setattr(tensors, "MAX_BROADCAST", 1 << 40)  # the size check of class 2, lifted
    bombed = checks.run_case(_case(data), root, meter, run_bombs=True)
    kinds = {f.kind for f in bombed.failures}
    assert "over-allocation" in kinds, bombed.failures
    assert bombed.peak >= 4 * BOMB_ELEMENTS > memory.limit(len(data))


def test_a_point_dropped_by_the_bulk_path_is_lost_and_a_mismatch(root: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    meter = memory.PeakMeter("rss")
    data = _scalar_file(30)
    assert not checks.run_case(_case(data), root, meter).failures
    honest = Logdir.scalars

    def drop_last(self: Logdir, run: str, tag: str):  # type: ignore[no-untyped-def]
        s = honest(self, run, tag)
        if not self.bulk:
            return s
        return dataclasses.replace(s, step=s.step[:-1], wall_time=s.wall_time[:-1], value=s.value[:-1])

    monkeypatch.setattr(Logdir, "scalars", drop_last)
    failures = checks.run_case(_case(data), root, meter).failures
    assert {(f.kind, f.key) for f in failures} >= {("points lost", "bulk"), ("mismatch", "scalars")}, failures


def test_a_value_changed_by_the_bulk_path_is_a_mismatch(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bit changed in one value (not a lost point: the oracle counts points, the comparison
    checks every bit); NaN payloads and -0.0 count too."""
    meter = memory.PeakMeter("rss")
    data = _scalar_file(5)
    honest = Logdir.scalars

    def negate_zero(self: Logdir, run: str, tag: str):  # type: ignore[no-untyped-def]
        s = honest(self, run, tag)
        if not self.bulk:
            return s
        value = np.array(s.value, dtype=np.float64)
        value[0] = -value[0]  # 0.0 -> -0.0: equal as floats, not as points
        return dataclasses.replace(s, value=value)

    monkeypatch.setattr(Logdir, "scalars", negate_zero)
    failures = checks.run_case(_case(data), root, meter).failures
    assert {(f.kind, f.key) for f in failures} >= {("points lost", "bulk"), ("mismatch", "scalars")}, failures


def test_a_batch_input_is_read_through_the_batch_path_and_its_defects_show(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input marked ``batch`` is read in bulk by ``batch_reload`` (one run is enough): a record
    the batch path's framing drops is caught, and the same input read run by run stays clean."""
    from tbnb.reader.logdir import batch_reload

    meter = memory.PeakMeter("rss")
    case = dataclasses.replace(_case(_scalar_file(300)), batch=True)
    calls: list[int] = []
    honest_batch, honest_frame = batch_reload.reload_batched, batch_reload.frame_bulk

    def counted(jobs):  # type: ignore[no-untyped-def]
        calls.append(len(jobs))
        return honest_batch(jobs)

    monkeypatch.setattr(batch_reload, "reload_batched", counted)
    assert not checks.run_case(case, root, meter).failures
    assert calls == [1]  # the bulk read went through the batch path; the general read did not

    def drop_last_record(*args, **kwargs):  # type: ignore[no-untyped-def]
        framed = honest_frame(*args, **kwargs)
        return dataclasses.replace(framed, starts=framed.starts[:-1], lengths=framed.lengths[:-1])

    monkeypatch.setattr(batch_reload, "frame_bulk", drop_last_record)
    failures = checks.run_case(case, root, meter).failures
    assert {(f.kind, f.key) for f in failures} >= {("points lost", "bulk"), ("mismatch", "scalars")}, failures
    assert not checks.run_case(dataclasses.replace(case, batch=False), root, meter).failures


def test_a_preview_input_is_read_in_two_passes_and_a_lossy_preview_shows(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An input with ``preview`` is first read as a Board reads a big logdir (each run's first
    bytes, then the rest); a preview that skips the record it cut at its end is caught, by the
    oracle and by the read at once."""
    from tbnb.reader.runs import run as run_module

    meter = memory.PeakMeter("rss")
    case = dataclasses.replace(_case(_scalar_file(300)), preview=1000)
    honest = run_module.Run._read_file
    previews: list[int] = []

    def counted(self, path, state, delta, buffer, first_bytes=None):  # type: ignore[no-untyped-def]
        if first_bytes is not None:
            previews.append(first_bytes)
        return honest(self, path, state, delta, buffer, first_bytes)

    monkeypatch.setattr(run_module.Run, "_read_file", counted)
    assert not checks.run_case(case, root, meter).failures
    assert previews == [1000, 1000]  # the bulk and general reads previewed; the read at once did not

    def lossy(self, path, state, delta, buffer, first_bytes=None):  # type: ignore[no-untyped-def]
        began = state.offset
        honest(self, path, state, delta, buffer, first_bytes)
        if first_bytes is not None:
            state.offset = min(state.size, began + first_bytes)  # past the record cut at the end

    monkeypatch.setattr(run_module.Run, "_read_file", lossy)
    failures = checks.run_case(case, root, meter).failures
    kinds = {f.kind for f in failures}
    assert {"points lost", "mismatch"} <= kinds, failures
    assert any("read in parts != read at once" in f.detail for f in failures), failures
