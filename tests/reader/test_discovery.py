"""Run discovery: the walk a reload makes each poll, with and without symlinked directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tbnb.reader.files import discovery
from tbnb.reader.files.discovery import find_run_files


def event_file(directory: Path, name: str = "events.out.tfevents.1.host") -> None:
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(b"")


def test_runs_are_directories_holding_event_files(tmp_path: Path) -> None:
    event_file(tmp_path)
    event_file(tmp_path / "a")
    event_file(tmp_path / "b" / "c", "x.tfevents.2")
    (tmp_path / "b" / "notes.txt").write_text("not a run")
    (tmp_path / "empty").mkdir()
    runs, problems = find_run_files(tmp_path)
    assert list(runs) == [".", "a", "b/c"] and problems == []
    assert runs["b/c"] == [str(tmp_path / "b" / "c" / "x.tfevents.2")]


def test_without_links_no_directory_is_stated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A poll of a sweep walks thousands of run directories: without a symlink there is no cycle
    to guard against, so no ``stat`` per directory."""
    for i in range(20):
        event_file(tmp_path / f"run_{i}")
    stated: list[str] = []
    real_stat = os.stat

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        stated.append(os.fspath(path))
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "stat", counting)
    runs, _ = find_run_files(tmp_path)
    assert len(runs) == 20 and stated == [os.fspath(tmp_path)]  # the logdir itself, once


@pytest.mark.skipif(os.name != "posix", reason="symlinks")
def test_a_link_cycle_is_walked_once_and_a_linked_run_is_found(tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    event_file(logdir / "a")
    (logdir / "a" / "back").symlink_to(logdir, target_is_directory=True)  # a cycle
    elsewhere = tmp_path / "elsewhere" / "run"
    event_file(elsewhere)
    (logdir / "linked").symlink_to(elsewhere, target_is_directory=True)
    runs, problems = find_run_files(logdir)
    assert list(runs) == ["a", "linked"] and problems == []
    assert discovery._walk(logdir, guard=True) == (runs, problems)


def test_a_missing_logdir_and_a_file_as_logdir(tmp_path: Path) -> None:
    assert find_run_files(tmp_path / "nothing") == ({}, [])
    (tmp_path / "file").write_text("x")
    runs, problems = find_run_files(tmp_path / "file")
    assert runs == {} and [p.reason.startswith("cannot read directory") for p in problems] == [True]
