"""Event files behind any fsspec URL (``s3://``, ``gs://``, ``az://``, ``memory://``...).

Object stores do not append: writers upload the whole file again at each flush, and the bytes
already there stay as they were. So a poll costs one listing of the prefix (sizes included),
then one ranged read per file that grew, of only what it grew by; no file handle is held from
one poll to the next (an open handle pins an object's version, and a re-upload would make it
fail). fsspec and the protocol's package are optional: a missing one is a one-line error that
names what to install.
"""

from __future__ import annotations

import copy
import os
import posixpath
import re
import threading
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from .discovery import is_event_file
from .problems import Problem
from .storage import FilePath, StorageError

#: The package and tbnb extra each common protocol needs.
PACKAGES = {
    "s3": ("s3fs", "s3"), "s3a": ("s3fs", "s3"),
    "gs": ("gcsfs", "gcs"), "gcs": ("gcsfs", "gcs"),
    "az": ("adlfs", None), "abfs": ("adlfs", None), "abfss": ("adlfs", None),
    "hdfs": ("pyarrow", None), "http": ("aiohttp", None), "https": ("aiohttp", None),
}
#: Connection limits given to s3fs unless the user sets their own: an endpoint that does not
#: answer fails in seconds instead of botocore's default minute per attempt.
S3_CONFIG = {"connect_timeout": 5, "read_timeout": 30, "retries": {"max_attempts": 2}}
#: Seconds the first listing (``tbnb.load``'s check) may take before the load says the storage
#: cannot be reached: some filesystems retry a refused connection with backoff for half a minute
#: (gcsfs, six times), with no setting to shorten it.
FIRST_CONTACT_TIMEOUT = 15.0

T = TypeVar("T")

_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@]*@")
_USERINFO_ANYWHERE = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*://)[^/@\s]*@")


def shown_url(url: str) -> str:
    """``url`` without what may be secret: the ``user:password@`` part and the query."""
    return _USERINFO.sub(r"\1", url).split("?", 1)[0].split("#", 1)[0]


def protocol_of(url: str) -> str:
    return url.split("://", 1)[0].lower()


def _install_hint(protocol: str) -> str:
    package, extra = PACKAGES.get(protocol, (None, None))
    if extra:
        return f"pip install 'tbnb[{extra}]' (or {package})"
    if package:
        return f"pip install 'tbnb[remote]' {package}"
    return "install the fsspec filesystem package for it"


def _options(protocol: str, storage_options: Mapping[str, Any] | None) -> dict[str, Any]:
    options = dict(storage_options or {})
    if protocol in ("s3", "s3a") and "config_kwargs" not in options:
        options["config_kwargs"] = S3_CONFIG
    if protocol in ("gs", "gcs") and (options.get("endpoint_url") or os.environ.get("STORAGE_EMULATOR_HOST")):
        # An emulator: recent gcsfs would first ask it, over gRPC, for a storage layout that
        # emulators do not serve, and wait a minute per bucket (unless the user chose already).
        os.environ.setdefault("GCSFS_EXPERIMENTAL_ZB_HNS_SUPPORT", "false")
    return options


def within(seconds: float, call: Callable[[], T]) -> T:
    """``call()``, or TimeoutError if it has not returned after ``seconds`` (it goes on, on a
    daemon thread, and its result is dropped): a load never waits longer on a filesystem's retries."""
    done = threading.Event()
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as err:  # noqa: BLE001 - handed to the caller
            out["error"] = err
        done.set()

    threading.Thread(target=run, name="tbnb-remote-contact", daemon=True).start()
    if not done.wait(seconds):
        raise TimeoutError(f"timed out: no answer in {seconds:g} s")
    if "error" in out:
        raise out["error"]
    return out["value"]


def describe_error(err: BaseException, shown: str) -> str:
    """One line for an error met reaching ``shown``: what went wrong and what to check."""
    text = _USERINFO_ANYWHERE.sub(r"\1", " ".join(str(err).split())) or type(err).__name__
    if isinstance(err, FileNotFoundError):
        return f"logdir {shown!r} not found: {text} (check the bucket name and path)"
    if isinstance(err, PermissionError):
        return f"access to {shown!r} denied: {text} (check your credentials and the bucket's policy)"
    lowered = text.lower()
    if any(word in lowered for word in ("connect", "timeout", "timed out", "unreachable", "resolve", "endpoint")):
        return f"cannot reach the storage of {shown!r}: {text} (check the endpoint URL and the network)"
    return f"cannot read {shown!r}: {text}"


