"""In Colab, a Board turns on Colab's custom widget manager and its output names it, as the README
says (anywidget does both when ``google.colab.output`` is imported; tbnb must keep it, e.g. in
``Board._ipython_display_``). Colab itself is imitated by a stand-in module, as anywidget's own
tests do."""

from __future__ import annotations

import sys
import types
from pathlib import Path
from typing import Any

import pytest

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
MANAGER_URL = "https://colab.example/custom-widget-manager.js"


@pytest.fixture
def colab(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    output = types.ModuleType("google.colab.output")
    output.enable_custom_widget_manager = lambda: calls.append("enabled")  # type: ignore[attr-defined]
    output._widgets = types.SimpleNamespace(_installed_url=MANAGER_URL)  # type: ignore[attr-defined]
    for name in ("google", "google.colab"):
        if name not in sys.modules:
            monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "google.colab.output", output)
    return calls


def test_a_board_in_colab_uses_the_custom_widget_manager(colab: list[str], make_board, small_logdir: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    import IPython.display

    shown: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(IPython.display, "display",
                        lambda data, metadata=None, raw=False: shown.append((data, metadata or {})))
    board = make_board(small_logdir)
    board._ipython_display_()
    ((data, metadata),) = shown
    assert data[WIDGET_MIME]["model_id"] == board.model_id
    assert metadata[WIDGET_MIME]["colab"]["custom_widget_manager"]["url"] == MANAGER_URL
    assert colab  # enabled (once per process: anywidget caches it, so maybe by an earlier board)
