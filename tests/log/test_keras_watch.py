"""``tbnb.keras.Watch`` on Keras 3's torch backend: a tiny Dense model trained for a few batches,
the logged ratios checked against weights that the test captures with a callback of its own.

Tolerance (an error bound): the callback takes float64 differences of float32 weights (exact),
sums squares in float64 (<= n * 2**-53 for n elements, for both norms), divides in float64, and
tbnb's writer stores a float32 (<= 2**-24); the test's own float64 norms carry n * 2**-53 too.
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb

os.environ.setdefault("KERAS_BACKEND", "torch")  # before keras is first imported
keras = pytest.importorskip("keras")
if keras.backend.backend() != "torch":
    pytest.skip(f"keras was imported with the {keras.backend.backend()} backend", allow_module_level=True)
pytestmark = pytest.mark.torch

U32, U64 = 2.0**-24, 2.0**-53


class Capture(keras.callbacks.Callback):
    """The test's own record: every trainable weight (by path) before and after each batch."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[dict[str, tuple[np.ndarray, np.ndarray]]] = []
        self._before: dict[str, np.ndarray] = {}

    def _weights(self) -> dict[str, np.ndarray]:
        return {w.path: np.array(w.numpy(), copy=True) for w in self.model.trainable_weights}

    def on_train_batch_begin(self, batch: int, logs: Any = None) -> None:
        self._before = self._weights()

    def on_train_batch_end(self, batch: int, logs: Any = None) -> None:
        after = self._weights()
        self.batches.append({p: (self._before[p], after[p]) for p in after})


def tiny_model(optimizer: Any) -> Any:
    keras.utils.set_random_seed(4)
    model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(3, activation="relu", name="hidden"),
                              keras.layers.Dense(2, name="out")], name="net")  # fixed weight paths
    model.compile(optimizer=optimizer, loss="mse")
    return model


def data(n: int = 40) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    return rng.normal(size=(n, 4)).astype(np.float32), rng.normal(size=(n, 2)).astype(np.float32)


def expected(batches: list[dict], every: int, offset: int = 0) -> dict[str, dict[int, float]]:
    out: dict[str, dict[int, float]] = {}
    for i, weights in enumerate(batches):
        step = offset + i
        if step % every:
            continue
        d2 = w2 = 0.0
        for path, (before, after) in weights.items():
            dn = float(np.linalg.norm(after.astype(np.float64) - before.astype(np.float64)))
            wn = float(np.linalg.norm(before.astype(np.float64)))
            d2, w2 = d2 + dn * dn, w2 + wn * wn
            if wn:
                out.setdefault(f"update_ratio/{path}", {})[step] = dn / wn
        out.setdefault("update_ratio/all", {})[step] = math.sqrt(d2) / math.sqrt(w2)
    return out


def read(root: Path) -> dict[str, dict[int, float]]:
    lg = tbnb.load(root)
    out = {}
    for tag in lg.tags("."):
        if tag.startswith("update_ratio/"):
            s = lg.scalars(".", tag)
            out[tag] = dict(zip(s.step.tolist(), s.value.tolist()))
    return out


@pytest.mark.parametrize("optimizer", ["sgd_momentum", "adam"])
def test_keras_ratios_equal_the_captured_update(tmp_path: Path, optimizer: str) -> None:
    opt = (keras.optimizers.SGD(learning_rate=0.05, momentum=0.9) if optimizer == "sgd_momentum"
           else keras.optimizers.Adam(learning_rate=0.01))
    model = tiny_model(opt)
    capture = Capture()
    x, y = data()
    model.fit(x, y, batch_size=8, epochs=2, shuffle=False, verbose=0,
              callbacks=[capture, tbnb.keras.Watch(tmp_path, every=3)])
    assert len(capture.batches) == 10
    want = expected(capture.batches, every=3)
    assert sorted(want["update_ratio/all"]) == [0, 3, 6, 9]
    assert 0 not in want["update_ratio/net/hidden/bias"]  # zero-initialised: no point at step 0
    got = read(tmp_path)
    n = sum(int(np.prod(w.shape)) for w in model.trainable_weights)
    bound = U32 + (4 * n + 8) * U64
    assert got.keys() == want.keys()
    for tag, series in want.items():
        assert got[tag].keys() == series.keys(), tag
        for step, value in series.items():
            assert got[tag][step] == pytest.approx(value, rel=bound, abs=0), (tag, step)


def test_steps_continue_across_fits_and_histograms(tmp_path: Path) -> None:
    model = tiny_model(keras.optimizers.SGD(learning_rate=0.05))
    watch = tbnb.keras.Watch(str(tmp_path), every=4, histograms=True)
    x, y = data(24)
    model.fit(x, y, batch_size=8, epochs=1, verbose=0, callbacks=[watch])  # batches 0-2
    model.fit(x, y, batch_size=8, epochs=2, verbose=0, callbacks=[watch])  # batches 3-8
    assert watch.steps == 9
    lg = tbnb.load(tmp_path)
    assert lg.scalars(".", "update_ratio/all").step.tolist() == [0, 4, 8]
    hist_tags = {t for t, plugin in lg.tags(".").items() if plugin == "histograms"}
    assert hist_tags == {f"parameters/{w.path}" for w in model.trainable_weights}
    kernel = lg.tensors(".", "parameters/net/out/kernel")
    assert kernel.step.tolist() == [0, 4, 8]
    assert all(h[:, 2].sum() == 3 * 2 for h in kernel.values)  # every value of the 3x2 kernel counted
    np.testing.assert_array_equal(kernel.values[-1][[0, -1], [0, 1]],  # the last weights' min and max
                                  [model.layers[1].kernel.numpy().min(), model.layers[1].kernel.numpy().max()])


def test_bad_input(tmp_path: Path) -> None:
    for every in (0, -2, 2.5, True):
        with pytest.raises(ValueError, match="every must be an integer >= 1"):
            tbnb.keras.Watch(tmp_path, every=every)
    with pytest.raises(TypeError, match="logdir must be a path"):
        tbnb.keras.Watch(3)
    frozen = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2, trainable=False)])
    frozen.compile(optimizer="sgd", loss="mse")
    x, y = data(8)
    with pytest.raises(ValueError, match="no trainable weights"):
        frozen.fit(x, y, verbose=0, callbacks=[tbnb.keras.Watch(tmp_path / "frozen")])


def test_keras_is_imported_only_when_watch_is_used() -> None:
    code = ("import sys, tbnb, tbnb.keras; assert 'keras' not in sys.modules, 'imported early'; "
            "tbnb.keras.Watch; assert 'keras' in sys.modules; print(tbnb.keras.Watch.__mro__[1].__module__)")
    env = {**os.environ, "KERAS_BACKEND": "torch"}
    out = subprocess.run([sys.executable, "-c", code], check=False, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().startswith("keras")
