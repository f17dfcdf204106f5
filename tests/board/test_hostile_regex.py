"""Catastrophic regexes on every path where the kernel matches a pattern from the page or from a
Board setting (issue: a pattern a dozen characters long held the kernel for 18 s on a 29-character
run name). Each path must answer within a second on names where Python's backtracking ``re``
takes far longer (``test_python_re_backtracks_on_these_inputs`` shows that it does, in a
subprocess it kills): the kernel matches with RE2 (tbnb/reader/user_regex.py).

The logdir holds a run, a tag, a graph node, an embedding label and a custom-scalars layout all
named ``EVIL`` (48 ``a`` and a ``!``), next to ordinary ones.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tbnb
from tbnb.board.dashboards.common import shown_runs
from tbnb.testing import EventWriter

from .conftest import Page

torch = pytest.importorskip("torch")

EVIL = "a" * 48 + "!"
#: Exponential (or high-degree polynomial) for a backtracking engine on EVIL, in search and
#: full-match alike; linear for RE2.
HOSTILE = ["(a+)+$", "(a|aa)+$", "(.*a){20}$"]
#: What a path may take at most (the issue's bound: the kernel answers within a second).
BOUND_S = 1.0


def timed(fn: Callable[[], Any]) -> Any:
    start = time.perf_counter()
    out = fn()
    took = time.perf_counter() - start
    assert took < BOUND_S, f"took {took:.2f} s"
    return out


def test_python_re_backtracks_on_these_inputs() -> None:
    """The old engine on the same inputs: none of the searches ends within 1.5 s (each would
    take minutes to years), so a path answering in under a second is not matching with ``re``."""
    procs = [subprocess.Popen([sys.executable, "-c", f"import re; re.search({p!r}, {EVIL!r})"])
             for p in HOSTILE]
    time.sleep(1.5)
    try:
        assert [p.poll() for p in procs] == [None] * len(HOSTILE)
    finally:
        for p in procs:
            p.kill()
            p.wait()


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tensorboard.compat.proto import graph_pb2
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("hostile")
    for run in (EVIL, "b"):
        with EventWriter(root / run) as w:
            for step in range(3):
                w.add_scalar(EVIL, float(step), step)
                w.add_scalar("loss", float(step), step)
    g = graph_pb2.GraphDef()
    g.node.add(name=EVIL, op="NoOp")
    g.node.add(name="b", op="NoOp")
    with EventWriter(root / "b") as w:
        w.add_graph_def(g.SerializeToString())
    w = SummaryWriter(str(root / "emb"))
    feats = np.random.default_rng(0).normal(size=(4, 3)).astype(np.float32)
    w.add_embedding(torch.from_numpy(feats), metadata=[EVIL, "b", EVIL, "c"], tag="feats")
    w.add_custom_scalars({"cat": {"hostile": ["Multiline", HOSTILE]}})
    w.add_scalar("loss", 1.0, 0)
    w.close()
    return root


@pytest.fixture
def board(make_board: Callable[..., Any], logdir: Path) -> Iterator[Any]:
    yield make_board(logdir)


@pytest.mark.parametrize("pattern", HOSTILE)
def test_run_filters_and_board_view(board: Any, pattern: str) -> None:
    board.runs = [pattern]
    assert timed(lambda: set(board.view["run"])) == set()
    board.runs = [".*"]
    board.hidden_patterns = [pattern]
    assert timed(lambda: set(board.view["run"])) == {EVIL, "b", "emb"}
    board.hidden_patterns = [f"(?!(?:b)$)(?:{pattern}|b)"]  # the page's narrowed form
    assert timed(lambda: set(board.view["run"])) == {EVIL, "b", "emb"}
    board.hidden_patterns = []
    board.tag_filter = pattern
    assert timed(lambda: set(board.view["tag"])) == set()
    assert timed(lambda: shown_runs([EVIL] * 200, [pattern], [], [pattern])) == []


@pytest.mark.parametrize("pattern", HOSTILE)
def test_run_groups_in_series_step_table_and_pandas(board: Any, pattern: str) -> None:
    page = Page(board)
    by = f"(?P<group>{pattern})"
    groups = {"by": by, "line": "mean", "band": "std"}
    reply = timed(lambda: page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": [EVIL, "b"],
                                        "width": 400, "groups": groups}))
    assert reply["type"] == "series" and reply["groups"] == []
    reply = timed(lambda: page.decoded({"type": "step_table", "id": 2, "tag": "loss", "runs": [EVIL, "b"],
                                        "groups": groups}))
    assert reply["type"] == "step_table"
    board.run_groups = by
    frame = timed(lambda: board.logdir.to_pandas(groups=by))
    assert set(frame["group"]) >= {EVIL, "b"}  # no group formed: each run alone


@pytest.mark.parametrize("pattern", HOSTILE)
def test_graph_search(board: Any, pattern: str) -> None:
    page = Page(board)
    reply = timed(lambda: page.decoded({"type": "graph", "id": 1, "run": "b", "tag": "", "what": "search",
                                        "pattern": pattern}))
    assert reply["type"] == "graph" and reply["error"] is None and reply["total"] == 0
    board.graph_search = pattern
    assert board.graph_search == pattern


@pytest.mark.parametrize("pattern", HOSTILE)
def test_projector_search_and_custom_projection(make_board: Callable[..., Any], logdir: Path, pattern: str) -> None:
    board = make_board(logdir, dashboard="projector", projector_run="emb")
    board.projector_search = "^b$"
    assert board.projector_selection == [1]
    timed(lambda: setattr(board, "projector_search", pattern))
    assert board.projector_selection == []
    page = Page(board)
    reply = timed(lambda: page.decoded({"type": "projector_points", "id": 1, "run": "emb",
                                        "embedding": "feats:00000", "method": "custom", "dims": 2,
                                        "params": {"left": pattern, "right": "b", "up": pattern, "down": "c"}}))
    assert reply["type"] == "projector_points" and reply["state"] == "done"


def test_custom_scalars_layout(board: Any) -> None:
    reply = timed(lambda: Page(board).decoded({"type": "custom_scalars", "id": 1, "runs": [EVIL, "b", "emb"]}))
    chart = reply["categories"][0]["charts"][0]
    assert chart["regexes"] == HOSTILE and chart["errors"] == []
    assert chart["tags"] == {}


def test_unsupported_patterns_are_clear_errors(board: Any) -> None:
    """What RE2 cannot run is refused at once with its reason, from Python and from the page."""
    from traitlets import TraitError

    for trait in ("runs", "hidden_patterns"):
        with pytest.raises(TraitError, match=r"invalid regular expression '\(a\)\\\\1'.*RE2"):
            setattr(board, trait, [r"(a)\1"])
    with pytest.raises(TraitError, match="invalid perl operator"):
        board.hidden_patterns = ["(?!b$).*"]  # a lookahead other than the page's narrowed form
    assert board.hidden_patterns == []
    with pytest.raises(TraitError, match="graph_search"):
        board.graph_search = "(?<=a)b"
    with pytest.raises(ValueError, match="run_groups"):
        tbnb.load(board.logdir.path).to_pandas(groups=r"(?P<group>a)(?P=group)")
    page = Page(board)
    reply = page.decoded({"type": "series", "id": 1, "tag": "loss", "runs": ["b"], "width": 10,
                          "groups": {"by": "(?P<group>(?=a))"}})
    assert reply["type"] == "error" and "run_groups" in reply["message"]
