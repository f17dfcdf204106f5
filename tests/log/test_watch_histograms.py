"""``tbnb.watch``'s optional weight and gradient histograms (read back by tbnb as histograms, from
torch's writer and tbnb's), and its cost rule: parameters are copied only on a watched step."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb

from .test_watch import Net, make_writer, trainable

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


@pytest.mark.parametrize("writer_kind", ["torch", "tbnb"])
def test_histograms_of_weights_and_gradients(tmp_path: Path, writer_kind: str) -> None:
    model = Net()
    params = trainable(model)
    optimizer = torch.optim.SGD([p for _, p in params], lr=0.05, momentum=0.9)
    writer = make_writer(writer_kind, tmp_path / "run")
    handle = tbnb.watch(model, optimizer, writer, every=2, histograms=True)
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(16, 5, generator=gen), torch.randn(16, 3, generator=gen)
    seen: dict[str, dict[int, np.ndarray]] = {}
    for step in range(4):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        grads = {n: p.grad.numpy().copy() for n, p in params}
        optimizer.step()
        for n, p in params:
            seen.setdefault(f"parameters/{n}", {})[step] = p.detach().numpy().copy()
            seen.setdefault(f"gradients/{n}", {})[step] = grads[n]
    handle.remove()
    writer.close()

    lg = tbnb.load(tmp_path)
    tags = lg.tags("run")
    assert {t for t, plugin in tags.items() if plugin == "histograms"} == set(seen)
    for tag, by_step in seen.items():
        series = lg.tensors("run", tag)
        assert series.step.tolist() == [0, 2]
        for step, histogram in zip(series.step.tolist(), series.values):
            values = by_step[step].astype(np.float64)
            assert histogram.ndim == 2 and histogram.shape[1] == 3  # (left, right, count) buckets
            assert histogram[:, 2].sum() == values.size
            assert histogram[0, 0] == pytest.approx(values.min(), rel=2.0**-23)
            assert histogram[-1, 1] == pytest.approx(values.max(), rel=2.0**-23)


class Calls(torch.overrides.TorchFunctionMode):
    """Records the name of every torch function called while active."""

    def __init__(self) -> None:
        super().__init__()
        self.names: list[str] = []

    def __torch_function__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
        self.names.append(getattr(func, "__name__", repr(func)))
        return func(*args, **(kwargs or {}))


def test_parameters_are_copied_only_on_watched_steps(tmp_path: Path) -> None:
    model = Net()
    params = [p for _, p in trainable(model)]
    optimizer = torch.optim.SGD(params, lr=0.01)  # no momentum: every step makes the same calls
    x = torch.randn(8, 5)

    def step() -> list[str]:
        optimizer.zero_grad()
        model(x).sum().backward()
        with Calls() as calls:
            optimizer.step()
        return calls.names

    plain = step()
    writer = make_writer("tbnb", tmp_path / "run")
    handle = tbnb.watch(model, optimizer, writer, every=2)
    watched, unwatched = step(), step()
    handle.remove()
    writer.close()
    assert "clone" not in plain
    assert watched.count("clone") == len(params)  # one copy of each watched parameter
    assert unwatched == plain  # an unwatched step makes no torch call beyond the optimizer's own
