"""The files layer's storage: a local logdir stays on plain file reads and never imports fsspec."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tbnb.reader.files.location import is_url, open_storage
from tbnb.reader.files.storage import LocalStorage, StorageError
from tbnb.testing import EventWriter


def test_loading_a_local_logdir_imports_no_fsspec(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "run") as w:
        w.add_scalar("x", 1.0, 0)
    code = ("import sys, tbnb; lg = tbnb.load(sys.argv[1]); lg.reload(); "
            "assert lg.scalars('run', 'x').value.tolist() == [1.0]; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fsspec', 's3fs', 'gcsfs', 'dask')))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip() == "[]"


def test_paths_and_urls_find_their_storage(tmp_path: Path) -> None:
    assert not is_url(str(tmp_path)) and not is_url(tmp_path) and not is_url("C:\\logs")
    assert is_url("s3://bucket/exp") and is_url("memory://x")
    local = open_storage(f"file://{tmp_path}")
    assert isinstance(local, LocalStorage) and local.path == tmp_path
    assert isinstance(open_storage(tmp_path), LocalStorage)
    with pytest.raises(StorageError, match="storage_options apply to URL logdirs"):
        open_storage(tmp_path, {"anon": True})


def test_local_storage_lists_sizes_and_reads_ranges(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "a" / "b") as w:
        w.add_scalar("x", 1.0, 0)
    storage = LocalStorage(tmp_path)
    runs, problems = storage.list_runs()
    assert list(runs) == ["a/b"] and problems == []
    path = runs["a/b"][0]
    data = Path(path).read_bytes()
    assert storage.size(path) == len(data)
    assert storage.read_range(str(path), 3, 10) == data[3:13]
    assert storage.directory("a/b") == tmp_path / "a" / "b" and storage.directory(".") == tmp_path
    with pytest.raises(StorageError, match="does not exist"):
        LocalStorage(tmp_path / "missing").check()
