"""Third-party dashboards (entry point group ``tbnb.dashboards``): real distributions on sys.path
(a dist-info directory with its entry_points.txt, as pip writes them) are found, checked and
registered, or skipped with one warning naming their package; the installed example dashboard
(examples/tbnb-plugin-example, installed by CI) is answered through the same router and bounds."""

from __future__ import annotations

import importlib
import os
import re
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tbnb.board import bounds, dashboards, extensions
from tbnb.board.protocol import DASHBOARDS

from .conftest import Page

ROOT = Path(__file__).resolve().parents[2]

GOOD = '''
from tbnb.board.request import Fields
TBNB_API = 1
ESM = "export default (api) => ({ id: NAME, label: 'Good', cards: {} });"
def ping(source, content, settings):
    return {"type": "ping", "id": content.get("id"), "n": len(Fields(content).strings("runs"))}, []
REQUESTS = {"ping": ping}
PUSHED = {}
'''


def write_dist(root: Path, package: str, name: str, module: str, source: str) -> None:
    """A distribution as pip installs one: its module, and a dist-info with the entry point."""
    info = root / f"{package.replace('-', '_')}-1.2.3.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 1.2.3\n")
    (info / "entry_points.txt").write_text(f"[tbnb.dashboards]\n{name} = {module}\n")
    (root / f"{module}.py").write_text(source.replace("NAME", repr(name)))


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    sys.path.remove(str(tmp_path))
    for name in [m for m in sys.modules if m.startswith("tbnbtest_")]:
        del sys.modules[name]


def ours(found: list[extensions.Plugin]) -> list[str]:
    return [p.name for p in found if p.package.startswith("tbnbtest")]


def discover() -> tuple[list[extensions.Plugin], list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        found = extensions.discover(DASHBOARDS, dashboards.handlers(dashboards.MODULES))
    return found, [str(w.message) for w in caught if "tbnbtest" in str(w.message)]


def test_a_good_plugin_is_found_with_its_package_and_version(site: Path) -> None:
    write_dist(site, "tbnbtest-good", "good", "tbnbtest_good", GOOD)
    found, warned = discover()
    assert ours(found) == ["good"] and warned == []
    (plugin,) = [p for p in found if p.name == "good"]
    assert (plugin.package, plugin.version) == ("tbnbtest-good", "1.2.3")
    assert plugin.esm.startswith("export default") and plugin.module.REQUESTS["ping"]


@pytest.mark.parametrize(("name", "source", "reason"), [
    ("broken", "import no_such_module_anywhere\n", "failed to import: ModuleNotFoundError"),
    ("scalars", GOOD, "a dashboard named 'scalars' exists already"),
    ("clash", GOOD.replace('"ping"', '"series"'), "answers request types another dashboard answers: ['series']"),
    ("core", GOOD.replace('"ping"', '"custom_card"'), "['custom_card']"),
    ("future", GOOD.replace("TBNB_API = 1", "TBNB_API = 2"), "written for dashboard API 2; this tbnb supports [1]"),
    ("nocode", GOOD.replace("ESM =", "_ESM ="), "it has no ESM"),
    ("Bad-Name", GOOD, "is not lower-case letters"),
    ("pushy", GOOD.replace("PUSHED = {}", "PUSHED = {'other': None}"), "PUSHED"),
])
def test_a_bad_plugin_is_skipped_with_one_warning_naming_its_package(site: Path, name: str, source: str,
                                                                     reason: str) -> None:
    write_dist(site, "tbnbtest-bad", name, "tbnbtest_bad", source)
    found, warned = discover()
    assert ours(found) == []
    assert len(warned) == 1, warned
    assert f"skipped the dashboard {name!r} of package tbnbtest-bad 1.2.3" in warned[0]
    assert reason in warned[0]


def test_two_plugins_of_one_name_keep_the_first(site: Path) -> None:
    write_dist(site, "tbnbtest-one", "twin", "tbnbtest_one", GOOD)
    write_dist(site / "other", "tbnbtest-two", "twin", "tbnbtest_two", GOOD.replace('"ping"', '"pong"'))
    sys.path.insert(1, str(site / "other"))
    try:
        found, warned = discover()
    finally:
        sys.path.remove(str(site / "other"))
    assert ours(found) == ["twin"] and len(warned) == 1 and "exists already" in warned[0]


def test_the_page_api_version_is_the_kernels() -> None:
    text = (ROOT / "js" / "src" / "api.js").read_text()
    assert re.search(r"export const API_VERSION = (\d+);", text).group(1) == str(extensions.PLUGIN_API)


# -- the installed example -------------------------------------------------------------------------


@pytest.fixture
def example() -> Any:
    if os.environ.get("CI"):  # CI installs it (.ci/run): missing there is a failure
        return importlib.import_module("tbnb_plugin_example")
    return pytest.importorskip("tbnb_plugin_example")


def test_tbnb_dashboards_lists_builtin_and_installed_ones(example: Any) -> None:
    import tbnb

    listed = tbnb.dashboards()
    assert [d["name"] for d in listed if d["builtin"]] == list(DASHBOARDS)
    assert {"name": "example", "package": "tbnb-plugin-example", "version": "0.1.0", "builtin": False} in listed


def test_the_example_is_a_dashboard_of_every_board(example: Any, make_board, small_logdir: Path) -> None:
    board = make_board(small_logdir, dashboard="example")
    assert board.dashboard == "example"
    page = Page(board)
    listed = page.ask({"type": "plugins", "id": 1})
    reply, buffers = listed
    entry = next(d for d in reply["dashboards"] if d["name"] == "example")
    assert reply["id"] == 1  # the page matches a reply to its request by id
    assert entry["package"] == "tbnb-plugin-example" and reply["api"] == extensions.PLUGIN_API
    code = bytes(buffers[entry["buffer"]]).decode()
    assert 'id: "example"' in code and code == Path(example.ESM).read_text()
    rows = page.decoded({"type": "example_table", "id": 2, "runs": ["a", "b", "../not a run"]})["rows"]
    loss_a = board.logdir.scalars("a", "loss").value
    row = next(r for r in rows if (r["run"], r["tag"]) == ("a", "loss"))
    assert row["last"] == pytest.approx(float(loss_a[-1]))
    assert row["best"] == pytest.approx(float(loss_a.min())) and row["best_is"] == "min"
    assert row["mean"] == pytest.approx(float(loss_a.astype("float64").mean()), rel=1e-12)
    assert list(row["spark"]) == pytest.approx([float(v) for v in loss_a])
    acc = next(r for r in rows if (r["run"], r["tag"]) == ("a", "acc"))
    assert acc["best_is"] == "max"
    assert {r["run"] for r in rows} == {"a", "b"}


def test_a_plugins_requests_go_through_the_same_bounds(example: Any, make_board, small_logdir: Path) -> None:
    page = Page(make_board(small_logdir))
    over = page.decoded({"type": "example_table", "id": 3, "runs": ["a"] * (bounds.MAX_ENTRIES + 1)})
    assert over["type"] == "error" and "over its bounds" in over["message"]
    long = page.decoded({"type": "example_table", "id": 4, "runs": ["x" * (bounds.MAX_STRING + 1)]})
    assert long["type"] == "error" and "over its bounds" in long["message"]
    wrong = page.decoded({"type": "example_table", "id": 5, "runs": "a"})
    assert wrong["type"] == "error" and "'runs' must be a list of strings" in wrong["message"]
