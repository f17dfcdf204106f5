"""The router answers anything the page may send, for every request type (hypothesis): random and
adversarial field values always get one reply (the type's own or an ``error``), never an
exception, within a second each.

The request types are read from the registry (``dashboards.handlers()``) and the Board's core,
so a dashboard added later is covered without touching this file. Each request mixes fields of
plausible values (real runs, tags, steps, embeddings of a logdir holding every plugin) with
hostile ones: catastrophic regexes, paths out of the logdir, numbers past int64, non-finite
floats, strings and lists over the bounds, deep nesting, wrong types.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tbnb.board import bounds, dashboards
from tbnb.board.projector import service
from tbnb.testing import write_demo_logdir

torch = pytest.importorskip("torch")

#: Every request type the router answers: the dashboards' and the Board's core.
CORE_TYPES = ["index", "plotly"]
REQUEST_TYPES = sorted([*dashboards.handlers(), *CORE_TYPES])
BOUND_S = 1.0
EVIL = "a" * 48 + "!"
EXAMPLES = 60  # per request type: about 20 s for the 26 types on a shared CI core


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from torch.utils.tensorboard import SummaryWriter

    root = write_demo_logdir(tmp_path_factory.mktemp("every_plugin"))
    w = SummaryWriter(str(root / "extra"))
    w.add_embedding(torch.from_numpy(np.random.default_rng(0).normal(size=(8, 4)).astype(np.float32)),
                    metadata=[f"p{i}" for i in range(8)], tag="emb")
    w.add_custom_scalars({"c": {"chart": ["Multiline", ["loss.*", "(a+)+$"]]}})
    w.add_mesh("mesh", vertices=torch.zeros(1, 3, 3), faces=torch.tensor([[[0, 1, 2]]]), global_step=0)
    w.add_hparams({"lr": 0.1}, {"hparam/acc": 0.5}, run_name="trial")
    w.close()
    w = SummaryWriter(str(root / EVIL))  # a name the hostile regexes backtrack on in Python's re
    w.add_scalar("loss/train", 1.0, 0)
    w.close()
    return root


@pytest.fixture(scope="module")
def board(logdir: Path) -> Iterator[Any]:
    from tbnb.board.widget import Board

    b = Board(logdir, reload_interval=0)
    yield b
    service.JOBS.stop()
    b.close()


#: The fields each request type needs (protocol.md), filled with plausible values before some
#: are made hostile; a type not named here (a new dashboard's) starts from no fields and is
#: still sent every field of the pool.
NEEDS: dict[str, tuple[str, ...]] = {
    "series": ("tag", "runs", "width"), "csv": ("tag", "runs"), "json": ("tag", "runs"),
    "step_table": ("tag", "runs"), "histograms": ("tag", "runs"), "distributions": ("tag", "runs"),
    "blobs": ("tag", "runs"), "blob": ("tag", "run", "step"), "text": ("tag", "run"),
    "pr_curves": ("tag", "runs"), "custom_scalars": ("runs",), "mesh": ("tag", "runs"),
    "graph": ("run", "tag", "what"), "projector_metadata": ("run", "embedding"),
    "projector_sprite": ("run", "embedding"), "projector_neighbors": ("run", "embedding", "index", "k"),
    "projector_points": ("run", "embedding", "method", "dims"), "projector_stop": ("run", "embedding", "method", "dims"),
}
#: The plugins whose tags a request type asks for.
PLUGINS: dict[str, tuple[str, ...]] = {
    "series": ("scalars",), "csv": ("scalars",), "json": ("scalars",), "step_table": ("scalars",),
    "histograms": ("histograms",), "distributions": ("histograms",), "blobs": ("images", "audio", "text"),
    "blob": ("images", "audio"), "text": ("text",), "pr_curves": ("pr_curves",), "graph": ("graphs",),
}


def plausible(board: Any, kind: str) -> dict[str, st.SearchStrategy[Any]]:
    """Values a real page would send, field by field, from the board's own runs, tags and steps."""
    source = board.logdir
    wanted = PLUGINS.get(kind)
    tags = sorted({t for r in source.runs() for t, p in source.tags(r).items() if wanted is None or p in wanted})
    tag = st.sampled_from([""] if kind == "graph" else ["mesh"] if kind == "mesh" else tags or [""])
    holding = sorted(r for r in source.runs() if wanted is None or set(source.tags(r).values()) & set(wanted))
    run = st.sampled_from(["extra"] if kind.startswith("projector") else holding or ["."])
    steps = sorted({int(s) for r in source.runs() for t, p in source.tags(r).items() if p not in ("scalars", "graphs")
                    for s in source.tensors(r, t).step})
    return {
        "run": run, "tag": tag, "runs": st.lists(run, min_size=1, max_size=3), "step": st.sampled_from(steps),
        "index": st.integers(-1, 9), "width": st.floats(1, 2000), "range": st.lists(st.floats(-10, 500), min_size=2, max_size=2),
        "x_axis": st.sampled_from(["step", "relative", "wall", "log_step", "relative_step", "loss/train"]),
        "best": st.sampled_from(["min", "max", None]), "smoothing": st.floats(0, 1), "ranged": st.booleans(),
        "groups": st.fixed_dictionaries({"by": st.sampled_from(["(?P<group>.*)/lr_.*", "(?P<group>(a+)+$)", "(?P<group>(a|aa)+)", ["lr"]]),
                                         "line": st.sampled_from(["mean", "median"]), "band": st.sampled_from(["std", "none"])}),
        "what": st.sampled_from(["levels", "search", "info", "trace"]), "pattern": st.sampled_from(["Mat.*", "(a|aa)+$", "("]),
        "limit": st.integers(-1, 50), "expanded": st.lists(st.sampled_from(["MatMul", "x", "nope"]), max_size=3),
        "series": st.dictionaries(st.text(max_size=5), st.booleans(), max_size=2), "name": st.sampled_from(["MatMul", "Relu", ""]),
        "include": st.dictionaries(st.text(max_size=5), st.booleans(), max_size=2),
        "embedding": st.sampled_from(["emb:00000", "emb:00000", "nope"]),
        "method": st.sampled_from(["pca", "custom", "tsne", "umap"]), "dims": st.sampled_from([2, 3]),
        "params": st.sampled_from([{}, {"iterations": 10}, {"left": "(a+)+$", "right": "p1"}, {"components": [0, 1]}]),
        "k": st.integers(1, 20), "metric": st.sampled_from(["cosine", "euclidean"]), "rerun": st.booleans(),
        "steps": st.dictionaries(run, st.integers(0, 400), max_size=2), "sample": st.integers(-1, 3),
        "join": st.sampled_from(["", "parent"]), "bundle": st.sampled_from(["cartesian", "full"]), "auto_extract": st.booleans(),
    }


