"""``tbnb.watch``: log the weight:update ratio of a PyTorch model, per parameter tensor and for
the whole network, in one line.

The ratio is the one CS231n asks for (``norm(update) / norm(W)``, about 1e-3 when the learning
rate suits the layer), measured on the *true* update: the parameters just before and just after
``optimizer.step()``, so momentum, Adam's scaling, weight decay and clipping are all included
(``-lr * grad`` would miss them). The optimizer's own step hooks do the work
(``register_step_pre_hook`` / ``register_step_post_hook``): no change to the training loop.

Written as scalars ``update_ratio/<parameter name>`` (``model.named_parameters()`` names) and
``update_ratio/all`` (all watched parameters as one vector: ``||dW_all|| / ||W_all||``), which
``tbnb.reader.plugins.update_ratio`` turns into findings.

Cost: the parameters are copied (one copy of the model) only on a watched step, every ``every``-th;
any other step costs two Python calls and an integer test. The difference is taken in place in
that copy, and norms are summed in the weights' own precision (float32): casting to float64 made
a watched step of a 10 M-parameter model about three times slower, for a ratio that needs far
fewer digits than float32's relative error (about n * 2**-24 at worst, far less in practice).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from typing_extensions import Self  # typing.Self needs Python 3.11

#: Tag prefixes: the ratio, and (``histograms=True``) the weights and gradients, as W&B's
#: ``watch(log="all")`` names them.
RATIO = "update_ratio/"
WEIGHTS = "parameters/"
GRADIENTS = "gradients/"


class WatchHandle:
    """What ``watch`` returns: ``remove()`` stops the logging (and frees any copy it holds).

    ``steps`` is the number of optimizer steps seen since ``watch``. A context manager too:
    ``with tbnb.watch(...):`` removes the hooks on leaving the block.
    """

    def __init__(self, named: list[tuple[str, torch.Tensor]], optimizer: Any, writer: Any, every: int,
                 step: Callable[[], int] | None, histograms: bool) -> None:
        self._names = [name for name, _ in named]
        self._params = [param for _, param in named]
        self._writer = writer
        self._every = every
        self._step = step
        self._histograms = histograms
        self._before: list[torch.Tensor] | None = None
        self.steps = 0
        self._hooks = [optimizer.register_step_pre_hook(self._pre_step),
                       optimizer.register_step_post_hook(self._post_step)]

    def remove(self) -> None:
        """Stop logging: unregister both hooks. Calling it again does nothing."""
        for hook in self._hooks:
            hook.remove()
        self._hooks = []
        self._before = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    # -- the hooks ------------------------------------------------------------------------------
    def _pre_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        if self.steps % self._every == 0:
            self._before = [param.detach().clone() for param in self._params]

    def _post_step(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        before, self._before = self._before, None
        count, self.steps = self.steps, self.steps + 1
        if before is None or count % self._every:
            return
        step = count if self._step is None else int(self._step())
        self._write_ratios(before, step)
        if self._histograms:
            self._write_histograms(step)

    def _write_ratios(self, before: list[torch.Tensor], step: int) -> None:
        import torch

        with torch.no_grad():
            norms = []
            for param, copy in zip(self._params, before):
                wide = torch.promote_types(param.dtype, torch.float32)  # fp16/bf16 weights: work in fp32
                work = copy.to(wide)  # the copy itself for float32 weights
                weight = torch.linalg.vector_norm(work)
                delta = torch.linalg.vector_norm(work.sub_(param.detach().to(wide)))  # in place: no 2nd copy
                norms += [delta.to(torch.float64).cpu(), weight.to(torch.float64).cpu()]
            values = torch.stack(norms).tolist()  # one device sync
        deltas, weights = values[0::2], values[1::2]
        for name, delta_norm, weight_norm in zip(self._names, deltas, weights):
            self._write_ratio(RATIO + name, delta_norm, weight_norm, step)
        self._write_ratio(RATIO + "all", math.sqrt(math.fsum(d * d for d in deltas)),
                          math.sqrt(math.fsum(w * w for w in weights)), step)

    def _write_ratio(self, tag: str, delta_norm: float, weight_norm: float, step: int) -> None:
        if weight_norm == 0:  # no scale to compare with: no point (never inf)
            return
        ratio = delta_norm / weight_norm
        if math.isfinite(ratio):  # weights that overflowed: the loss curve says so, not an inf here
            self._writer.add_scalar(tag, ratio, step)

    def _write_histograms(self, step: int) -> None:
        for name, param in zip(self._names, self._params):
            self._writer.add_histogram(WEIGHTS + name, _numpy(param), step)
            if param.grad is not None:
                self._writer.add_histogram(GRADIENTS + name, _numpy(param.grad), step)


def _numpy(tensor: torch.Tensor) -> Any:
    """A float32/float64 numpy copy of a tensor on any device (numpy has no bfloat16), which
    every supported writer's ``add_histogram`` accepts."""
    import torch

    t = tensor.detach()
    if t.dtype not in (torch.float32, torch.float64):
        t = t.float()
    return t.cpu().numpy()


