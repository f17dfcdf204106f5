"""The projector's answers, shared by the page's requests and the Board's Python API: parameters
checked and made canonical, projections computed or looked up, t-SNE/UMAP jobs started.

One module-wide ``STORE`` and ``JOBS``: their keys hold the run's directory, so boards on the same
logdir share layouts, and a layout computed for Python is the one the page draws.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .jobs import DONE, Jobs
from .nonlinear import tsne, umap
from .store import METHODS, Projection, Source, Store, linear_projection, logdir_of

STORE = Store()
JOBS = Jobs()

#: Parameters each method takes, with TensorBoard's defaults.
DEFAULTS: dict[str, dict[str, Any]] = {
    "pca": {"components": None, "spherize": None},
    "custom": {"left": "", "right": "", "up": "", "down": "", "regex": True, "column": "", "spherize": None},
    "tsne": {"perplexity": 30.0, "learning_rate": "auto", "iterations": 500, "seed": 0, "spherize": None},
    "umap": {"neighbors": 15, "min_dist": 0.1, "seed": 0, "spherize": None},
}


#: Ranges of the parameters whose size decides the work (the page is untrusted: a t-SNE of 10^12
#: iterations would hold a core until the kernel dies; seeds are what the libraries take).
PARAM_RANGES: dict[str, tuple[float, float]] = {"iterations": (1, 100_000), "seed": (0, 2 ** 32 - 1)}


def _number(name: str, value: Any, integer: bool = False) -> float | int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if integer and value != int(value):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    lo, hi = PARAM_RANGES.get(name, (-math.inf, math.inf))
    if not lo <= value <= hi:
        raise ValueError(f"{name} must be within [{lo:g}, {hi:g}], got {value!r}")
    return int(value) if integer else float(value)


def canonical(method: str, dims: int, params: dict[str, Any] | None) -> dict[str, Any]:
    """The full parameters of a layout (defaults filled in), checked; unknown names refused."""
    if method not in METHODS:
        raise ValueError(f"method must be one of {list(METHODS)}, got {method!r}")
    if dims not in (2, 3):
        raise ValueError(f"dims must be 2 or 3, got {dims!r}")
    params = dict(params or {})
    unknown = sorted(set(params) - set(DEFAULTS[method]))
    if unknown:
        raise ValueError(f"{method} takes {sorted(DEFAULTS[method])}, not {unknown}")
    out = {**DEFAULTS[method], **params}
    if out["spherize"] is not None and not isinstance(out["spherize"], bool):
        raise ValueError(f"spherize must be true, false or null, got {out['spherize']!r}")
    if method == "pca" and out["components"] is not None:
        comps = out["components"]
        if not isinstance(comps, list) or len(comps) != dims or not all(
                isinstance(c, int) and not isinstance(c, bool) and 0 <= c < 10 for c in comps):
            raise ValueError(f"components must be {dims} distinct indices in 0..9, got {comps!r}")
        out["components"] = [int(c) for c in comps]
    if method == "custom":
        for side in ("left", "right", "up", "down", "column"):
            if not isinstance(out[side], str):
                raise ValueError(f"{side} must be a string, got {out[side]!r}")
        out["regex"] = bool(out["regex"])
    if method == "tsne":
        out["perplexity"] = _number("perplexity", out["perplexity"])
        if out["learning_rate"] != "auto":
            out["learning_rate"] = _number("learning_rate", out["learning_rate"])
        out["iterations"] = _number("iterations", out["iterations"], integer=True)
        out["seed"] = _number("seed", out["seed"], integer=True)
    if method == "umap":
        out["neighbors"] = _number("neighbors", out["neighbors"], integer=True)
        out["min_dist"] = _number("min_dist", out["min_dist"])
        out["seed"] = _number("seed", out["seed"], integer=True)
    return out


def layout_key(source: Source, run: str, name: str, method: str, dims: int, params: dict[str, Any]) -> tuple[Any, ...]:
    lg, inner = logdir_of(source, run)
    frozen = tuple(sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))
    return (str(lg.run_directory(inner)), name, method, dims, frozen)


def layout(source: Source, run: str, name: str, method: str, dims: int,
           params: dict[str, Any] | None = None, *, wait: bool = False,
           rerun: bool = False) -> tuple[Projection | None, dict[str, Any]]:
    """(the layout or None while it is computed, its status). PCA and custom projections are
    computed now; t-SNE and UMAP start a job (``wait``: and wait for it, for Python callers).
    A stopped job answers "stopped" until asked with ``rerun``."""
    params = canonical(method, dims, params)
    key = layout_key(source, run, name, method, dims, params)
    if rerun:
        JOBS.drop(key)
    hit = STORE.cached(key)
    if hit is not None:
        return hit, {"state": DONE, "progress": [1, 1], "message": ""}
    emb = STORE.embedding(source, run, name)
    if method in ("pca", "custom"):
        projection = linear_projection(emb, method, dims, params)
        STORE.keep(key, projection)
        return projection, {"state": DONE, "progress": [1, 1], "message": ""}

    def work(progress: Any) -> np.ndarray:
        from .linear import spherize

        x = emb.tensor
        sphere = params["spherize"] if params["spherize"] is not None else x.shape[1] >= 50
        data = spherize(x) if sphere else x
        if method == "tsne":
            return tsne(data, dims, perplexity=params["perplexity"], learning_rate=params["learning_rate"],
                        iterations=params["iterations"], seed=params["seed"], progress=progress)
        return umap(data, dims, neighbors=params["neighbors"], min_dist=params["min_dist"],
                    seed=params["seed"], progress=progress)

    job = JOBS.start(key, work)
    if wait and job.thread is not None:
        job.thread.join()
    if job.state == DONE and job.result is not None:
        projection = Projection(job.result, np.zeros(0))
        STORE.keep(key, projection)
        JOBS.drop(key)
        return projection, job.status()
    return None, job.status()


def stop(source: Source, run: str, name: str, method: str, dims: int, params: dict[str, Any] | None) -> int:
    """Stop the job computing this layout; how many were stopped (0 or 1)."""
    params = canonical(method, dims, params)
    return JOBS.stop(layout_key(source, run, name, method, dims, params))
