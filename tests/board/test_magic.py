"""%load_ext tbnb / %tbnb: TensorBoard's flags, server flags ignored, errors as one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from tbnb.board import magic
from tbnb.board.magic import MagicError, parse_line


def test_all_flags() -> None:
    args = parse_line("--logdir runs/ --reload_interval 5 --samples_per_plugin images=10,histograms=all "
                      "--purge_orphaned_data false")
    assert (args.logdir, args.logdir_spec, args.reload_interval, args.samples_per_plugin,
            args.purge_orphaned_data, args.ignored) == ("runs/", None, 5.0, "images=10,histograms=all", False, [])
    assert args.board_kwargs() == {"logdir": "runs/", "logdir_spec": None, "reload_interval": 5.0,
                                   "samples_per_plugin": "images=10,histograms=all", "purge_orphaned_data": False}


@pytest.mark.parametrize(("line", "purge"), [
    ("--logdir r", True), ("--logdir r --purge_orphaned_data", True), ("--logdir r --purge_orphaned_data=false", False),
    ("--logdir r --purge_orphaned_data=True", True), ("--logdir r --nopurge_orphaned_data", False),
])
def test_purge_flag_forms(line: str, purge: bool) -> None:
    assert parse_line(line).purge_orphaned_data is purge


def test_logdir_spec_quotes_and_comments() -> None:
    args = parse_line("--logdir_spec=a:/x,b:/y  # compare two sweeps")
    assert (args.logdir, args.logdir_spec) == (None, "a:/x,b:/y")
    assert parse_line("--logdir 'my runs/with space' --reload_interval=0").logdir == "my runs/with space"
    assert parse_line("--logdir r").reload_interval == 2.0


def test_server_flags_are_ignored() -> None:
    args = parse_line("--logdir runs --port 6006 --host 0.0.0.0 --bind_all --load_fast=false --path_prefix /tb")
    assert args.logdir == "runs"
    assert args.ignored == ["--port", "--host", "--bind_all", "--load_fast", "--path_prefix"]
    assert parse_line("--bind_all --logdir x").logdir == "x"  # a bare boolean does not eat the next flag


@pytest.mark.parametrize(("line", "message"), [
    ("", "exactly one of --logdir and --logdir_spec"),
    ("--logdir a --logdir_spec b:/c", "exactly one"),
    ("--logdir a --reload_interval soon", "seconds"),
    ("--logdir a --reload_interval -1", "seconds >= 0"),
    ("--logdir a --purge_orphaned_data maybe", "true or false"),
    ("--logdir a --frobnicate", "unrecognized arguments: --frobnicate"),
    ("--logdir", "expected one argument"),
    ("--logdir 'unclosed", "cannot split"),
    ("runs/", "unrecognized arguments: runs/"),
])
def test_bad_lines(line: str, message: str) -> None:
    with pytest.raises(MagicError, match=message):
        parse_line(line)


class FakeIPython:
    def __init__(self) -> None:
        self.registered: list[tuple] = []

    def register_magic_function(self, func, magic_kind: str, magic_name: str) -> None:
        self.registered.append((func, magic_kind, magic_name))


def test_load_ipython_extension_registers_the_line_magic() -> None:
    import tbnb

    ip = FakeIPython()
    tbnb.load_ipython_extension(ip)
    assert ip.registered == [(magic.tbnb_magic, "line", "tbnb")]


@pytest.fixture
def displayed(monkeypatch: pytest.MonkeyPatch) -> list:
    import IPython.display

    shown: list = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: shown.append(obj))
    yield shown
    for board in {id(b): b for b in shown}.values():
        board.close()


def test_magic_shows_a_board_and_reuses_it(displayed: list, small_logdir: Path, capsys) -> None:
    magic.tbnb_magic(f"--logdir {small_logdir} --reload_interval 0 --port 6006")
    out = capsys.readouterr().out
    assert out.strip() == "%tbnb: ignoring --port: there is no server, the board lives in this output"
    (board,) = displayed
    assert board.logdir.runs() == ["a", "b"] and board.reload_interval == 0
    magic.tbnb_magic(f"--logdir {small_logdir} --reload_interval 0")  # a re-run of the cell
    assert displayed == [board, board] and "reusing" in capsys.readouterr().out
    board.close()
    magic.tbnb_magic(f"--logdir {small_logdir} --reload_interval 0")
    assert displayed[-1] is not board


def test_magic_displays_the_board_before_reading_the_logdir(monkeypatch: pytest.MonkeyPatch,
                                                            small_logdir: Path) -> None:
    """The page sets the Board up (its script, its frame) while the kernel reads the logdir:
    displayed first, read next, in the same cell; the cell still ends with everything read."""
    import IPython.display

    seen: list = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda obj, **kw: seen.append((obj, list(obj.logdir.runs()), obj.status.get("runs"))))
    magic.tbnb_magic(f"--logdir {small_logdir} --reload_interval 0")
    ((board, runs_when_shown, status_runs),) = seen
    assert runs_when_shown == [] and not status_runs
    assert board.logdir.runs() == ["a", "b"] and board.status["runs"] == 2
    board.close()


def test_a_failing_first_read_closes_the_displayed_board(displayed: list, small_logdir: Path,
                                                        monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    from tbnb.board.sources import MultiLogdir

    def broken(self: MultiLogdir, first_bytes: int | None = None) -> None:
        raise RuntimeError("the disk went away")

    monkeypatch.setattr(MultiLogdir, "reload", broken)
    magic.tbnb_magic(f"--logdir {small_logdir} --reload_interval 0")
    assert "%tbnb: error: the disk went away" in capsys.readouterr().err
    (board,) = displayed
    assert board.comm is None  # closed: its output shows nothing live


def test_magic_errors_are_one_line_without_traceback(displayed: list, capsys) -> None:
    magic.tbnb_magic("--logdir a --frobnicate")
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("%tbnb: error: unrecognized arguments: --frobnicate")
    assert "Traceback" not in err and displayed == []


def test_magic_help_prints_usage(displayed: list, capsys) -> None:
    magic.tbnb_magic("--help")
    out = capsys.readouterr().out
    assert "usage: %tbnb" in out and "--logdir_spec" in out and displayed == []


def test_magic_reports_a_missing_bundle(displayed: list, small_logdir: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    from tbnb.board import assets

    monkeypatch.setattr(assets, "BUNDLE", tmp_path / "nothing.js")
    magic.tbnb_magic(f"--logdir {small_logdir}")
    assert "bundle is not built" in capsys.readouterr().err and displayed == []


def test_in_a_real_ipython_shell(small_logdir: Path, capsys) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "tbnb")
    assert "tbnb" in shell.magics_manager.magics["line"]
    result = shell.run_cell("%tbnb --logdir_spec a:/x --frobnicate")
    assert result.success  # a bad line prints an error, it does not raise
    assert "%tbnb: error" in capsys.readouterr().err