def watch(model: Any, optimizer: Any, writer: Any, every: int = 10,
          step: Callable[[], int] | None = None, histograms: bool = False) -> WatchHandle:
    """Log ``update_ratio/<name>`` and ``update_ratio/all`` at every ``every``-th step of ``optimizer``.

    ``model``: a ``torch.nn.Module``; its parameters that ``optimizer`` holds are watched (frozen
    ones are not updated, so they are left out). ``writer``: anything with
    ``add_scalar(tag, value, step)`` (and ``add_histogram(tag, values, step)`` for
    ``histograms=True``): torch's ``SummaryWriter``, tensorboardX's, tbnb's ``EventWriter``; it is
    neither flushed nor closed here.

    The step written is the number of optimizer steps since ``watch`` (0-based: 0, every, 2*every,
    ...). ``step``: a callable with no arguments returning the trainer's own step (for example
    ``lambda: trainer.global_step``), called on each watched step instead; ``every`` still counts
    optimizer steps. A tensor whose norm is 0 before the step (a bias initialised to zeros) gives
    no point that step; its update still counts in ``update_ratio/all``.

    ``histograms=True`` also logs, on watched steps, each parameter's values after the step as
    ``parameters/<name>`` and its gradient as ``gradients/<name>`` (TensorBoard histograms).

    Raises TypeError / ValueError before any training for: ``every`` not an integer >= 1, a model
    without parameters, an optimizer holding none of the model's parameters, a writer without
    the methods above, a ``step`` that is not callable.
    """
    import torch

    if isinstance(every, bool) or not isinstance(every, numbers.Integral) or every < 1:
        raise ValueError(f"every must be an integer >= 1 (log every n-th optimizer step), got {every!r}")
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}")
    needed = ("add_scalar", "add_histogram") if histograms else ("add_scalar",)
    missing = [m for m in needed if not callable(getattr(writer, m, None))]
    if missing:
        raise TypeError(f"writer has no {' or '.join(missing)} method: pass torch's SummaryWriter, "
                        f"tensorboardX's SummaryWriter or tbnb.writer.EventWriter")
    if step is not None and not callable(step):
        raise TypeError(f"step must be None or a callable returning the trainer's step, got {step!r}")
    named = list(model.named_parameters())
    if not named:
        raise ValueError(f"model {type(model).__name__} has no parameters: nothing to watch")
    held = {id(p) for group in optimizer.param_groups for p in group["params"]}
    watched = [(name, p) for name, p in named if id(p) in held]
    if not watched:
        raise ValueError(f"the optimizer ({type(optimizer).__name__}) holds none of the parameters of "
                         f"{type(model).__name__}: was it made for another model?")
    return WatchHandle(watched, optimizer, writer, every, step, histograms)
