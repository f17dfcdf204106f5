"""``tbnb.load(..., executor=client.get_executor())`` on a Dask ``LocalCluster`` of worker
processes (started and stopped here): the results equal the local load, value for value."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tbnb
from tbnb.testing import EventWriter, write_demo_logdir

from .test_tasks import assert_same, grow

distributed = pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    with distributed.LocalCluster(processes=True, n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as dask_client:
        yield dask_client


def test_a_dask_load_equals_the_local_load(tmp_path: Path, client: Any) -> None:
    logdir = write_demo_logdir(tmp_path / "demo")
    executor = client.get_executor(pure=False)
    assert_same(tbnb.load(logdir), tbnb.load(logdir, executor=executor))


def test_dask_reloads_read_only_what_is_new(tmp_path: Path, client: Any) -> None:
    writers = {name: EventWriter(tmp_path / name) for name in ("a", "b")}
    grow(tmp_path, writers, range(0, 30))
    local, remote = tbnb.load(tmp_path), tbnb.load(tmp_path, executor=client.get_executor(pure=False))
    grow(tmp_path, writers, range(30, 45))
    assert local.reload().points == remote.reload().points == {("a", "loss"): 15, ("b", "loss"): 15,
                                                              ("a", "weights"): 3, ("b", "weights"): 3}
    assert_same(local, remote)
    for w in writers.values():
        w.close()
