"""UMAP through umap-learn (an optional extra): the layout's shape, the same layout for the same
seed, and a job that stops when asked. Skipped when umap-learn is not installed."""

from __future__ import annotations

import time

import numpy as np
import pytest

from tbnb.board.projector.jobs import DONE, STOPPED, Jobs
from tbnb.board.projector.nonlinear import Stopped, umap

umap_learn = pytest.importorskip("umap")


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.default_rng(8)
    centres = rng.normal(0, 6, size=(3, 10))
    return np.concatenate([c + rng.normal(size=(40, 10)) for c in centres]).astype(np.float32)


def test_umap_shape_and_seed(blobs):
    first = umap(blobs, 2, neighbors=10, min_dist=0.1, seed=3)
    assert first.shape == (len(blobs), 2) and first.dtype == np.float32 and np.isfinite(first).all()
    np.testing.assert_array_equal(umap(blobs, 2, neighbors=10, min_dist=0.1, seed=3), first)
    assert umap(blobs, 3, neighbors=10, seed=3).shape == (len(blobs), 3)
    # the three blobs stay apart: each point's nearest other point is in its own blob
    d = np.linalg.norm(first[:, None] - first[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert (np.argmin(d, axis=1) // 40 == np.arange(len(blobs)) // 40).mean() > 0.95


def test_umap_parameters_are_checked(blobs):
    with pytest.raises(ValueError, match="neighbors"):
        umap(blobs, 2, neighbors=2)
    with pytest.raises(ValueError, match="min_dist"):
        umap(blobs, 2, min_dist=1.5)


def test_umap_job_stops(blobs):
    with pytest.raises(Stopped):
        umap(blobs, 2, progress=lambda done, total: True)
    jobs = Jobs()
    job = jobs.start(("stop",), lambda progress: umap(blobs, 2, neighbors=10, seed=1, progress=progress))
    assert jobs.stop(("stop",)) == 1
    job.thread.join(timeout=300)
    assert job.state == STOPPED and job.result is None
    done = jobs.start(("run",), lambda progress: umap(blobs, 2, neighbors=10, seed=1, progress=progress))
    deadline = time.time() + 300
    while done.state not in (DONE, STOPPED, "error") and time.time() < deadline:
        time.sleep(0.1)
    assert done.state == DONE and done.result.shape == (len(blobs), 2)
    assert done.progress(1, 1) is False  # nobody asked it to stop
