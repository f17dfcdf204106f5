"""Remote logdirs on ``gs://`` against a real GCS JSON API server on loopback (the pure-Python
``gcp-storage-emulator``, started and stopped here): discovery, incremental reloads as a writer
re-uploads its growing files (listing requests and object bytes counted at the server), a deleted
object, a missing bucket and an unreachable endpoint.
"""

from __future__ import annotations

import os
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# gcsfs would first ask the server, over gRPC, for a storage layout emulators do not serve, and
# wait a minute per bucket; tbnb sets this for an endpoint_url too, but the fixture's own client
# below is made before any tbnb code runs.
os.environ.setdefault("GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT", "false")

import tbnb
from tbnb.reader.logdir.logdir import Logdir, LogdirError
from tbnb.testing import EventWriter

from .remote_logs import grow, sweep

gcsfs = pytest.importorskip("gcsfs")
emulator = pytest.importorskip("gcp_storage_emulator.server")


class Served:
    """What the server answered: list requests, object reads and the object bytes sent, and
    each read's object and range (named in a failed assertion)."""

    def __init__(self) -> None:
        self.lists = self.reads = self.bytes = 0
        self.ranges: list[tuple[str, str, int]] = []

    def take(self) -> tuple[int, int, int]:
        out = (self.lists, self.reads, self.bytes)
        self.lists = self.reads = self.bytes = 0
        self.ranges = []
        return out

    def covered(self) -> dict[str, int]:
        """Bytes of each object that some read sent (ranges merged, so a byte read twice
        counts once)."""
        spans: dict[str, list[tuple[int, int]]] = {}
        for name, header, sent in self.ranges:
            start = int(header.split("=")[1].split("-")[0]) if header else 0
            spans.setdefault(name, []).append((start, start + sent))
        out = {}
        for name, pieces in spans.items():
            end = total = 0
            for lo, hi in sorted(pieces):
                total += max(0, hi - max(lo, end))
                end = max(end, hi)
            out[name] = total
        return out


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Served]]:
    served = Served()
    close = emulator.Response.close

    def counted(response: Any) -> None:
        handler = response._handler
        path, method = handler.path.split("?", 1), handler.command
        query = path[1] if len(path) > 1 else ""
        if method == "GET" and "alt=media" in query:
            served.reads += 1
            served.bytes += len(response._content)
            served.ranges.append((path[0].rsplit("/o/", 1)[-1], handler.headers.get("Range", ""),
                                  len(response._content)))
        elif method == "GET" and path[0].rstrip("/").endswith("/o"):
            served.lists += 1
        close(response)

    emulator.Response.close = counted
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = emulator.create_server("127.0.0.1", port, in_memory=True)
    srv.start()
    try:
        yield f"http://127.0.0.1:{port}", served
    finally:
        srv.stop()
        emulator.Response.close = close


def options(endpoint: str) -> dict[str, Any]:
    return {"endpoint_url": endpoint, "token": "anon", "project": "test"}


@pytest.fixture
def bucket(server: tuple[str, Served]) -> str:
    name = f"tblogs-{uuid.uuid4().hex[:8]}"
    gcsfs.GCSFileSystem(**options(server[0])).mkdir(name)
    return name


def upload(endpoint: str, bucket: str, local: Path, prefix: str) -> None:
    """Put every event file under ``local`` whole, as writers to GCS do at each flush."""
    fs = gcsfs.GCSFileSystem(**options(endpoint))
    for path in sorted(local.rglob("*tfevents*")):
        fs.pipe(f"{bucket}/{prefix}/{path.relative_to(local).as_posix()}", path.read_bytes())


def read_once(served: Served, sizes: list[int]) -> None:
    """One listing, and every byte asked for read, each object (or its new bytes) in one
    request: a ranged answer that came back short (seen once on a loaded machine) is continued
    from its last whole record, so a second request per object may re-send less than a record
    (tbnb's scalar records here are 40-43 bytes); an object read twice over is a failure."""
    covered, ranges = served.covered(), list(served.ranges)
    lists, reads, sent = served.take()
    said = f"reads (object, Range, bytes sent): {ranges}"
    assert lists == 1, said
    assert sorted(covered.values()) == sorted(sizes), said
    assert len(sizes) <= reads <= 2 * len(sizes), said
    assert sent - sum(sizes) <= 43 * (reads - len(sizes)), said


def test_discovery_and_incremental_reloads(tmp_path: Path, server: tuple[str, Served], bucket: str) -> None:
    endpoint, served = server
    writers = sweep(tmp_path)
    upload(endpoint, bucket, tmp_path, "exp")
    served.take()
    lg = Logdir(f"gs://{bucket}/exp", storage_options=options(endpoint))
    lg.reload()
    total = sum(p.stat().st_size for p in tmp_path.rglob("*tfevents*"))
    assert lg.runs() == ["eval", "sweep/t1", "train"] and lg.problems == []
    read_once(served, sizes=[p.stat().st_size for p in tmp_path.rglob("*tfevents*")])

    assert not lg.reload()  # nothing new: one listing, no object read
    assert served.take() == (1, 0, 0)

    grown = grow(writers["train"], range(200, 230))
    upload(endpoint, bucket, tmp_path, "exp")  # every object re-uploaded whole; one grew
    served.take()
    result = lg.reload()
    assert result.points == {("train", "loss"): 30}
    read_once(served, sizes=[grown])  # only the new bytes of the grown object
    assert lg.scalars("train", "loss").step.tolist() == list(range(230))
    for w in writers.values():
        w.close()


def test_a_deleted_object_is_reported_not_fatal(tmp_path: Path, server: tuple[str, Served], bucket: str) -> None:
    endpoint = server[0]
    for suffix in (".1", ".2"):
        with EventWriter(tmp_path / "run", filename_suffix=suffix) as w:
            w.add_scalar("x", float(len(suffix)), 0 if suffix == ".1" else 1)
    upload(endpoint, bucket, tmp_path, "exp")
    lg = tbnb.load(f"gs://{bucket}/exp", storage_options=options(endpoint))
    fs = gcsfs.GCSFileSystem(**options(endpoint))
    fs.rm(next(p for p in fs.find(f"{bucket}/exp") if p.endswith(".1")))
    result = lg.reload()
    assert [p.reason for p in result.problems] == ["event file is gone; the data read from it is kept"]
    assert lg.count("run", "x") == 2


def test_a_missing_bucket_and_an_unreachable_endpoint(server: tuple[str, Served],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """gcsfs retries a refused connection with backoff for about half a minute; the load gives
    up after ``FIRST_CONTACT_TIMEOUT`` (shortened here) with a one-line error."""
    from tbnb.reader.files import remote

    monkeypatch.setattr(remote, "FIRST_CONTACT_TIMEOUT", 3.0)
    with pytest.raises(LogdirError, match="gs://no-such-bucket-here/exp") as err:
        tbnb.load("gs://no-such-bucket-here/exp", storage_options=options(server[0]))
    assert "\n" not in str(err.value) and ("not found" in str(err.value) or "does not exist" in str(err.value))
    start = time.monotonic()
    with pytest.raises(LogdirError, match="cannot reach.*check the endpoint URL"):
        tbnb.load("gs://tblogs/exp", storage_options=options("http://127.0.0.1:9"))
    assert 3.0 <= time.monotonic() - start < 10
