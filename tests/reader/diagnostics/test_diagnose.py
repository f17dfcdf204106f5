"""``Logdir.diagnose`` on logdirs written by the real writers: which series it judges (training
losses, not validation ones; learning rates quoted), pairs across Keras's sibling runs, range
tests left alone, the user's settings, and the update-ratio findings of issue 31 in the same table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.diagnostics.rules import KEYS

from .conftest import ALL_WRITERS, write_run

STEPS = 200


def healthy_curves(seed: int = 0) -> dict[str, np.ndarray]:
    """A good run: the loss falls like an exponential to a low level, with minibatch noise;
    validation (every 20 steps) sits a clear gap above it and keeps improving."""
    rng = np.random.default_rng(seed)
    t = np.arange(STEPS)
    train = 2.3 * np.exp(-t / 25) + 0.05 + rng.normal(0, 0.02, STEPS) * np.exp(-t / 100)
    v = np.arange(0, STEPS, 20)
    val = 2.3 * np.exp(-v / 30) + 0.25
    return {"loss/train": train, "loss/val": dict(zip(v.tolist(), val)),
            "acc/train": dict(zip(v.tolist(), 1 - 0.9 * np.exp(-v / 25))),
            "acc/val": dict(zip(v.tolist(), 0.92 - 0.82 * np.exp(-v / 30))),
            "lr-SGD": np.full(STEPS, 0.1)}


@pytest.mark.parametrize("kind", ALL_WRITERS)
def test_healthy_runs_get_no_finding(tmp_path: Path, kind: str) -> None:
    for seed in range(3):
        write_run(kind, tmp_path / f"run{seed}", healthy_curves(seed))
    lg = tbnb.load(tmp_path)
    assert len(lg.pairs()) == 6
    df = lg.diagnose()
    assert df.empty and list(df.columns) == list(KEYS)


@pytest.mark.parametrize("kind", ALL_WRITERS)
def test_too_high_quotes_the_logged_rate(tmp_path: Path, kind: str) -> None:
    curves = healthy_curves()
    curves["loss/train"] = np.r_[2.3, 2.4, 9.0, np.full(STEPS - 3, 2.31)]  # a spike, then stuck
    curves["lr-SGD"] = np.full(STEPS, 20.0)
    write_run(kind, tmp_path / "lr_20", curves)
    write_run(kind, tmp_path / "good", healthy_curves())
    df = tbnb.load(tmp_path).diagnose()
    assert df[["run", "metric", "finding", "step", "severity"]].values.tolist() == [
        ["lr_20", "loss/train", "lr_too_high", 2, "error"]]
    assert "exploded to 9 at step 2" in df["evidence"][0]
    assert "logged learning rate lr-SGD: 20 at that step" in df["evidence"][0]
    assert "Lower it" in df["advice"][0]


def test_a_range_test_is_left_alone(tmp_path: Path) -> None:
    loss = np.r_[np.linspace(2.3, 0.8, 80), np.geomspace(0.8, 40.0, 20)]  # falls, then diverges
    write_run("tbnb", tmp_path / "find", {"loss": loss, "lr": np.geomspace(1e-6, 10.0, 100)})
    write_run("tbnb", tmp_path / "fixed", {"loss": loss, "lr": np.full(100, 0.1)})
    lg = tbnb.load(tmp_path)
    df = lg.diagnose()
    assert df[["run", "finding"]].values.tolist() == [["fixed", "lr_too_high"]]
    assert lg.diagnose(lr_tags=[])["run"].tolist() == ["find", "fixed"]  # no rate known: judged


def test_keras_sibling_runs(tmp_path: Path) -> None:
    epochs = 20
    train = np.exp(-np.arange(epochs) / 4) + 0.05
    val = np.r_[np.linspace(1.0, 0.5, 8), np.linspace(0.6, 3.5, epochs - 8)]  # best at epoch 7
    write_run("tbnb", tmp_path / "k" / "train", {"epoch_loss": train, "epoch_learning_rate": np.full(epochs, 1e-3)})
    write_run("tbnb", tmp_path / "k" / "validation", {"epoch_loss": val})
    df = tbnb.load(tmp_path).diagnose()
    # the validation run's rising loss is a validation curve, never judged as a training loss
    assert df[["run", "metric", "finding", "step"]].values.tolist() == [["k", "epoch_loss", "overfitting", 7]]
    assert "epoch_loss (k/validation) was best at step 7" in df["evidence"][0]


def test_pairs_loss_tags_and_settings_from_the_user(tmp_path: Path) -> None:
    steps = np.arange(0, 300, 20)
    train = dict(zip(steps.tolist(), np.linspace(2.0, 0.1, len(steps))))
    val = dict(zip(steps.tolist(), np.r_[np.linspace(2.0, 0.6, 8), np.full(len(steps) - 8, 0.9)]))
    write_run("tbnb", tmp_path / "r", {"fit_objective": train, "heldout_objective": val,
                                      "objective": np.linspace(1.0, 0.99, 50)})
    lg = tbnb.load(tmp_path)
    assert lg.diagnose().empty  # nothing named like a loss or a pair
    assert lg.diagnose(loss_tags=["objective"])["finding"].tolist() == ["lr_low"]
    assert "barely moved" in lg.diagnose(loss_tags=["objective"])["evidence"][0]
    assert "almost linearly" in lg.diagnose(loss_tags=["objective"], barely=0.001)["evidence"][0]
    assert lg.diagnose(loss_tags=["objective"], barely=0.001, low_last_fifth=0.5).empty
    pairs = lg.pairs(add={"loss": ("fit_objective", "heldout_objective")})
    df = lg.diagnose(pairs=pairs)
    assert df[["metric", "finding", "step"]].values.tolist() == [["loss", "overfitting", 140]]
    bad = pairs.assign(val_tag="nope")
    with pytest.raises(ValueError, match="has no scalar tag 'nope'"):
        lg.diagnose(pairs=bad)
    with pytest.raises(TypeError, match="unknown diagnostic setting"):
        lg.diagnose(rise_factor=2)


def test_update_ratio_findings_join_the_table(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "slow", {"update_ratio/all": np.full(30, 1e-7), **healthy_curves()})
    write_run("tbnb", tmp_path / "ok", {"update_ratio/all": np.full(30, 1e-3)})
    lg = tbnb.load(tmp_path)
    df = lg.diagnose()
    assert df[["run", "metric", "finding"]].values.tolist() == [["slow", "update_ratio/all", "update_ratio_low"]]
    assert lg.diagnose(update_ratio={"low": 1e-8, "high": 1e-2}).empty
    assert lg.diagnose(runs=["ok"]).empty
