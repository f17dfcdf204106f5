"""The learning-rate range test read from a run: the steepest-descent suggestion (checked against
an exact answer and against Lightning's rule written out here), the divergence cut, bad input,
and a REAL range test on digits whose suggestion then trains well."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.diagnostics.lr_find import lr_range_test

from ..conftest import HAVE_TORCH
from .conftest import as_written, write_run

LRS = np.geomspace(1e-5, 10.0, 121)  # 20 points a decade: 1e-2 is point 60


def logistic(lr: np.ndarray, center: float = 1e-2, width: float = 0.3) -> np.ndarray:
    """A loss falling from 2.3 to 0.3 around ``center``, steepest there (in log10 of the rate)."""
    return 0.3 + 2.0 / (1 + np.exp((np.log10(lr) - np.log10(center)) / width))


def lightning_suggestion(lr: np.ndarray, loss: np.ndarray, beta: float = 0.98, skip_begin: int = 10,
                         skip_end: int = 1) -> float:
    """Lightning's ``_LRFinder`` as its source reads: smoothed losses, then the argmin of
    ``np.gradient`` over the index between the skips."""
    smoothed, avg = [], 0.0
    for i, x in enumerate(loss):
        avg = beta * avg + (1 - beta) * x
        smoothed.append(avg / (1 - beta ** (i + 1)))
    part = np.array(smoothed[skip_begin:-skip_end])
    return float(lr[int(np.gradient(part).argmin()) + skip_begin])


def test_exact_suggestion_without_smoothing(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "find", {"loss": logistic(LRS), "lr": LRS})
    found = lr_range_test(tbnb.load(tmp_path), "find", beta=0.0, skip_begin=0, skip_end=0)
    assert (found.loss_tag, found.lr_tag) == ("loss", "lr")
    assert found.suggestion_step == 60 and found.suggestion == pytest.approx(1e-2, rel=1e-6)  # float32
    assert len(found.lr) == len(LRS)  # nothing diverged
    np.testing.assert_array_equal(found.smoothed, found.loss)


def test_same_as_lightning_on_a_geometric_schedule(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    loss = logistic(LRS) + rng.normal(0, 0.05, len(LRS))
    write_run("tbnb", tmp_path / "find", {"train_loss": loss, "lr-Adam": LRS})
    found = lr_range_test(tbnb.load(tmp_path), "find")
    assert found.suggestion == lightning_suggestion(as_written(LRS), as_written(loss))
    assert 1e-3 < found.suggestion < 1e-1  # on the fall, after the smoothing's lag


def test_the_curve_stops_where_it_diverges(tmp_path: Path) -> None:
    loss = np.r_[logistic(LRS[:100]), np.geomspace(0.5, 1e4, 21)]  # an explosion at the end
    loss[-1] = np.inf
    write_run("tbnb", tmp_path / "find", {"loss": loss, "lr": LRS})
    found = lr_range_test(tbnb.load(tmp_path), "find", beta=0.0)
    best = np.minimum.accumulate(as_written(loss))
    first_over = int(np.flatnonzero(as_written(loss)[1:] > 4 * best[:-1])[0]) + 1
    assert len(found.loss) == first_over + 1  # the diverging point is kept, nothing after it
    assert found.suggestion is not None and found.suggestion < LRS[100]


def test_bad_input(tmp_path: Path) -> None:
    write_run("tbnb", tmp_path / "fixed", {"loss": logistic(LRS), "lr": np.full(len(LRS), 0.1)})
    write_run("tbnb", tmp_path / "cyclic", {"loss": logistic(LRS), "lr": np.r_[LRS[:60], LRS[60:0:-1]]})
    write_run("tbnb", tmp_path / "nolr", {"loss": logistic(LRS)})
    lg = tbnb.load(tmp_path)
    for run in ("fixed", "cyclic"):
        with pytest.raises(ValueError, match="not a learning-rate range test"):
            lr_range_test(lg, run)
    with pytest.raises(ValueError, match="no learning-rate tag None"):
        lr_range_test(lg, "nolr")
    with pytest.raises(ValueError, match="no loss tag 'los'"):
        lr_range_test(lg, "fixed", loss_tag="los")
    with pytest.raises(ValueError, match="no run"):
        lr_range_test(lg, "nope")
    with pytest.raises(ValueError, match="not a learning-rate range test"):
        lr_range_test(lg, "cyclic", min_growth=1.0)  # a falling rate, whatever the growth asked
    with pytest.raises(ValueError, match="beta"):
        lr_range_test(lg, "fixed", beta=1.0)


@pytest.mark.torch
@pytest.mark.skipif(not HAVE_TORCH, reason="torch (CPU) is not installed")
@pytest.mark.skipif(importlib.util.find_spec("sklearn") is None, reason="scikit-learn is not installed")
def test_real_range_test_suggests_a_rate_that_trains(tmp_path: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from .test_real_training import Trained, digits, train

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        x, y = digits()
        train_idx = torch.randperm(len(x), generator=torch.Generator().manual_seed(0))[:1400]
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
        opt = torch.optim.SGD(net.parameters(), lr=1e-4)
        batches, loss_fn = torch.Generator().manual_seed(1), torch.nn.CrossEntropyLoss()
        with SummaryWriter(str(tmp_path / "find")) as writer:  # Lightning's names
            for step, lr in enumerate(np.geomspace(1e-4, 100.0, 120)):
                for group in opt.param_groups:
                    group["lr"] = lr
                pick = train_idx[torch.randint(len(train_idx), (128,), generator=batches)]
                loss = loss_fn(net(x[pick]), y[pick])
                opt.zero_grad()
                loss.backward()
                opt.step()
                writer.add_scalar("train_loss", loss.item(), step)
                writer.add_scalar("lr-SGD", lr, step)
        found = lr_range_test(tbnb.load(tmp_path), "find")
        assert (found.loss_tag, found.lr_tag) == ("train_loss", "lr-SGD")
        # digits with this net: 1e-4 barely learns, 2 and above kill the ReLUs (test_real_training)
        assert found.suggestion is not None and 1e-2 < found.suggestion < 2.0
        train(tmp_path, "use", found.suggestion, steps=300, n_train=None, batch=128, every=20, hidden=64,
              out=Trained(tmp_path))
    finally:
        torch.set_num_threads(threads)
    lg = tbnb.load(tmp_path)
    used = lg.scalars("use", "Loss/train").value
    assert used[-20:].mean() < 0.1 * used[0]  # the suggested rate trains
    assert lg.diagnose().empty  # neither run is judged: "find" is a range test, "use" is healthy


def test_skips_leave_out_the_ends(tmp_path: Path) -> None:
    t = np.arange(len(LRS)) / (len(LRS) - 1)
    write_run("tbnb", tmp_path / "find", {"loss": 2.3 - 2.0 * t ** 4, "lr": LRS})  # steepest at the end
    lg = tbnb.load(tmp_path)
    assert lr_range_test(lg, "find", beta=0.0, skip_end=0).suggestion_step == len(LRS) - 1
    assert lr_range_test(lg, "find", beta=0.0, skip_end=1).suggestion_step == len(LRS) - 2
    # and at the start: a loss steepest at its first point
    write_run("tbnb", tmp_path / "early", {"loss": 0.3 + 2.0 * (1 - t) ** 4, "lr": LRS})
    lg = tbnb.load(tmp_path)
    assert lr_range_test(lg, "early", beta=0.0, skip_begin=0).suggestion_step == 0
    assert lr_range_test(lg, "early", beta=0.0, skip_begin=10).suggestion_step == 10
