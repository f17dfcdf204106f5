"""Remote logdirs against a real S3 API server on loopback (moto's server, started and stopped
here): discovery, incremental reloads as a writer uploads more (bytes transferred and listing
requests counted at the S3 client), a deleted object, denied access, an unreachable endpoint.
"""

from __future__ import annotations

import time
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import tbnb
from tbnb.reader.logdir.logdir import Logdir, LogdirError
from tbnb.testing import EventWriter

from .remote_logs import grow, sweep

pytest.importorskip("s3fs")
boto3 = pytest.importorskip("boto3")
moto_server = pytest.importorskip("moto.server")

KEYS = {"key": "testing", "secret": "testing"}


@pytest.fixture(scope="module")
def endpoint() -> Iterator[str]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    try:
        yield f"http://{host}:{port}"
    finally:
        server.stop()


@pytest.fixture
def bucket(endpoint: str) -> str:
    name = f"tblogs-{uuid.uuid4().hex[:8]}"
    client(endpoint).create_bucket(Bucket=name)
    return name


def client(endpoint: str) -> Any:
    return boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1",
                        aws_access_key_id=KEYS["key"], aws_secret_access_key=KEYS["secret"])


def options(endpoint: str) -> dict[str, Any]:
    return {**KEYS, "endpoint_url": endpoint, "client_kwargs": {"region_name": "us-east-1"}}


def upload(endpoint: str, bucket: str, local: Path, prefix: str) -> None:
    """Put every event file under ``local`` whole, as TensorBoard's writers do at each flush."""
    s3 = client(endpoint)
    for path in sorted(local.rglob("*tfevents*")):
        s3.put_object(Bucket=bucket, Key=f"{prefix}/{path.relative_to(local).as_posix()}", Body=path.read_bytes())


class Requests:
    """S3 requests made by a Logdir's client, counted by operation, and GetObject body bytes."""

    def __init__(self, lg: Logdir) -> None:
        fs = lg.storage.fs  # type: ignore[attr-defined]
        fs.connect()
        self.calls: dict[str, int] = {}
        self.bytes = 0
        events = fs.s3.meta.events
        events.register("before-call.s3", self._before)
        events.register("after-call.s3.GetObject", self._after)

    def _before(self, event_name: str, **_: Any) -> None:
        op = event_name.rsplit(".", 1)[-1]
        self.calls[op] = self.calls.get(op, 0) + 1

    def _after(self, parsed: dict[str, Any], **_: Any) -> None:
        self.bytes += int(parsed.get("ContentLength") or 0)

    def take(self) -> tuple[dict[str, int], int]:
        out = (dict(self.calls), self.bytes)
        self.calls, self.bytes = {}, 0
        return out


def test_discovery_and_incremental_reloads(tmp_path: Path, endpoint: str, bucket: str) -> None:
    writers = sweep(tmp_path)
    upload(endpoint, bucket, tmp_path, "exp")
    client(endpoint).put_object(Bucket=bucket, Key="exp/train/", Body=b"")  # a writer's directory marker
    lg = Logdir(f"s3://{bucket}/exp", storage_options=options(endpoint))
    requests = Requests(lg)
    lg.reload()
    calls, transferred = requests.take()
    total = sum(p.stat().st_size for p in tmp_path.rglob("*tfevents*"))
    assert lg.runs() == ["eval", "sweep/t1", "train"]
    assert calls == {"ListObjectsV2": 1, "GetObject": 3} and transferred == total
    print(f"\ncold load: {calls}, {transferred} bytes of {total}")

    assert not lg.reload()  # nothing new: one listing, no read
    assert requests.take() == ({"ListObjectsV2": 1}, 0)

    grown = grow(writers["train"], range(200, 230))
    upload(endpoint, bucket, tmp_path, "exp")  # every object re-uploaded whole; one grew
    result = lg.reload()
    calls, transferred = requests.take()
    assert result.points == {("train", "loss"): 30}
    assert calls == {"ListObjectsV2": 1, "GetObject": 1} and transferred == grown
    print(f"reload after growth: {calls}, {transferred} bytes (grown by {grown})")
    assert lg.scalars("train", "loss").step.tolist() == list(range(230))
    assert lg.problems == []
    for w in writers.values():
        w.close()


