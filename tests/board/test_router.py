"""The dashboard registry's contract: a module registered with one line answers its request
types through the Board's router, is remembered and pushed when it says so, and clashes are
refused. The module here is registered by monkeypatching the registry, nothing else."""

from __future__ import annotations

import types
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from tbnb.board import dashboards
from tbnb.board.request import Fields, Reply, RequestError, Settings
from tbnb.board.sources import MultiLogdir
from tbnb.testing import EventWriter

from .conftest import T0, Page


def answer_points(source: MultiLogdir, content: dict[str, Any], settings: Settings) -> Reply:
    """A new dashboard's request: how many points each requested run holds of a tag."""
    req = Fields(content)
    request_id, tag, runs = req.integer("id"), req.string("tag"), req.strings("runs")
    if tag == "forbidden":
        raise RequestError("this dashboard refuses 'forbidden'")
    counts = {run: source.point_count(run, tag) for run in runs if tag in source.tags(run)}
    return {"type": "points", "id": request_id, "tag": tag, "counts": counts, "x_axis": settings.x_axis}, []


def key(content: Mapping[str, Any]) -> tuple[Any, ...]:
    return (content["type"], content["tag"])


def fake_dashboard(name: str = "pointcount", requests: dict[str, Any] | None = None) -> types.ModuleType:
    module = types.ModuleType(name)
    module.REQUESTS = requests if requests is not None else {"points": answer_points}
    module.PUSHED = {"points": key} if requests is None else {}
    return module


@pytest.fixture
def registered(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = fake_dashboard()
    monkeypatch.setattr(dashboards, "MODULES", [*dashboards.MODULES, module])
    return module


def test_a_registered_dashboard_answers_through_the_router(registered, make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir, x_axis="wall"))
    reply, buffers = page.ask({"type": "points", "id": 3, "tag": "loss", "runs": ["a", "b"]})
    assert reply == {"type": "points", "id": 3, "tag": "loss", "counts": {"a": 10, "b": 5}, "x_axis": "wall"}
    assert buffers == []
    # Its refusals and bad fields are error replies like any other request's.
    assert page.ask({"type": "points", "id": 4, "tag": "forbidden", "runs": []})[0] == {
        "type": "error", "id": 4, "message": "this dashboard refuses 'forbidden'"}
    assert "'runs' must be a list" in page.ask({"type": "points", "id": 5, "tag": "loss", "runs": "a"})[0]["message"]
    # The others still answer, and an unknown type lists the new one among the known.
    assert page.ask({"type": "index"})[0]["type"] == "index"
    unknown = page.ask({"type": "nope"})[0]["message"]
    assert "'points'" in unknown and "'series'" in unknown


def test_a_registered_dashboards_pushed_type_is_pushed(registered, make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "a", start_time=T0)
    writer.add_scalar("loss", 1.0, 0, wall_time=T0)
    writer.flush()
    page = Page(make_board(tmp_path))
    page.ask({"type": "points", "id": 1, "tag": "loss", "runs": ["a"]})
    writer.add_scalar("loss", 0.5, 1, wall_time=T0 + 1)
    writer.close()
    page.board.refresh()
    pushes = [c for c, _ in page.recorder.sent if c.get("push")]
    assert pushes == [{"type": "points", "id": 1, "tag": "loss", "counts": {"a": 2}, "x_axis": "step",
                       "push": True, "runs": ["a"]}]


def test_without_the_registry_line_the_type_is_unknown(make_board, small_logdir: Path) -> None:
    reply, _ = Page(make_board(small_logdir)).ask({"type": "points", "id": 1, "tag": "loss", "runs": ["a"]})
    assert reply["type"] == "error" and "unknown request type 'points'" in reply["message"]


def test_a_request_type_has_one_owner() -> None:
    taken = fake_dashboard("thief", {"series": answer_points})
    with pytest.raises(ValueError, match="'series' is answered by both"):
        dashboards.handlers([*dashboards.MODULES, taken])


def test_core_types_are_not_for_dashboards(monkeypatch: pytest.MonkeyPatch, make_board, small_logdir: Path) -> None:
    monkeypatch.setattr(dashboards, "MODULES", [*dashboards.MODULES, fake_dashboard("x", {"index": answer_points})])
    with pytest.raises(ValueError, match="core request types"):
        make_board(small_logdir)


def test_only_answered_types_are_pushed() -> None:
    module = fake_dashboard("odd", {})
    module.PUSHED = {"points": key}
    with pytest.raises(ValueError, match="pushes"):
        dashboards.push_keys([module])


def test_the_registry_covers_the_wire_protocol() -> None:
    # The built-in dashboards' (installed ones add theirs: test_extensions.py), and "plugins".
    assert sorted(dashboards.handlers(dashboards.MODULES)) == [
        "blob", "blobs", "csv", "custom_scalars", "diagnostic_chart", "diagnostics", "distributions", "graph",
        "graph_explorer", "graph_list", "histograms", "hparams", "json", "media_code", "mesh", "meshes", "plugins",
        "pr_curves", "projector_code", "projector_index", "projector_metadata", "projector_neighbors",
        "projector_points", "projector_sprite", "projector_stop", "segmentation", "segmentation_steps", "series",
        "step_table", "text"]
    assert sorted(dashboards.push_keys(dashboards.MODULES)) == ["diagnostic_chart", "diagnostics", "distributions", "histograms",
                                              "pr_curves", "segmentation_steps", "series", "step_table"]


def test_every_registered_dashboard_is_named_in_the_shared_constants() -> None:
    """constants.json's "dashboards" is the list of names both sides share; "timeseries" is the
    page's composition of the scalar, histogram and image cards and has no module of its own."""
    from tbnb.board.protocol import DASHBOARDS

    names = [m.__name__.rsplit(".", 1)[-1] for m in dashboards.MODULES]
    assert names == [d for d in DASHBOARDS if d != "timeseries"]


_TRAITS_SCRIPT = """
import sys, types, traitlets
from tbnb.board import dashboards

module = types.ModuleType("levels")
module.REQUESTS, module.PUSHED = {}, {}

class Traits(traitlets.HasTraits):
    level_shown = traitlets.Int(3).tag(sync=True)

    def doubled(self):
        return 2 * self.level_shown

module.Traits = Traits
dashboards.MODULES.append(module)   # the one registry line, before the Board is defined
from tbnb.board.widget import SETTINGS, Board

board = Board(sys.argv[1], reload_interval=0, level_shown=5)
assert "level_shown" in SETTINGS, SETTINGS
assert board.level_shown == 5 and board.doubled() == 10
assert board.get_state()["level_shown"] == 5      # synced with the page like any setting
try:
    Board(sys.argv[1], reload_interval=0, level_shown="x")
except traitlets.TraitError:
    pass
else:
    raise AssertionError("a dashboard trait is not validated")
board.close()
print("ok")
"""


def test_a_dashboards_traits_become_board_settings(small_logdir: Path) -> None:
    """A module's ``Traits`` mixin: its traits are the Board's synced, validated settings and
    its methods the Board's, with no change to widget code (a fresh interpreter, since the
    Board class is built from the registry when its module is imported)."""
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _TRAITS_SCRIPT, str(small_logdir)], capture_output=True,
                          text=True, cwd=root, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("ok")