class RemoteStorage:
    """A logdir behind an fsspec URL: listings with sizes, ranged reads, nothing held open."""

    remote = True

    def __init__(self, url: str, storage_options: Mapping[str, Any] | None = None) -> None:
        protocol = protocol_of(url)
        self.shown = shown_url(url).rstrip("/")
        try:
            import fsspec
        except ImportError:
            raise StorageError(f"reading {protocol}:// logdirs needs fsspec: {_install_hint(protocol)}") from None
        try:
            self.fs, root = fsspec.core.url_to_fs(url, **_options(protocol, storage_options))
        except ImportError as err:
            said = " ".join(str(err).split())
            raise StorageError(f"reading {protocol}:// logdirs needs a package that is not installed ({said}): "
                               f"{_install_hint(protocol)}") from None
        except ValueError as err:
            if "protocol" in str(err).lower():
                raise StorageError(f"unknown protocol {protocol!r} in {self.shown!r}: fsspec knows no such "
                                   "filesystem (check the URL)") from None
            raise StorageError(f"cannot use {self.shown!r}: {err}") from None
        self.root = root.rstrip("/") or root
        #: Sizes seen by the last listing, by file path (a poll reads sizes from it, not by asking).
        self.sizes: dict[str, int] = {}
        #: Whether a listing has been made (``sizes`` then says what it found).
        self.listed = False

    # -- listing ------------------------------------------------------------------------------

    def _find(self) -> dict[str, int]:
        """One listing of everything under the root: ``{file URL: size}`` (cached listings
        dropped first, so that a re-uploaded object shows its new size)."""
        self.listed = True  # (a listing that fails counts: ``exists`` does not ask again each poll)
        self.fs.invalidate_cache(self.root)
        found = self.fs.find(self.root, detail=True)
        return {self.fs.unstrip_protocol(path): int(info.get("size") or 0)
                for path, info in found.items() if info.get("type", "file") != "directory"}

    def exists(self) -> bool:
        """Whether the last listing found anything (listing now only if none was made yet: a
        poll lists once, and the board asks this after every poll)."""
        if self.listed:
            return bool(self.sizes)
        try:
            self.sizes = self._find()
        except Exception:  # noqa: BLE001 - any failure means "not readable now"
            return False
        return bool(self.sizes)

    def check(self) -> None:
        try:
            found = within(FIRST_CONTACT_TIMEOUT, self._find)
        except Exception as err:  # noqa: BLE001 - fsspec filesystems raise many kinds
            raise StorageError(describe_error(err, self.shown)) from None
        if not found:
            raise StorageError(f"logdir {self.shown!r} does not exist (nothing is stored under it)")

    def list_runs(self) -> tuple[dict[str, list[FilePath]], list[Problem]]:
        """Runs from one listing; OSError (with a one-line message) when the listing fails."""
        try:
            found = self._find()
        except Exception as err:  # noqa: BLE001
            raise OSError(describe_error(err, self.shown)) from None
        base = self.fs.unstrip_protocol(self.root).rstrip("/") + "/"
        runs: dict[str, list[FilePath]] = {}
        for path in sorted(found):
            directory, name = posixpath.split(path)
            if not is_event_file(name) or not (path.startswith(base) or directory + "/" == base):
                continue
            rel = directory[len(base):] if len(directory) >= len(base) else ""
            runs.setdefault(rel or ".", []).append(path)
        self.sizes = found
        return dict(sorted(runs.items())), []

    # -- reading ------------------------------------------------------------------------------

    def touched_runs(self) -> set[str] | None:
        return None  # (a listing's sizes tell; no change notification)

    def size(self, path: FilePath) -> int:
        try:
            return self.sizes[str(path)]
        except KeyError:
            raise FileNotFoundError(2, "no longer listed", str(path)) from None

    def open(self, path: FilePath) -> RangeFile:
        return RangeFile(self.fs, str(path), self.size(path))

    def read_range(self, path: FilePath, start: int, length: int) -> bytes:
        return bytes(self.fs.cat_file(str(path), start=start, end=start + length))

    def for_files(self, paths: list[FilePath]) -> RemoteStorage:
        task = copy.copy(self)
        task.sizes = {str(p): self.sizes[str(p)] for p in paths if str(p) in self.sizes}
        return task

    def directory(self, run: str) -> FilePath:
        base = self.fs.unstrip_protocol(self.root).rstrip("/")
        return base if run == "." else f"{base}/{run}"


class RangeFile:
    """The little of a file object the run loader uses (seek, read, readinto), each read one
    ranged request (``cat_file`` with ``start``/``end`` as keywords: the third positional
    parameter of s3fs's is a version id)."""

    def __init__(self, fs: Any, path: str, size: int) -> None:
        self.fs, self.path, self.size = fs, path, size
        self.pos = 0

    def seek(self, pos: int) -> int:
        self.pos = pos
        return pos

    def read(self, n: int = -1) -> bytes:
        end = self.size if n < 0 else min(self.size, self.pos + n)
        if end <= self.pos:
            return b""
        data = bytes(self.fs.cat_file(self.path, start=self.pos, end=end))
        self.pos += len(data)
        return data

    def readinto(self, view: memoryview) -> int:
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    def __enter__(self) -> RangeFile:
        return self

    def __exit__(self, *exc: object) -> None:
        return None
