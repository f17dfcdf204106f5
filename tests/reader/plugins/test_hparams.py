"""HParams sweeps written by torch and tensorboardX (a sub-run per trial) and by TensorBoard's
summary API, read back as experiment, sessions and the joined table."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.hparams import read_hparams
from tbnb.reader.plugins.hparams_table import hparams_frame, hparams_table, metric_run, parent_run

from ..conftest import WRITERS, available_writers
from .conftest import OPTIMIZERS, TRIALS, needs_tensorboard, tb_event, tb_writer, training_curve

pd = pytest.importorskip("pandas")


def f32(x: float) -> float:
    """What a float32 scalar holds."""
    return float(np.float32(x))


def trial_index(run: str, writer: str) -> int:
    m = re.fullmatch(rf"{writer}/trial(\d)/\d+(\.\d+)?", run) or re.fullmatch(r"trial(\d)/\d+(\.\d+)?", run)
    assert m, f"{run!r} is not a timestamped trial sub-run"
    return int(m.group(1))


def written_hparam(writer: str, value):
    """What each writer stores for a Python hparam value (torch turns a bool into a number)."""
    if isinstance(value, bool) and writer == "torch":
        return float(value)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


@pytest.mark.parametrize("writer", WRITERS)
def test_torch_and_tensorboardx_sweeps(hparams_logdir, writer):
    lg = tbnb.load(hparams_logdir.root / writer)
    table = hparams_table(lg)
    assert table.problems == [] and table.join is None
    assert [c.key for c in table.hparam_columns] == ["lr", "optimizer", "batch_norm", "dropout"]
    assert [(c.key, c.tag, c.group, c.source) for c in table.metric_columns] == [
        ("hparam/accuracy", "hparam/accuracy", "", "session"), ("hparam/loss", "hparam/loss", "", "session"),
        ("hparam/extra", "hparam/extra", "", "session")]
    assert len(table.trials) == len(TRIALS)
    for trial in table.trials:
        i = trial_index(trial.session.run, "")
        hparams, metrics = TRIALS[i]
        assert trial.session.hparams == {k: written_hparam(writer, v) for k, v in hparams.items()}
        assert trial.session.status == "success"
        before, after = hparams_logdir.data[writer][i]
        assert before <= trial.session.start_time <= after
        for key in ("hparam/accuracy", "hparam/loss", "hparam/extra"):
            if key in metrics:
                assert trial.metrics[key] == f32(metrics[key])  # the sub-run's value, not the curve's
                assert trial.metric_steps[key] == 0
            else:
                assert math.isnan(trial.metrics[key]) and trial.metric_steps[key] is None
    if writer == "torch":  # hparam_domain_discrete
        (opt,) = [c.definition for c in table.hparam_columns if c.key == "optimizer"]
        assert opt.domain_values == tuple(OPTIMIZERS) and opt.type == "string"


@pytest.mark.parametrize("writer", WRITERS)
def test_parent_join_adds_the_training_runs_scalars(hparams_logdir, writer):
    lg = tbnb.load(hparams_logdir.root / writer)
    table = hparams_table(lg, join="parent")
    session_keys = ["hparam/accuracy", "hparam/loss", "hparam/extra"]
    assert [c.key for c in table.metric_columns] == [*session_keys, "parent:hparam/accuracy", "train/loss"]
    assert [c.source for c in table.metric_columns][3:] == ["parent", "parent"]
    for trial in table.trials:
        i = trial_index(trial.session.run, "")
        steps, loss = training_curve(i)
        assert trial.metrics["train/loss"] == f32(loss[-1])
        assert trial.metric_steps["train/loss"] == steps[-1]
        # the curve in the parent ends 0.01 below the final metric passed to add_hparams
        assert trial.metrics["parent:hparam/accuracy"] == f32(TRIALS[i][1]["hparam/accuracy"] - 0.01)
        assert trial.metrics["hparam/accuracy"] == f32(TRIALS[i][1]["hparam/accuracy"])


@pytest.mark.parametrize("writer", WRITERS)
def test_frame(hparams_logdir, writer):
    lg = tbnb.load(hparams_logdir.root / writer)
    frame = hparams_frame(lg, join="parent")
    hkeys = ["lr", "optimizer", "batch_norm", "dropout"]
    mkeys = ["hparam/accuracy", "hparam/loss", "hparam/extra", "parent:hparam/accuracy", "train/loss"]
    assert list(frame.columns) == ["run", *hkeys, *mkeys, "status", "start_time"]
    assert frame.attrs["hparams"] == hkeys and frame.attrs["metrics"] == mkeys and frame.attrs["problems"] == []
    assert len(frame) == len(TRIALS)
    assert all(frame[k].dtype == np.float64 for k in [*mkeys, "start_time"])
    by_trial = {trial_index(r, ""): row for r, row in zip(frame["run"], frame.to_dict("records"))}
    for i, (hparams, metrics) in enumerate(TRIALS):
        row = by_trial[i]
        assert row["lr"] == hparams["lr"] and row["optimizer"] == hparams["optimizer"]
        assert row["batch_norm"] == written_hparam(writer, hparams["batch_norm"])
        assert row["dropout"] == hparams["dropout"] if "dropout" in hparams else pd.isna(row["dropout"])
        assert row["hparam/loss"] == f32(metrics["hparam/loss"])
        assert row["train/loss"] == f32(training_curve(i)[1][-1])
        assert row["status"] == "success"
    assert list(hparams_frame(lg).columns) == ["run", *hkeys, *mkeys[:3], "status", "start_time"]
    pd.testing.assert_frame_equal(lg.hparams(join="parent"), frame)  # the Logdir's own method
    assert list(lg.hparams().columns) == list(hparams_frame(lg).columns)


def test_join_must_be_known(hparams_logdir):
    lg = tbnb.load(hparams_logdir.root / available_writers()[0])
    with pytest.raises(ValueError, match="join must be one of"):
        hparams_table(lg, join="children")


@needs_tensorboard
def test_tensorboard_summary_api(hparams_logdir):
    lg = tbnb.load(hparams_logdir.root / "tfapi")
    data = read_hparams(lg)
    assert [(p.run, p.tag) for p in data.problems] == [("broken", "_hparams_/session_start_info")]
    exp = data.experiment
    assert exp.runs == (".",)
    lr, units, opt = exp.hparams
    assert (lr.name, lr.display_name, lr.type, lr.domain_interval) == ("lr", "Learning rate", "float64", (1e-4, 1e-1))
    assert (units.name, units.type, units.domain_values) == ("units", "float64", (16.0, 32.0))
    assert (opt.name, opt.type, opt.domain_values) == ("optimizer", "string", ("adam", "sgd"))
    loss, acc = exp.metrics
    assert (loss.tag, loss.group, loss.display_name, loss.dataset_type) == ("loss", "validation", "Val loss", "validation")
    assert (acc.tag, acc.group) == ("acc", "")
    s0, s1 = data.sessions
    assert (s0.run, s0.hparams, s0.start_time, s0.end_time, s0.status, s0.group_name) == (
        "s0", {"lr": 0.01, "optimizer": "adam", "units": 16.0}, 1000.5, 1100.0, "success", "s0")
    assert (s1.run, s1.start_time, s1.end_time, s1.status) == ("s1", 2000.25, None, "unknown")
    table = hparams_table(lg)
    assert [c.key for c in table.metric_columns] == ["validation/loss", "acc"]
    t0, t1 = table.trials
    assert t0.metrics == {"validation/loss": f32(1 / 3), "acc": f32(0.7)}
    assert math.isnan(t1.metrics["validation/loss"]) and t1.metrics["acc"] == f32(1.7)
    frame = hparams_frame(lg)
    assert frame.attrs["problems"] and "does not decode" in frame.attrs["problems"][0]


@needs_tensorboard
def test_without_an_experiment_metrics_and_hparams_are_inferred(tmp_path):
    from tensorboard.compat.proto import summary_pb2
    from tensorboard.plugins.hparams import summary_v2 as hp

    for name, values in (("a", {"run": "x", "depth": 2}), ("b", {"run": "y", "wide": True})):
        w = tb_writer(tmp_path / name)
        for value in hp.hparams_pb(values).value:
            tb_event(w, value, 0)
        tb_event(w, summary_pb2.Summary.Value(tag="acc", simple_value=0.25 if name == "a" else 0.5), 3)
        w.close()
    w = tb_writer(tmp_path / "a" / "eval")
    tb_event(w, summary_pb2.Summary.Value(tag="loss", simple_value=2.0), 1)
    w.close()
    w = tb_writer(tmp_path / "c")  # no session: its scalars are nobody's metric
    tb_event(w, summary_pb2.Summary.Value(tag="other", simple_value=1.0), 0)
    w.close()
    table = hparams_table(tbnb.load(tmp_path))
    assert [(c.key, c.definition.type, c.definition.domain_values) for c in table.hparam_columns] == [
        ("depth", "float64", (2.0,)), ("hparam:run", "string", ("x", "y")), ("wide", "bool", (True,))]
    assert [(c.key, c.group, c.tag) for c in table.metric_columns] == [("acc", "", "acc"), ("eval/loss", "eval", "loss")]
    rows = table.rows()
    assert [r["run"] for r in rows] == ["a", "b"] and [r["hparam:run"] for r in rows] == ["x", "y"]
    assert rows[0]["acc"] == 0.25 and rows[0]["eval/loss"] == 2.0 and rows[0]["wide"] is None
    assert rows[1]["acc"] == 0.5 and math.isnan(rows[1]["eval/loss"])


def test_thousands_of_hparams(tmp_path):
    """A trial of 3,000 hparams (one summary of that many) becomes 3,000 columns, each its own
    value: the frame's columns are typed once each, not by searching the column lists."""
    from tensorboard.compat.proto import summary_pb2
    from tensorboard.plugins.hparams import summary_v2 as hp

    n = 3000
    for trial in range(3):
        w = tb_writer(tmp_path / f"t{trial}")
        for value in hp.hparams_pb({f"h{i:04d}": float(i * trial) for i in range(n)}).value:
            tb_event(w, value, 0)
        tb_event(w, summary_pb2.Summary.Value(tag="acc", simple_value=trial / 4), 1)
        w.close()
    frame = tbnb.load(tmp_path).hparams()
    assert frame.attrs["hparams"] == [f"h{i:04d}" for i in range(n)] and frame.attrs["metrics"] == ["acc"]
    assert frame.shape == (3, n + 4)
    assert frame["h2999"].tolist() == [0.0, 2999.0, 5998.0] and frame["acc"].tolist() == [0.0, 0.25, 0.5]
    assert frame["acc"].dtype == np.float64 and frame["start_time"].dtype == np.float64


def test_run_paths():
    assert parent_run("a/b/1700.5") == "a/b" and parent_run("trial") == "." and parent_run(".") == ""
    assert metric_run("a/s", "") == "a/s" and metric_run("a/s", "validation") == "a/s/validation"
    assert metric_run(".", "eval") == "eval"


def test_frame_without_pandas_says_what_to_install(hparams_logdir, monkeypatch):
    lg = tbnb.load(hparams_logdir.root / available_writers()[0])
    monkeypatch.setitem(__import__("sys").modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'tbnb\[pandas\]'"):
        hparams_frame(lg)
    assert len(hparams_table(lg).trials) == len(TRIALS)  # the table itself needs no pandas