HOSTILE_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.sampled_from([2 ** 63, -(2 ** 63) - 1, 10 ** 40]),
    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=20),
    st.sampled_from(["(a+)+$", "(.*a){20}$", "(?!x)", r"(a)\1", "../../etc", "/etc/passwd", "~", "\x00", "a" * 60 + "!",
                     "x" * (bounds.MAX_STRING + 1)]),
)


def nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


HOSTILE = st.one_of(  # scalars three times out of five: a wrong type is the commonest mistake
    HOSTILE_SCALARS, HOSTILE_SCALARS, HOSTILE_SCALARS,
    st.recursive(HOSTILE_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(st.text(max_size=6), inner, max_size=4)),
                 max_leaves=12),
    st.sampled_from([nested(bounds.MAX_DEPTH + 1), nested(5000), ["run"] * (bounds.MAX_ENTRIES + 1)]),
)


DROP = object()


@st.composite
def requests(draw: st.DrawFn, kind: str, fields: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """A request of ``kind``: its needed fields plausible plus up to three more of the pool, then
    up to two of its fields (the id among them) made hostile or dropped."""
    content: dict[str, Any] = {"type": kind, "id": draw(st.integers(0, 1000))}
    for name in NEEDS.get(kind, ()):
        content[name] = draw(fields[name])
    for name in draw(st.lists(st.sampled_from(sorted(fields)), max_size=3, unique=True)):
        content[name] = draw(fields[name])
    for name in draw(st.lists(st.sampled_from(sorted(set(content) - {"type"})), max_size=2, unique=True)):
        value = draw(st.one_of(st.just(DROP), HOSTILE))
        if value is DROP:
            del content[name]
        else:
            content[name] = value
    return content


def one_reply(board: Any, content: Any) -> dict[str, Any]:
    """The router's reply to ``content`` sent as the page would; fails on an exception, on a
    number of replies other than one, and on an answer slower than BOUND_S."""
    sent: list[tuple[dict[str, Any], list[Any]]] = []
    router = board._router
    saved = router._send
    router._send = lambda reply, buffers: sent.append((reply, buffers))
    try:
        start = time.perf_counter()
        router.on_msg(content, [])
        took = time.perf_counter() - start
    finally:
        router._send = saved
    assert len(sent) == 1, sent
    reply = sent[0][0]
    assert isinstance(reply, dict) and isinstance(reply.get("type"), str)
    if reply["type"] == "error":
        assert isinstance(reply["message"], str) and len(reply["message"]) <= 2_003
    assert took < BOUND_S, f"{took:.2f} s for {str(content)[:300]}"
    return reply


PROFILE = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.function_scoped_fixture])


def run_property(board: Any, kind: str) -> None:
    fields = plausible(board, kind)

    @PROFILE
    @given(content=requests(kind, fields))
    def check(content: dict[str, Any]) -> None:
        reply = one_reply(board, content)
        # an answer (not an error) is to this request: its id (the core's replies carry none)
        assert reply["type"] == "error" or kind not in dashboards.handlers() or reply["id"] == content["id"]

    check()


@pytest.mark.parametrize("kind", REQUEST_TYPES)
def test_any_request_gets_one_reply_in_time(board: Any, kind: str) -> None:
    run_property(board, kind)


def test_core_types_added_later_are_covered(board: Any) -> None:
    """The Board's own request types (its core, not the registry) that this file does not name."""
    for kind in sorted(set(board._router.request_types) - set(REQUEST_TYPES)):
        run_property(board, kind)
    assert set(CORE_TYPES) <= set(board._router.request_types)


@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=HOSTILE)
def test_anything_at_all_gets_one_reply(board: Any, content: Any) -> None:
    """Not even an object: a list, a string, a number, null, an object without a type."""
    assert one_reply(board, content)["type"] == "error"
