"""From what the user passed as a logdir to where its files are read: a local directory, or
an fsspec filesystem for a URL (fsspec is imported only then)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

from .storage import LocalStorage, Storage, StorageError

_URL = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*)://")


def is_url(logdir: object) -> bool:
    """Whether ``logdir`` is a URL with a protocol (``s3://...``), not a local path."""
    return isinstance(logdir, str) and _URL.match(logdir) is not None


def open_storage(logdir: str | os.PathLike[str], storage_options: Mapping[str, Any] | None = None) -> Storage:
    """The storage of a logdir: local for a path (or ``file://``), fsspec for any other URL.

    ``storage_options`` go to the fsspec filesystem as given (credentials, ``endpoint_url``...);
    they never appear in names or messages.
    """
    if is_url(logdir):
        text = str(logdir)
        if text.startswith("file://"):
            return LocalStorage(text[len("file://"):])
        from .remote import RemoteStorage  # fsspec, only for URLs

        return RemoteStorage(text, storage_options)
    if storage_options:
        raise StorageError("storage_options apply to URL logdirs (s3://..., gs://...), not to a local path")
    return LocalStorage(logdir)
