"""Remote logdirs on fsspec's ``memory://`` filesystem: the same code path as ``s3://`` (one
listing per reload, ranged reads of what grew), fast and in-process.

A writer on an object store uploads the whole file again at each flush; ``upload`` does that.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import tbnb
from tbnb.reader.logdir.logdir import Logdir, LogdirError
from tbnb.testing import EventWriter, write_demo_logdir

from .same_data import assert_same

fsspec = pytest.importorskip("fsspec")


@pytest.fixture
def bucket() -> Iterator[str]:
    """A fresh ``memory://`` prefix, removed afterwards (the memory filesystem is global)."""
    root = f"memory://tbnb-test-{uuid.uuid4().hex[:8]}"
    yield root
    fs = fsspec.filesystem("memory")
    if fs.exists(root):
        fs.rm(root, recursive=True)


def upload(local: Path, url: str) -> None:
    """Copy every file under ``local`` to ``url``, whole (as object-store writers do)."""
    fs = fsspec.filesystem("memory")
    for path in sorted(local.rglob("*")):
        if path.is_file():
            fs.pipe_file(f"{url}/{path.relative_to(local).as_posix()}", path.read_bytes())


class Counting:
    """Wraps the storage's filesystem calls that cost a request: listings and ranged reads."""

    def __init__(self, lg: Logdir, monkeypatch: pytest.MonkeyPatch) -> None:
        self.finds = 0
        self.reads: list[tuple[str, int, int]] = []
        fs = lg.storage.fs  # type: ignore[attr-defined]
        find, cat_file = fs.find, fs.cat_file

        def counted_find(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.finds += 1
            return find(*args, **kwargs)

        def counted_cat(path, start=None, end=None, **kwargs):  # type: ignore[no-untyped-def]
            data = cat_file(path, start=start, end=end, **kwargs)
            self.reads.append((path, start, len(data)))
            return data

        monkeypatch.setattr(fs, "find", counted_find)
        monkeypatch.setattr(fs, "cat_file", counted_cat)

    @property
    def bytes(self) -> int:
        return sum(n for _, _, n in self.reads)

    def reset(self) -> None:
        self.finds, self.reads = 0, []


def test_a_memory_logdir_reads_as_the_same_local_one(tmp_path: Path, bucket: str) -> None:
    local = write_demo_logdir(tmp_path / "demo")
    upload(local, bucket)
    remote = tbnb.load(bucket)
    assert remote.runs() and remote.storage.remote
    assert_same(tbnb.load(local), remote)  # images and audio: blobs read by range from the store
    assert remote.problems == []
    assert str(remote.path).startswith("memory://")


def test_a_reload_lists_once_and_reads_only_what_grew(tmp_path: Path, bucket: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    writers = {name: EventWriter(tmp_path / name) for name in ("a", "b")}
    for step in range(50):
        for w in writers.values():
            w.add_scalar("loss", float(step), step)
    for w in writers.values():
        w.flush()
    upload(tmp_path, bucket)
    lg = Logdir(bucket)
    counting = Counting(lg, monkeypatch)
    lg.reload()
    total = sum(f.stat().st_size for f in tmp_path.rglob("*tfevents*"))
    assert counting.finds == 1 and counting.bytes == total
    counting.reset()

    assert not lg.reload()  # nothing new: one listing, no read
    assert counting.finds == 1 and counting.reads == []

    before = writers["a"].path.stat().st_size
    for step in range(50, 60):
        writers["a"].add_scalar("loss", float(step), step)
    writers["a"].flush()
    upload(tmp_path, bucket)  # both files re-uploaded whole; only a's grew
    counting.reset()
    result = lg.reload()
    grown = writers["a"].path.stat().st_size - before
    assert result.points == {("a", "loss"): 10}
    assert counting.finds == 1
    assert counting.reads == [(counting.reads[0][0], before, grown)] and counting.reads[0][0].endswith(
        writers["a"].path.name)
    assert lg.scalars("a", "loss").step.tolist() == list(range(60))
    for w in writers.values():
        w.close()


def test_a_record_cut_by_an_upload_is_read_whole_on_the_next(tmp_path: Path, bucket: str) -> None:
    with EventWriter(tmp_path / "run") as w:
        for step in range(20):
            w.add_scalar("x", float(step), step)
    data = w.path.read_bytes()
    url = f"{bucket}/run/{w.path.name}"
    fs = fsspec.filesystem("memory")
    fs.pipe_file(url, data[: len(data) - 7])  # the writer's upload stopped inside a record
    lg = tbnb.load(bucket)
    assert lg.count("run", "x") == 19
    fs.pipe_file(url, data)
    assert lg.reload().points == {("run", "x"): 1}
    assert lg.scalars("run", "x").step.tolist() == list(range(20))
    assert lg.problems == []


def test_a_vanished_object_is_reported_and_its_data_kept(tmp_path: Path, bucket: str) -> None:
    for name in ("a", "b"):
        with EventWriter(tmp_path / "run", filename_suffix=f".{name}") as w:
            w.add_scalar("x", 1.0 if name == "a" else 2.0, 0 if name == "a" else 1)
    upload(tmp_path, bucket)
    lg = tbnb.load(bucket)
    gone = next(p for p in fsspec.filesystem("memory").find(bucket) if p.endswith(".a"))
    fsspec.filesystem("memory").rm(gone)
    result = lg.reload()
    assert [p.reason for p in result.problems] == ["event file is gone; the data read from it is kept"]
    assert gone in result.problems[0].path
    assert lg.scalars("run", "x").value.tolist() == [1.0, 2.0]


def test_a_failed_listing_is_reported_and_keeps_everything(tmp_path: Path, bucket: str,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("x", 1.0, 0)
    upload(tmp_path, bucket)
    lg = tbnb.load(bucket)

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise PermissionError(13, "Access Denied")

    monkeypatch.setattr(lg.storage.fs, "find", refuse)
    result = lg.reload()
    assert not result and lg.runs() == ["run"]
    assert len(result.problems) == 1 and "denied" in result.problems[0].reason
    assert "credentials" in result.problems[0].reason


def test_bad_urls_are_one_line_errors(bucket: str) -> None:
    with pytest.raises(LogdirError, match=r"unknown protocol 'nosuchproto'.*check the URL"):
        tbnb.load("nosuchproto://bucket/exp")
    with pytest.raises(LogdirError, match="does not exist"):
        tbnb.load(f"{bucket}/nothing-here")
    fsspec.register_implementation("tbnbmissing", "tbnb_no_such_package.FS",
                                   errtxt="Install tbnb-no-such-package", clobber=True)
    with pytest.raises(LogdirError, match=r"tbnbmissing:// logdirs needs a package") as err:
        tbnb.load("tbnbmissing://bucket/exp")
    assert "\n" not in str(err.value)
    with pytest.raises(LogdirError, match="storage_options apply to URL logdirs"):
        tbnb.load("some/local/dir", storage_options={"anon": True})


def test_fsspec_missing_names_the_extra_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "fsspec", None)
    with pytest.raises(LogdirError, match=r"needs fsspec: pip install 'tbnb\[s3\]'"):
        tbnb.load("s3://bucket/exp")


def test_credentials_in_the_url_are_never_shown(tmp_path: Path, bucket: str) -> None:
    from tbnb.reader.files.remote import describe_error, shown_url

    assert shown_url("s3://KEY:SECRET@bucket/exp?token=abc#x") == "s3://bucket/exp"
    assert shown_url("memory://bucket/exp") == "memory://bucket/exp"
    with pytest.raises(LogdirError) as err:
        tbnb.load("nosuchproto://user:hunter2@bucket/exp?sig=abc")
    assert "hunter2" not in str(err.value) and "sig=" not in str(err.value)
    said = describe_error(OSError("Could not connect to the endpoint URL: http://ak:sk@10.0.0.1:9/b"), "s3://b")
    assert "sk@" not in said and "http://10.0.0.1:9/b" in said and "check the endpoint URL" in said
