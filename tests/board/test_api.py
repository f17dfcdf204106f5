"""The public API: tbnb exports, lazy widget imports, show() displaying once."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import tbnb


def test_public_names() -> None:
    for name in ("load", "Logdir", "LogdirError", "__version__", "show", "Board", "load_ipython_extension"):
        assert name in tbnb.__all__ and hasattr(tbnb, name)
    from tbnb.board.widget import Board

    assert tbnb.Board is Board and "show" in dir(tbnb)
    with pytest.raises(AttributeError):
        tbnb.nothing_here  # noqa: B018


def test_importing_tbnb_needs_no_bundle_and_no_widget_code() -> None:
    code = ("import sys, tbnb, tbnb.board.codec, tbnb.board.downsample\n"
            "print(','.join(m for m in sys.modules if m.split('.')[0] in ('anywidget', 'ipywidgets', 'IPython')))\n"
            "from tbnb.board import assets\n"
            "assets.BUNDLE = assets.BUNDLE.with_name('absent.js')\n"
            "from tbnb import Board\n"
            "try:\n    Board('.')\nexcept RuntimeError as e:\n    print('error:', e)\n")
    repo = Path(__file__).resolve().parents[2]  # this checkout, whatever is installed
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=repo).stdout
    first, second = out.splitlines()[:2]
    assert first == ""
    assert second.startswith("error: tbnb's JS bundle is not built")


def test_show_displays_once_even_as_the_last_line(small_logdir: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.utils.capture import capture_output

    shell = InteractiveShell.instance()
    shell.user_ns["tbnb"], shell.user_ns["path"] = tbnb, str(small_logdir)
    with capture_output() as first:
        shell.run_cell("board = tbnb.show(path, reload_interval=0); board", store_history=True)
    widget_outputs = [o for o in first.outputs if "application/vnd.jupyter.widget-view+json" in o.data]
    assert len(widget_outputs) == 1
    board = shell.user_ns["board"]
    assert widget_outputs[0].data["application/vnd.jupyter.widget-view+json"]["model_id"] == board.model_id
    with capture_output() as later:  # in a later cell, the board displays as any widget
        shell.run_cell("board", store_history=True)
    assert len([o for o in later.outputs if "application/vnd.jupyter.widget-view+json" in o.data]) == 1
    board.close()
    with capture_output() as closed:
        shell.run_cell("board", store_history=True)
    assert [o.data for o in closed.outputs] == [{"text/plain": repr(board)}]


def test_show_displays_the_board_before_reading_the_logdir(small_logdir: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """As %tbnb: the page sets up while the kernel reads; ``show`` returns with everything read."""
    import IPython.display

    seen: list = []
    monkeypatch.setattr(IPython.display, "display", lambda obj, **kw: seen.append(list(obj.logdir.runs())))
    board = tbnb.show(small_logdir, reload_interval=0)
    assert seen == [[]] and board.logdir.runs() == ["a", "b"]
    board.close()
