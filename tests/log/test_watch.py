"""``tbnb.watch``: the logged update ratios against an independent computation from weights the
test captures itself around each ``optimizer.step()``, written by real writers (torch's
SummaryWriter, tensorboardX's, tbnb's EventWriter) and read back with ``tbnb.load``.

The tolerance is an error bound, not a measurement (u = 2**-24). ``watch`` subtracts float32
weights in float32 (each element's difference rounded once: the norm of the differences is within
u of the exact one); each float32 norm of m elements rounds m squares and sums them in some
order (relative error <= m * u to first order, halved by the square root, plus u / 2 for the root
itself: <= (m / 2 + 1) * u), two norms per ratio; the division is float64 and the writer stores a
float32 (one more u). With m <= n, the parameters' count: ``rtol = (n + 4) * u`` for watch, plus
the test's own float64 norms, ``(4n + 8) * 2**-53``.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb
from tbnb.testing import EventWriter

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

U32 = 2.0**-24
U64 = 2.0**-53


def rtol(n: int) -> float:
    """The bound of the module doc for tensors of at most ``n`` elements."""
    return (n + 4) * U32 + (4 * n + 8) * U64


def make_writer(kind: str, directory: Path) -> Any:
    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(log_dir=str(directory))
    if kind == "tbx":
        tensorboardX = pytest.importorskip("tensorboardX")
        return tensorboardX.SummaryWriter(logdir=str(directory))
    return EventWriter(directory)


class Net(torch.nn.Module):
    """Two layers, the first bias all zeros (no ratio point until it has moved), and a frozen
    layer the optimizer does not hold (never watched)."""

    def __init__(self) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(3)
        self.hidden = torch.nn.Linear(5, 7)
        self.out = torch.nn.Linear(7, 3)
        self.frozen = torch.nn.Linear(3, 3)
        with torch.no_grad():
            for p in (self.hidden.weight, self.out.weight, self.out.bias, self.frozen.weight, self.frozen.bias):
                p.copy_(0.4 * torch.randn(p.shape, generator=gen))
            self.hidden.bias.zero_()
        self.frozen.requires_grad_(False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.frozen(self.out(torch.relu(self.hidden(x))))


def trainable(model: torch.nn.Module) -> list[tuple[str, torch.Tensor]]:
    return [(n, p) for n, p in model.named_parameters() if p.requires_grad]


def train(model: torch.nn.Module, optimizer: Any, steps: int) -> list[dict[str, tuple[np.ndarray, np.ndarray]]]:
    """Runs ``steps`` optimizer steps; per step, ``{name: (before, after)}`` as float32 arrays
    captured by the test itself (not by the hooks under test)."""
    gen = torch.Generator().manual_seed(11)
    x, y = torch.randn(32, 5, generator=gen), torch.randn(32, 3, generator=gen)
    captured = []
    for _ in range(steps):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        before = {n: p.detach().numpy().copy() for n, p in trainable(model)}
        optimizer.step()
        captured.append({n: (before[n], p.detach().numpy().copy()) for n, p in trainable(model)})
    return captured


def expected_ratios(captured: list[dict], every: int) -> dict[str, dict[int, float]]:
    """``{tag: {step: ratio}}`` in float64 from the captured weights, zero-norm points left out."""
    out: dict[str, dict[int, float]] = {}
    for step in range(0, len(captured), every):
        d2 = w2 = 0.0
        for name, (before, after) in captured[step].items():
            b, a = before.astype(np.float64), after.astype(np.float64)
            dn, wn = float(np.linalg.norm(a - b)), float(np.linalg.norm(b))
            d2, w2 = d2 + dn * dn, w2 + wn * wn
            if wn:
                out.setdefault(f"update_ratio/{name}", {})[step] = dn / wn
        out.setdefault("update_ratio/all", {})[step] = math.sqrt(d2) / math.sqrt(w2)
    return out


def read_ratios(root: Path) -> dict[str, dict[int, float]]:
    lg = tbnb.load(root)
    (run,) = lg.runs()
    out = {}
    for tag in lg.tags(run):
        if tag.startswith("update_ratio/"):
            s = lg.scalars(run, tag)
            out[tag] = dict(zip(s.step.tolist(), s.value.tolist()))
    return out


def assert_ratios_match(got: dict, want: dict, n: int) -> None:
    assert got.keys() == want.keys()
    for tag, series in want.items():
        assert got[tag].keys() == series.keys(), tag
        for step, value in series.items():
            assert got[tag][step] == pytest.approx(value, rel=rtol(n), abs=0), (tag, step)


OPTIMIZERS = {
    "sgd_momentum": lambda params: torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-3),
    "adam": lambda params: torch.optim.Adam(params, lr=1e-2),
}


@pytest.mark.parametrize("writer_kind", ["torch", "tbnb", "tbx"])
@pytest.mark.parametrize("opt_name", sorted(OPTIMIZERS))
def test_logged_ratios_equal_the_true_update(tmp_path: Path, opt_name: str, writer_kind: str) -> None:
    model = Net()
    optimizer = OPTIMIZERS[opt_name]([p for _, p in trainable(model)])
    writer = make_writer(writer_kind, tmp_path / "run")
    handle = tbnb.watch(model, optimizer, writer, every=2)
    captured = train(model, optimizer, steps=7)
    handle.remove()
    writer.close()
    want = expected_ratios(captured, every=2)
    # the zero-initialised bias has no point at step 0, then one at each watched step
    assert sorted(want["update_ratio/hidden.bias"]) == [2, 4, 6]
    assert sorted(want["update_ratio/all"]) == [0, 2, 4, 6]
    got = read_ratios(tmp_path)
    assert not any(tag.startswith("update_ratio/frozen") for tag in got)  # not in the optimizer
    n = sum(p.numel() for _, p in trainable(model))
    assert_ratios_match(got, want, n)
    assert all(0 < v < 10 for series in got.values() for v in series.values())


def test_every_and_the_trainers_own_step(tmp_path: Path) -> None:
    model = Net()
    optimizer = torch.optim.SGD([p for _, p in trainable(model)], lr=0.02)
    for every, name in ((1, "one"), (3, "three")):
        writer = EventWriter(tmp_path / name / "run")
        with tbnb.watch(model, optimizer, writer, every=every):
            captured = train(model, optimizer, steps=10)
        writer.close()
        got = read_ratios(tmp_path / name)
        assert sorted(got["update_ratio/all"]) == list(range(0, 10, every))
        n = sum(p.numel() for _, p in trainable(model))
        assert_ratios_match(got, expected_ratios(captured, every), n)

    trainer = {"global_step": 500}
    writer = EventWriter(tmp_path / "own" / "run")
    handle = tbnb.watch(model, optimizer, writer, every=4, step=lambda: trainer["global_step"])
    for _ in range(9):
        train(model, optimizer, steps=1)
        trainer["global_step"] += 10
    handle.remove()
    writer.close()
    # watched: optimizer steps 0, 4, 8, written at the trainer's step at that moment
    assert sorted(read_ratios(tmp_path / "own")["update_ratio/all"]) == [500, 540, 580]


class Zeros(torch.nn.Module):
    """``stuck`` is zero and its gradient is zero (loss = sum(stuck)**2): it never moves.
    ``moving`` starts at zero and then moves."""

    def __init__(self, with_live: bool) -> None:
        super().__init__()
        self.stuck = torch.nn.Parameter(torch.zeros(4))
        self.moving = torch.nn.Parameter(torch.zeros(3)) if with_live else None

    def forward(self) -> torch.Tensor:
        loss = self.stuck.sum() ** 2
        if self.moving is not None:
            loss = loss + ((self.moving - 1.0) ** 2).sum()
        return loss


@pytest.mark.parametrize("with_live", [False, True])
def test_zero_norm_tensors_give_no_point(tmp_path: Path, with_live: bool) -> None:
    model = Zeros(with_live)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    writer = EventWriter(tmp_path / "run")
    handle = tbnb.watch(model, optimizer, writer, every=1)
    for _ in range(3):
        optimizer.zero_grad()
        model().backward()
        optimizer.step()
    handle.remove()
    writer.close()
    got = read_ratios(tmp_path) if with_live else {}
    if not with_live:  # nothing but zeros: not one point, no run data at all (never inf)
        lg = tbnb.load(tmp_path)
        assert [t for r in lg.runs() for t in lg.tags(r)] == []
        return
    assert "update_ratio/stuck" not in got
    # moving: 0 -> 0.2 -> 0.36 -> 0.488 (SGD on (m-1)^2): no point at step 0, then 0.16/0.2, 0.128/0.36
    np.testing.assert_allclose([got["update_ratio/moving"][s] for s in (1, 2)], [0.8, 0.128 / 0.36], rtol=1e-6)
    assert sorted(got["update_ratio/all"]) == [1, 2]


def test_bad_input_is_refused_before_training(tmp_path: Path) -> None:
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    writer = EventWriter(tmp_path / "run")
    for every in (0, -1, 1.5, True, "10", np.int64(0)):
        with pytest.raises(ValueError, match="every must be an integer >= 1"):
            tbnb.watch(model, optimizer, writer, every=every)
    with pytest.raises(ValueError, match="has no parameters"):
        tbnb.watch(torch.nn.ReLU(), optimizer, writer)
    other = torch.optim.SGD(torch.nn.Linear(2, 2).parameters(), lr=0.1)
    with pytest.raises(ValueError, match="holds none of the parameters"):
        tbnb.watch(model, other, writer)
    with pytest.raises(TypeError, match="no add_scalar"):
        tbnb.watch(model, optimizer, object())

    class ScalarsOnly:
        def add_scalar(self, tag: str, value: float, step: int) -> None: ...

    tbnb.watch(model, optimizer, ScalarsOnly()).remove()
    tbnb.watch(model, optimizer, ScalarsOnly(), every=np.int64(3)).remove()  # any integer type
    with pytest.raises(TypeError, match="no add_histogram"):
        tbnb.watch(model, optimizer, ScalarsOnly(), histograms=True)
    with pytest.raises(TypeError, match="step must be None or a callable"):
        tbnb.watch(model, optimizer, writer, step=5)
    with pytest.raises(TypeError, match="torch.nn.Module"):
        tbnb.watch(object(), optimizer, writer)
    with pytest.raises(TypeError, match="torch.optim.Optimizer"):
        tbnb.watch(model, object(), writer)
    # none of the refused calls left a hook behind: training writes nothing
    train(model, optimizer, steps=2)
    writer.close()
    lg = tbnb.load(tmp_path)
    assert [t for r in lg.runs() for t in lg.tags(r)] == []


def test_remove_stops_logging(tmp_path: Path) -> None:
    model = Net()
    optimizer = torch.optim.Adam([p for _, p in trainable(model)], lr=1e-3)
    writer = EventWriter(tmp_path / "run")
    handle = tbnb.watch(model, optimizer, writer, every=1)
    train(model, optimizer, steps=3)
    assert handle.steps == 3
    handle.remove()
    handle.remove()  # twice: nothing more
    train(model, optimizer, steps=3)
    assert handle.steps == 3
    writer.close()
    assert sorted(read_ratios(tmp_path)["update_ratio/all"]) == [0, 1, 2]
