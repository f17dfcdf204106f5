"""Findings on REAL training: a 64-64-10 ReLU MLP on scikit-learn's bundled digits (no download),
plain SGD on CPU, logged with torch's SummaryWriter under the PyTorch tutorials' names
(``Loss/train`` every step; ``Loss/val``, ``Accuracy/train``, ``Accuracy/val`` every 20 steps;
``lr``). What a person sees in these charts, and what ``diagnose`` must say:

- lr 1e-4: the loss barely moves from ln(10) = 2.30 -> ``lr_low``;
- lr 0.5: the loss falls fast and converges, validation follows -> nothing alarming;
- lr 5 and 20: the loss explodes within a few steps, then the ReLUs die and it sticks near 2.30
  -> ``lr_too_high`` near the start, quoting the logged rate;
- 40 training images, full batches, 2000 steps: training loss goes to ~0 while validation loss
  climbs from an early minimum -> ``overfitting`` at the step where validation loss was lowest.

All runs train once per module, one thread, a few seconds in total.
"""

from __future__ import annotations

import functools
import importlib.util
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb

from ..conftest import HAVE_TORCH

pytestmark = [
    pytest.mark.torch,
    pytest.mark.skipif(not HAVE_TORCH, reason="torch (CPU) is not installed"),
    pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn is not installed"),
]

LRS = (1e-4, 0.5, 5.0, 20.0)


@dataclass
class Trained:
    root: Path
    seconds: float = 0.0
    best_val_step: dict[str, int] = field(default_factory=dict)  # from the values seen in training


@functools.lru_cache(maxsize=1)
def digits() -> tuple[Any, Any]:
    """scikit-learn's 1,797 8x8 digits (shipped in its wheel), as torch tensors scaled to [0, 1]."""
    import torch
    from sklearn.datasets import load_digits

    x, y = load_digits(return_X_y=True)
    return torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)


def train(root: Path, name: str, lr: float, steps: int, n_train: int | None, batch: int, every: int,
          hidden: int, out: Trained) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    x, y = digits()
    order = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))
    train_idx, val_idx = order[:1400][:n_train], order[1400:]
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 10))
    opt = torch.optim.SGD(net.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    batches = torch.Generator().manual_seed(1)
    best = (np.inf, -1)
    with SummaryWriter(str(root / name)) as writer:
        for step in range(steps):
            pick = train_idx[torch.randint(len(train_idx), (batch,), generator=batches)] if batch < len(
                train_idx) else train_idx
            loss = loss_fn(net(x[pick]), y[pick])
            opt.zero_grad()
            loss.backward()
            opt.step()
            writer.add_scalar("Loss/train", loss.item(), step)
            writer.add_scalar("lr", lr, step)
            if step % every == 0 or step == steps - 1:
                with torch.no_grad():
                    out_val, out_train = net(x[val_idx]), net(x[train_idx])
                    val_loss = loss_fn(out_val, y[val_idx]).item()
                    writer.add_scalar("Loss/val", val_loss, step)
                    writer.add_scalar("Accuracy/val", (out_val.argmax(1) == y[val_idx]).float().mean().item(), step)
                    writer.add_scalar("Accuracy/train",
                                      (out_train.argmax(1) == y[train_idx]).float().mean().item(), step)
                best = min(best, (np.float32(val_loss), step))  # as written: float32
    out.best_val_step[name] = best[1]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Trained:
    import torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    out = Trained(tmp_path_factory.mktemp("digits"))
    start = time.perf_counter()
    try:
        for lr in LRS:
            train(out.root, f"lr_{lr:g}", lr, steps=300, n_train=None, batch=128, every=20, hidden=64, out=out)
        train(out.root, "overfit", 0.5, steps=2000, n_train=40, batch=40, every=50, hidden=256, out=out)
    finally:
        torch.set_num_threads(threads)
    out.seconds = time.perf_counter() - start
    return out


def by_run(trained: Trained) -> dict[str, set[tuple[str, str]]]:
    df = tbnb.load(trained.root).diagnose()
    found: dict[str, set[tuple[str, str]]] = {}
    for row in df.itertuples():
        found.setdefault(row.run, set()).add((row.metric, row.finding))
    return found


def test_training_is_fast(trained: Trained) -> None:
    assert trained.seconds < 30, trained.seconds  # a few seconds on one core; generous for slow CI


def test_findings_match_the_curves(trained: Trained) -> None:
    lg = tbnb.load(trained.root)
    df = lg.diagnose()
    found = by_run(trained)
    assert found.get("lr_0.0001") == {("Loss/train", "lr_low")}
    assert found.get("lr_5") == {("Loss/train", "lr_too_high")}
    assert found.get("lr_20") == {("Loss/train", "lr_too_high")}
    assert found.get("overfit") == {("Loss", "overfitting")}
    # the good rate: no warning or error (validation following training is at most an info)
    assert found.get("lr_0.5", set()) <= {("Loss", "no_gap"), ("Accuracy", "no_gap")}
    # what the curves show, checked on the series themselves
    slow = lg.scalars("lr_0.0001", "Loss/train").value
    assert abs(slow[-20:].mean() - slow[0]) < 0.05 * slow[0]
    good = lg.scalars("lr_0.5", "Loss/train").value
    assert good[-20:].mean() < 0.2 * good[0]
    rows = {(r.run, r.finding): r for r in df.itertuples()}
    for run in ("lr_5", "lr_20"):
        row = rows[(run, "lr_too_high")]
        loss = lg.scalars(run, "Loss/train").value
        assert row.step <= 10 and loss[: row.step + 1].max() > 1.5 * loss[0]
        assert f"logged learning rate lr: {run[3:]} at that step" in row.evidence
    row = rows[("overfit", "overfitting")]
    assert row.step == trained.best_val_step["overfit"]
    val = lg.scalars("overfit", "Loss/val")
    assert val.value[-3:].min() > 1.1 * val.value.min()  # validation really climbed back
    assert f"step {row.step}" in row.advice


def test_derived_gap_on_real_logs(trained: Trained) -> None:
    lg = tbnb.load(trained.root)
    gap = lg.derive("{Loss/val} - {Loss/train}", name="gap", runs=["overfit"])
    val, train_loss = lg.scalars("overfit", "Loss/val"), lg.scalars("overfit", "Loss/train")
    assert gap["step"].tolist() == val.step.tolist()  # validation steps all have a training point
    expected = val.value - train_loss.value[np.searchsorted(train_loss.step, val.step)]
    np.testing.assert_array_equal(gap["value"].to_numpy(), expected)
    assert gap["value"].iloc[-1] > gap["value"].iloc[1] > 0  # the gap grows as it overfits
