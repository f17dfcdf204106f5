"""``update_ratio_findings``: update_ratio_low / update_ratio_high from the median of the recent
points of ``update_ratio/*`` series, whoever wrote them.

Logs with medians placed 1% inside and 1% outside each threshold (both stored exactly enough:
a float32 keeps 1% apart), windows that must hide older points, and a real tiny training (an MLP
on scikit-learn's digits, logged by ``tbnb.watch``) at a good and at a tiny learning rate.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.update_ratio import HIGH, KEYS, LOW, WINDOW, update_ratio_findings
from tbnb.testing import EventWriter


def write(root: Path, run: str, series: dict[str, list[float]], *, tf2: bool = False) -> None:
    with EventWriter(root / run) as w:
        for tag, values in series.items():
            for step, value in enumerate(values):
                w.add_scalar(tag, value, step * 10, wall_time=1.0 + step, tf2=tf2)


def recent(value: float, older: float, n_old: int = 30) -> list[float]:
    """``WINDOW`` recent points at ``value`` after ``n_old`` older ones at ``older``."""
    return [older] * n_old + [value] * WINDOW


def by_metric(findings: list[dict]) -> dict[tuple[str, str], dict]:
    return {(f["run"], f["metric"]): f for f in findings}


@pytest.mark.parametrize("tf2", [False, True])
def test_just_inside_and_just_outside_the_thresholds(tmp_path: Path, tf2: bool) -> None:
    write(tmp_path, "a", {
        # the older points sit on the other side: only the window decides
        "update_ratio/in_low": recent(LOW * 1.01, older=LOW * 1e-3),
        "update_ratio/out_low": recent(LOW * 0.99, older=1e-3),
        "update_ratio/in_high": recent(HIGH * 0.99, older=HIGH * 1e3),
        "update_ratio/out_high": recent(HIGH * 1.01, older=1e-3),
        "update_ratio/all": recent(LOW * 0.99, older=1e-3),
        "update_ratio/a.bias": recent(LOW * 0.99, older=1e-3),  # sorts before "all"
        "update_ratio/frozen": recent(LOW * 0.99 / 100, older=1e-3),  # 100x further: an error
        "update_ratio/wild": recent(HIGH * 1.01 * 100, older=1e-3),
        "loss": recent(1e-9, older=1e-9),  # not an update ratio
    }, tf2=tf2)
    found = update_ratio_findings(tbnb.load(tmp_path))
    got = by_metric(found)
    assert found[0]["metric"] == "update_ratio/all"  # the whole network first
    assert {m: f["finding"] for (_, m), f in got.items()} == {
        "update_ratio/all": "update_ratio_low", "update_ratio/out_low": "update_ratio_low",
        "update_ratio/a.bias": "update_ratio_low",
        "update_ratio/out_high": "update_ratio_high", "update_ratio/frozen": "update_ratio_low",
        "update_ratio/wild": "update_ratio_high"}
    assert {m: f["severity"] for (_, m), f in got.items()} == {
        "update_ratio/all": "warning", "update_ratio/out_low": "warning", "update_ratio/out_high": "warning",
        "update_ratio/a.bias": "warning",
        "update_ratio/frozen": "error", "update_ratio/wild": "error"}
    for f in found:
        assert tuple(f) == KEYS and f["run"] == "a" and f["step"] == 490  # the window's last step
        assert f"over the last {WINDOW} logged points (steps 300-490)" in f["evidence"]
    low, high = got[("a", "update_ratio/out_low")], got[("a", "update_ratio/out_high")]
    assert "median update ratio 9.9e-05" in low["evidence"] and "below the threshold 0.0001" in low["evidence"]
    assert "0.0101" in high["evidence"] and "above the threshold 0.01" in high["evidence"]
    assert "barely learns" in low["advice"] and "Raise its learning rate" in low["advice"]
    assert "'out_low'" in low["advice"]
    assert "too high for it" in high["advice"] and "Lower its learning rate" in high["advice"]
    assert "the whole network" in got[("a", "update_ratio/all")]["advice"]


def test_median_window_and_settable_thresholds(tmp_path: Path) -> None:
    spiky = [1e-3] * 20
    spiky[5] = spiky[12] = 5.0  # two spikes and a NaN in the window: the median stays at 1e-3
    spiky[7] = float("nan")
    write(tmp_path, "b", {"update_ratio/spiky": spiky, "update_ratio/slow": recent(1e-5, older=1e-3)})
    write(tmp_path, "c", {"update_ratio/all": recent(1e-5, older=1e-3)})
    lg = tbnb.load(tmp_path)
    assert set(by_metric(update_ratio_findings(lg))) == {("b", "update_ratio/slow"), ("c", "update_ratio/all")}
    assert set(by_metric(update_ratio_findings(lg, runs=["c"]))) == {("c", "update_ratio/all")}
    assert update_ratio_findings(lg, low=1e-6) == []  # a lower bar: 1e-5 is fine
    # a window reaching back into the older points at 1e-3: the median moves inside the band
    assert update_ratio_findings(lg, window=50) == []
    (one,) = update_ratio_findings(lg, runs=["b"], window=3)
    assert "over the last 3 logged points (steps 470-490)" in one["evidence"]
    assert update_ratio_findings(lg, runs=["b"], min_points=21) == []  # spiky has 19 finite points
    for bad in ({"low": 0}, {"low": 1e-2, "high": 1e-4}, {"window": 0}, {"high": float("inf")}):
        with pytest.raises(ValueError):
            update_ratio_findings(lg, **bad)


@pytest.mark.torch
def test_findings_on_logs_from_torch_summary_writer(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    w = SummaryWriter(log_dir=str(tmp_path / "torch"))
    for step, value in enumerate(recent(3e-2, older=1e-3)):
        w.add_scalar("update_ratio/fc.weight", value, step)
        w.add_scalar("update_ratio/fc.bias", 2e-3, step)
    w.close()
    (f,) = update_ratio_findings(tbnb.load(tmp_path))
    assert (f["run"], f["metric"], f["finding"], f["step"]) == ("torch", "update_ratio/fc.weight",
                                                               "update_ratio_high", 49)


def train_digits(root: Path, run: str, lr: float, steps: int = 200) -> tuple[float, float]:
    """An MLP 64-64-10 on scikit-learn's digits with Adam at ``lr``, watched every 5 steps;
    returns the first and last batch loss."""
    import torch

    datasets = pytest.importorskip("sklearn.datasets")
    x, y = datasets.load_digits(return_X_y=True)
    x, y = torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(1)
    losses = []
    with EventWriter(root / run) as writer, tbnb.watch(model, optimizer, writer, every=5):
        for _ in range(steps):
            batch = torch.randint(0, len(x), (128,), generator=gen)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
    return losses[0], losses[-1]


@pytest.mark.torch
def test_real_training_tiny_rate_is_low_good_rate_is_fine(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    good = train_digits(tmp_path, "good", lr=5e-4)
    tiny = train_digits(tmp_path, "tiny", lr=1e-6)
    assert good[1] < 0.5 * good[0] and tiny[1] > 0.95 * tiny[0]  # one learns, the other barely
    lg = tbnb.load(tmp_path)
    found = update_ratio_findings(lg)
    assert {f["run"] for f in found} == {"tiny"}
    tags = [t for t in lg.tags("tiny") if t.startswith("update_ratio/")]
    assert sorted(f["metric"] for f in found) == sorted(tags)  # every tensor and the whole network
    assert {f["finding"] for f in found} == {"update_ratio_low"}
    assert all(f["step"] == 195 for f in found)
    # neither run sits near a threshold: the verdicts are not border cases of this seed
    def medians(run: str) -> list[float]:
        return [float(np.median(lg.scalars(run, t).value[-WINDOW:])) for t in tags]

    assert max(medians("tiny")) < LOW / 5
    assert LOW * 5 < min(medians("good")) and max(medians("good")) < HIGH / 2
