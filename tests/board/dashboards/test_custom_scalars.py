"""The ``custom_scalars`` message on layouts written by torch's and tensorboardX's
``add_custom_scalars``: the merged layout, each chart's tags per run, per-chart regex errors,
and the charts' points through the scalars dashboard's ``series`` request."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ..conftest import Page

WRITERS = [k for k, mod in (("torch", "torch"), ("tbx", "tensorboardX")) if importlib.util.find_spec(mod)]
pytestmark = pytest.mark.skipif(not WRITERS, reason="neither torch nor tensorboardX is installed")
HOSTILE = "<img src=x onerror=alert(1)>"
LAYOUT_A = {
    "Losses": {"all losses": ["Multiline", [r"loss/.*"]], "bad regex": ["Multiline", ["(unclosed", r"acc$"]]},
    "Bands": {"val band": ["Margin", ["val/mean", "val/lower", "val/upper"]]},
}
LAYOUT_B = {  # merged by category title: "Losses" gains a chart, HOSTILE is a new category
    "Losses": {"train only": ["Multiline", [r"loss/train"]]},
    HOSTILE: {HOSTILE: ["Multiline", [HOSTILE]]},
}


def writer(kind: str, logdir: Path):
    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tensorboardX import SummaryWriter
    return SummaryWriter(str(logdir))


def value(run: str, tag: str, step: int) -> float:
    return {"a": 1.0, "b": 2.0}[run] * (step + 1) + len(tag) / 10


@pytest.fixture(scope="module", params=WRITERS)
def logdir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"cs_{request.param}")
    tags = {"a": ["loss/train", "loss/val", "acc", "val/mean", "val/lower", "val/upper"],
            "b": ["loss/train", "val/mean"]}
    for run, layout in (("a", LAYOUT_A), ("b", LAYOUT_B)):
        w = writer(request.param, root / run)
        w.add_custom_scalars(layout)
        for step in range(5):
            for tag in tags[run]:
                w.add_scalar(tag, value(run, tag, step), step)
        w.close()
    return root


@pytest.fixture
def page(make_board, logdir: Path) -> Page:
    return Page(make_board(logdir))


def charts(reply: dict) -> dict[tuple[str, str], dict]:
    return {(cat["title"], chart["title"]): chart for cat in reply["categories"] for chart in cat["charts"]}


def test_layouts_merge_across_runs_and_charts_resolve_per_run(page: Page) -> None:
    reply = page.decoded({"type": "custom_scalars", "id": 2, "runs": ["a", "b"]})
    assert (reply["type"], reply["id"], reply["layout_runs"], reply["problems"]) == ("custom_scalars", 2, ["a", "b"], [])
    titles = [(cat["title"], [c["title"] for c in cat["charts"]]) for cat in reply["categories"]]
    # the writers keep the dict's order of charts; categories in order of first appearance
    assert [t for t, _ in titles] == ["Losses", "Bands", HOSTILE]
    assert sorted(titles[0][1]) == ["all losses", "bad regex", "train only"]
    got = charts(reply)
    losses = got[("Losses", "all losses")]
    assert (losses["kind"], losses["regexes"], losses["errors"]) == ("multiline", ["loss/.*"], [])
    assert losses["tags"] == {"a": ["loss/train", "loss/val"], "b": ["loss/train"]}
    band = got[("Bands", "val band")]
    assert band["kind"] == "margin" and band["margin"] == [{"value": "val/mean", "lower": "val/lower", "upper": "val/upper"}]
    assert band["series"] == {"a": [["val/mean", "val/lower", "val/upper"]], "b": [["val/mean", None, None]]}
    hostile = got[(HOSTILE, HOSTILE)]
    assert hostile["regexes"] == [HOSTILE] and hostile["tags"] == {}


def test_an_invalid_regex_is_an_error_of_its_chart_alone(page: Page) -> None:
    got = charts(page.decoded({"type": "custom_scalars", "id": 2, "runs": ["a", "b"]}))
    bad = got[("Losses", "bad regex")]
    assert len(bad["errors"]) == 1 and "(unclosed" in bad["errors"][0]
    assert bad["tags"] == {"a": ["acc"]}  # its valid regex still applies
    assert all(not c["errors"] for key, c in got.items() if key != ("Losses", "bad regex"))


def test_only_the_asked_runs_are_resolved(page: Page) -> None:
    got = charts(page.decoded({"type": "custom_scalars", "id": 2, "runs": ["b"]}))
    assert got[("Losses", "all losses")]["tags"] == {"b": ["loss/train"]}
    assert got[("Bands", "val band")]["series"] == {"b": [["val/mean", None, None]]}
    error, _ = page.ask({"type": "custom_scalars", "id": 3, "runs": ["c"]})
    assert error["type"] == "error" and "'c'" in error["message"]


def test_a_charts_points_come_from_series_requests(page: Page) -> None:
    band = charts(page.decoded({"type": "custom_scalars", "id": 2, "runs": ["a"]}))[("Bands", "val band")]
    for tag in band["series"]["a"][0]:
        reply = page.decoded({"type": "series", "id": 9, "tag": tag, "runs": ["a"], "x_axis": "step",
                              "range": None, "width": 400})
        (entry,) = reply["series"]
        assert entry["step"].tolist() == list(range(5))
        np.testing.assert_allclose(entry["y"], [value("a", tag, s) for s in range(5)], rtol=1e-6)


def test_a_logdir_without_layouts_has_no_categories(make_board, tmp_path: Path) -> None:
    w = writer(WRITERS[0], tmp_path / "r")
    w.add_scalar("loss", 1.0, 0)
    w.close()
    reply = Page(make_board(tmp_path)).decoded({"type": "custom_scalars", "id": 1, "runs": ["r"]})
    assert reply["categories"] == [] and reply["layout_runs"] == []
