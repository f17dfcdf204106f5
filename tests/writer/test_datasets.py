"""Tests for ``tbnb.writer.datasets``: the benchmark's scalar logdir and the demo logdir."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

pytest.importorskip("tensorboard")
from tbnb.writer import (  # noqa: E402
    EventWriter,
    scalar_run_data,
    scalar_tag,
    write_demo_logdir,
    write_scalar_logdir,
)

from .readback import only_file, ours, tb_migrated, tb_raw, values_of  # noqa: E402


@pytest.mark.parametrize("tf2", [False, True])
def test_scalar_logdir_equals_event_writer_output(tmp_path: pathlib.Path, tf2: bool) -> None:
    runs, tags, steps = 2, 3, 16500  # crosses the 1-, 2- and 3-byte step varints
    fast = write_scalar_logdir(tmp_path / "fast", runs=runs, tags=tags, steps=steps, tf2=tf2, seed=7)
    for run in range(runs):
        start, wall, values = scalar_run_data(run, tags, steps, 7)
        with EventWriter(tmp_path / "slow", start_time=start) as w:
            for step in range(steps):
                for t in range(tags):
                    tag, value, when = scalar_tag(t), float(values[step, t]), float(wall[step, t])
                    w.add_scalar(tag, value, step, wall_time=when, tf2=tf2)
        assert only_file(fast / f"run_{run:02d}").read_bytes() == w.path.read_bytes()
        w.path.unlink()


def test_scalar_logdir_layout_and_tensorboard_reads_it(tmp_path: pathlib.Path) -> None:
    root = write_scalar_logdir(tmp_path, runs=3, tags=5, steps=200)
    assert root == tmp_path
    assert sorted(p.name for p in root.iterdir()) == ["run_00", "run_01", "run_02"]
    tags = [f"group_0/metric_{t}" for t in range(4)] + ["group_1/metric_4"]
    per_run = []
    for run in range(3):
        events = tb_raw(only_file(root / f"run_{run:02d}"))
        assert len(events) == 1 + 5 * 200
        assert events[0].file_version == "brain.Event:2"
        got = [(e.step, v.tag) for e in events[1:] for v in e.summary.value]
        assert got == [(s, t) for s in range(200) for t in tags]  # round-robin per step
        walls = [e.wall_time for e in events]
        assert walls == sorted(walls)
        per_run.append([v.simple_value for e in events[1:] for v in e.summary.value])
        assert np.all(np.isfinite(per_run[-1]))
    assert per_run[0] != per_run[1]  # runs differ
    again = write_scalar_logdir(tmp_path / "again", runs=1, tags=5, steps=200)
    repeat = [v.simple_value for e in tb_raw(only_file(again / "run_00"))[1:] for v in e.summary.value]
    assert repeat == per_run[0]  # deterministic


def test_scalar_logdir_tf2_metadata_on_first_step_only(tmp_path: pathlib.Path) -> None:
    root = write_scalar_logdir(tmp_path, runs=1, tags=4, steps=50, tf2=True)
    vals = values_of(ours(only_file(root / "run_00")))
    assert len(vals) == 200
    assert [v.tag for _, v in vals if v.HasField("metadata")] == [scalar_tag(t) for t in range(4)]
    assert all(s == 0 for s, v in vals if v.HasField("metadata"))


def test_demo_logdir(tmp_path: pathlib.Path) -> None:
    root = write_demo_logdir(tmp_path)
    runs = sorted(str(p.parent.relative_to(root)) for p in root.rglob("*tfevents*"))
    assert runs == ["mnist/lr_0.01", "mnist/lr_0.1", "tf2/lr_0.05"]
    for run in runs:
        events = tb_migrated(only_file(root / run))
        plugins: dict[str, str] = {}
        steps: dict[str, list[int]] = {}
        for e in events:
            for v in e.summary.value:
                if v.HasField("metadata"):
                    plugins.setdefault(v.tag, v.metadata.plugin_data.plugin_name)
                steps.setdefault(v.tag, []).append(e.step)
        assert set(plugins.values()) == {
            "scalars", "histograms", "images", "audio", "text", "pr_curves", "graphs"
        }
        assert plugins["loss/train"] == "scalars" and steps["loss/train"] == list(range(300))
        assert {"loss/val", "accuracy/train", "accuracy/val", "learning_rate"} <= set(plugins)
        text = [v for e in events for v in e.summary.value if v.tag == "config"][0]
        assert "| learning rate |" in text.tensor.string_val[0].decode()
    raw_tf2 = values_of(tb_raw(only_file(root / "tf2/lr_0.05")))
    assert {v.WhichOneof("value") for _, v in raw_tf2} == {"tensor"}
    raw_tf1 = values_of(tb_raw(only_file(root / "mnist/lr_0.1")))
    kinds = {v.WhichOneof("value") for _, v in raw_tf1}
    assert kinds == {"simple_value", "histo", "image", "audio", "tensor"}