def test_a_deleted_object_is_reported_not_fatal(tmp_path: Path, endpoint: str, bucket: str) -> None:
    for suffix in (".1", ".2"):
        with EventWriter(tmp_path / "run", filename_suffix=suffix) as w:
            w.add_scalar("x", float(len(suffix)), 0 if suffix == ".1" else 1)
    upload(endpoint, bucket, tmp_path, "exp")
    lg = tbnb.load(f"s3://{bucket}/exp", storage_options=options(endpoint))
    key = next(o["Key"] for o in client(endpoint).list_objects_v2(Bucket=bucket)["Contents"]
               if o["Key"].endswith(".1"))
    client(endpoint).delete_object(Bucket=bucket, Key=key)
    result = lg.reload()
    assert [p.reason for p in result.problems] == ["event file is gone; the data read from it is kept"]
    assert lg.count("run", "x") == 2


def set_auth_after(endpoint: str, actions: bytes) -> None:
    """Make moto check credentials after ``actions`` more requests (``inf``: never)."""
    request = urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=actions, method="POST",
                                     headers={"Content-Type": "text/plain"})
    urllib.request.urlopen(request).close()


def test_denied_access_is_one_line_error(tmp_path: Path, endpoint: str, bucket: str) -> None:
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("x", 1.0, 0)
    upload(endpoint, bucket, tmp_path, "exp")
    lg = tbnb.load(f"s3://{bucket}/exp", storage_options=options(endpoint))
    # From now on the server checks credentials, and these keys belong to no user.
    set_auth_after(endpoint, b"0")
    try:
        with pytest.raises(LogdirError, match="denied.*check your credentials") as err:
            tbnb.load(f"s3://{bucket}/exp", storage_options=options(endpoint))
        assert "\n" not in str(err.value) and "testing" not in str(err.value)
        result = lg.reload()  # a board that was reading keeps its data and says why it stopped
        assert lg.runs() == ["run"] and "denied" in result.problems[0].reason
    finally:
        set_auth_after(endpoint, b"inf")


def test_a_missing_bucket_and_an_unreachable_endpoint(endpoint: str) -> None:
    with pytest.raises(LogdirError, match="not found.*check the bucket name"):
        tbnb.load("s3://no-such-bucket-here/exp", storage_options=options(endpoint))
    start = time.monotonic()
    with pytest.raises(LogdirError, match="cannot reach.*check the endpoint URL"):
        tbnb.load("s3://tblogs/exp", storage_options=options("http://127.0.0.1:9"))
    assert time.monotonic() - start < 60


def test_an_s3_logdir_parsed_in_worker_processes(tmp_path: Path, endpoint: str, bucket: str) -> None:
    from concurrent.futures import ProcessPoolExecutor

    from .same_data import assert_same
    from .test_tasks import grow

    writers = {name: EventWriter(tmp_path / name) for name in ("a", "b")}
    grow(tmp_path, writers, range(0, 30))
    upload(endpoint, bucket, tmp_path, "exp")
    url = f"s3://{bucket}/exp"
    with ProcessPoolExecutor(max_workers=2) as pool:  # each worker opens its own S3 client
        remote = tbnb.load(url, storage_options=options(endpoint), executor=pool)
        assert_same(tbnb.load(tmp_path), remote)
        grow(tmp_path, writers, range(30, 40))
        upload(endpoint, bucket, tmp_path, "exp")
        assert remote.reload().points == {("a", "loss"): 10, ("b", "loss"): 10, ("a", "weights"): 2,
                                          ("b", "weights"): 2}
        assert_same(tbnb.load(tmp_path), remote)
    for w in writers.values():
        w.close()
