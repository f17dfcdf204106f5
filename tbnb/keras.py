"""``tbnb.keras.Watch``: the weight:update ratio of a Keras 3 model, as a callback.

``model.fit(x, y, callbacks=[tbnb.keras.Watch("logs/run", every=10)])`` writes, into ``logdir``
with tbnb's own event writer (Keras's TensorBoard callback needs TensorFlow; this needs nothing
beyond Keras and any of its backends), the scalars ``update_ratio/<weight path>`` (Keras 3 paths
such as ``sequential/dense/kernel``) and ``update_ratio/all``: ``||W_after - W_before|| /
||W_before||`` of the trainable weights around one training batch, so that what the optimizer
really did (momentum, Adam, weight decay, clipping) is measured. Same tags and rules as
``tbnb.watch`` for PyTorch; ``tbnb.reader.plugins.update_ratio`` reads them.

Keras is imported only when ``Watch`` is first used: the class derives from
``keras.callbacks.Callback``, so it is built on first access (the module's ``__getattr__``), and
``import tbnb`` never imports Keras.
"""

from __future__ import annotations

import math
import numbers
import os
from typing import TYPE_CHECKING, Any

import numpy as np

__all__ = ["Watch"]

if TYPE_CHECKING:
    Watch: type  # made by __getattr__ on first access (its base class is Keras's)

#: Tag prefixes, as ``tbnb.log.watch`` writes them.
RATIO = "update_ratio/"
WEIGHTS = "parameters/"

_built: dict[str, type] = {}


def _norm(array: np.ndarray) -> float:
    """The L2 norm, squares summed in float64 whatever the weights' dtype."""
    return math.sqrt(float(np.square(array, dtype=np.float64).sum()))


def _ratio(delta_norm: float, weight_norm: float) -> float | None:
    """The ratio, or None when there is no point to write: a zero-norm weight (never inf) or a
    non-finite result (weights that overflowed)."""
    if weight_norm == 0:
        return None
    ratio = delta_norm / weight_norm
    return ratio if math.isfinite(ratio) else None


def _import_keras() -> Any:
    try:
        import keras
    except ImportError as err:  # no keras, or keras without a backend it can load
        raise ImportError(
            "tbnb.keras.Watch needs Keras 3 with a backend that imports: pip install keras, and set "
            "KERAS_BACKEND (torch, jax or tensorflow) before importing keras; Keras's default "
            f"backend is TensorFlow ({err})") from err
    if int(keras.__version__.split(".")[0]) < 3:
        raise ImportError(f"tbnb.keras.Watch needs Keras 3, found {keras.__version__}")
    return keras


def _build_watch() -> type:
    """The ``Watch`` class: made once, on first access, because its base class is Keras's."""
    keras = _import_keras()

    class Watch(keras.callbacks.Callback):
        """Logs ``update_ratio/<weight path>`` and ``update_ratio/all`` every ``every``-th batch.

        ``logdir``: the run directory the event file goes into (created if missing).
        The step is the number of training batches since the callback first started training
        (0-based: 0, every, 2*every, ...), counted on across ``fit`` calls with the same
        callback. Watched: the model's trainable weights; they are copied only at the start of a
        watched batch. A weight whose norm is 0 before the batch gives no point (its update still
        counts in ``update_ratio/all``). ``histograms=True`` also logs each trainable weight's
        values after a watched batch as the histogram ``parameters/<path>`` (a callback sees no
        gradients, so there are no gradient histograms here, unlike ``tbnb.watch``).

        With ``steps_per_execution > 1``, Keras calls the batch hooks once per execution: the
        ratio then spans that many optimizer steps. The event file is flushed and closed at the
        end of each ``fit``; a later ``fit`` adds a new file to the same run.
        """

        def __init__(self, logdir: str | os.PathLike[str], every: int = 10, histograms: bool = False) -> None:
            super().__init__()
            if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
                raise ValueError(f"every must be an integer >= 1 (log every n-th batch), got {every!r}")
            if not isinstance(logdir, (str, os.PathLike)):
                raise TypeError(f"logdir must be a path, got {type(logdir).__name__}")
            self.logdir = os.fspath(logdir)
            self.every = every
            self.histograms = histograms
            self.steps = 0
            self._writer: Any = None
            self._before: list[np.ndarray] | None = None

        def on_train_begin(self, logs: dict | None = None) -> None:
            if not self.model.trainable_weights:
                raise ValueError(f"model {self.model.name!r} has no trainable weights: nothing to watch")
            if self._writer is None:
                from .writer import EventWriter

                self._writer = EventWriter(self.logdir)

        def on_train_end(self, logs: dict | None = None) -> None:
            if self._writer is not None:
                self._writer.close()
                self._writer = None

        def on_epoch_end(self, epoch: int, logs: dict | None = None) -> None:
            if self._writer is not None:  # what a Board reading the run live sees
                self._writer.flush()

        def on_train_batch_begin(self, batch: int, logs: dict | None = None) -> None:
            if self.steps % self.every == 0:
                self._before = [np.array(keras.ops.convert_to_numpy(w), copy=True)
                                for w in self.model.trainable_weights]

        def on_train_batch_end(self, batch: int, logs: dict | None = None) -> None:
            before, self._before = self._before, None
            step, self.steps = self.steps, self.steps + 1
            if before is None or step % self.every:
                return
            weights = self.model.trainable_weights
            d2 = w2 = 0.0
            for weight, old in zip(weights, before):
                new = np.asarray(keras.ops.convert_to_numpy(weight))
                delta_norm = _norm(np.subtract(new, old, dtype=np.float64))  # exact for float32 weights
                weight_norm = _norm(old)
                d2, w2 = d2 + delta_norm * delta_norm, w2 + weight_norm * weight_norm
                ratio = _ratio(delta_norm, weight_norm)
                if ratio is not None:
                    self._writer.add_scalar(RATIO + weight.path, ratio, step)
                if self.histograms:
                    self._writer.add_histogram(WEIGHTS + weight.path, new, step)
            ratio = _ratio(math.sqrt(d2), math.sqrt(w2))
            if ratio is not None:
                self._writer.add_scalar(RATIO + "all", ratio, step)

    Watch.__module__ = __name__
    Watch.__qualname__ = "Watch"
    return Watch


def __getattr__(name: str) -> Any:
    if name == "Watch":
        if "Watch" not in _built:
            _built["Watch"] = _build_watch()
        return _built["Watch"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)
