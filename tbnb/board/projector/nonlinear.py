"""t-SNE and UMAP through the optional extra ``tbnb[projector]`` (openTSNE, umap-learn).

Both run in the kernel on the whole selection of rows, seeded so that a layout is reproducible.
t-SNE reports its iterations through ``progress`` and stops when ``progress`` returns True (openTSNE
calls back between iterations); scikit-learn's TSNE is used when openTSNE is missing, without
progress. UMAP (umap-learn) has no iteration callback: it reports its start and its end only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: progress(done, total) -> True to stop.
Progress = Callable[[int, int], bool]
EXTRA = "pip install 'tbnb[projector]'"
EARLY_ITERATIONS = 250


class Stopped(Exception):
    """The computation was stopped from the page or from Python."""


class MissingExtra(RuntimeError):
    """The optional package a method needs is not installed."""


def _never(done: int, total: int) -> bool:
    return False


def tsne(x: np.ndarray, dims: int = 2, *, perplexity: float = 30.0, learning_rate: float | str = "auto",
         iterations: int = 500, seed: int = 0, progress: Progress = _never) -> np.ndarray:
    """t-SNE of ``x`` to ``dims`` (2 or 3) dimensions, Barnes-Hut as TensorBoard's."""
    if not 2 <= perplexity <= 100:
        raise ValueError(f"perplexity must be within [2, 100] (TensorBoard's range), got {perplexity}")
    perplexity = min(perplexity, max(1.0, (len(x) - 1) / 3))
    data = np.asarray(x, dtype=np.float64)
    total = EARLY_ITERATIONS + iterations
    try:
        from openTSNE import TSNE
    except ImportError:
        return _sklearn_tsne(data, dims, perplexity, learning_rate, iterations, seed, progress, total)
    phase = {"offset": 0}

    def callback(iteration: int, error: float, embedding: Any) -> bool:
        # Raised, not returned: openTSNE turns a True into an interrupt that it may swallow.
        if progress(phase["offset"] + iteration, total):
            raise Stopped
        return False

    engine = TSNE(n_components=dims, perplexity=perplexity, learning_rate=learning_rate,
                  n_iter=iterations, early_exaggeration_iter=EARLY_ITERATIONS, random_state=seed,
                  negative_gradient_method="bh" if dims > 2 else "auto", n_jobs=1, verbose=False)
    if progress(0, total):
        raise Stopped
    embedding = engine.prepare_initial(data)
    embedding = embedding.optimize(EARLY_ITERATIONS, exaggeration=12, momentum=0.5, callbacks=[callback],
                                   use_callbacks=True, callbacks_every_iters=10, learning_rate=learning_rate)
    if progress(EARLY_ITERATIONS, total):
        raise Stopped
    phase["offset"] = EARLY_ITERATIONS
    embedding = embedding.optimize(iterations, momentum=0.8, callbacks=[callback], use_callbacks=True,
                                   callbacks_every_iters=10, learning_rate=learning_rate)
    if progress(total, total):
        raise Stopped
    return np.asarray(embedding, dtype=np.float32)


def _sklearn_tsne(data: np.ndarray, dims: int, perplexity: float, learning_rate: float | str,
                  iterations: int, seed: int, progress: Progress, total: int) -> np.ndarray:
    try:
        from sklearn.manifold import TSNE
    except ImportError:
        raise MissingExtra(f"t-SNE needs openTSNE or scikit-learn: {EXTRA}") from None
    if progress(0, total):
        raise Stopped
    engine = TSNE(n_components=dims, perplexity=perplexity, learning_rate=learning_rate,
                  max_iter=total, random_state=seed, method="barnes_hut", init="pca")
    result = engine.fit_transform(data)
    if progress(total, total):
        raise Stopped
    return np.asarray(result, dtype=np.float32)


def umap(x: np.ndarray, dims: int = 2, *, neighbors: int = 15, min_dist: float = 0.1, seed: int = 0,
         progress: Progress = _never) -> np.ndarray:
    """UMAP of ``x`` to ``dims`` dimensions (TensorBoard's ranges: neighbours 5–50, min_dist 0–0.99)."""
    if not 5 <= neighbors <= 50:
        raise ValueError(f"neighbors must be within [5, 50], got {neighbors}")
    if not 0 <= min_dist <= 0.99:
        raise ValueError(f"min_dist must be within [0, 0.99], got {min_dist}")
    try:
        import umap as umap_learn
    except ImportError:
        raise MissingExtra(f"UMAP needs umap-learn: {EXTRA}") from None
    if progress(0, 1):
        raise Stopped
    engine = umap_learn.UMAP(n_components=dims, n_neighbors=min(neighbors, max(2, len(x) - 1)),
                             min_dist=min_dist, random_state=seed, n_jobs=1)
    result = engine.fit_transform(np.asarray(x, dtype=np.float32))
    if progress(1, 1):
        raise Stopped
    return np.asarray(result, dtype=np.float32)
