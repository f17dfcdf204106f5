"""Custom-scalar layouts from torch and tensorboardX: merged across runs, charts resolved to tags."""

from __future__ import annotations

import pytest

import tbnb
from tbnb.format.proto import layout_pb2
from tbnb.reader.plugins import custom_scalars as cs

from ..conftest import WRITERS
from .conftest import needs_tensorboard


def _charts(layout: cs.Layout) -> list[tuple[str, list[tuple[str, str]]]]:
    return [(c.title, [(ch.title, ch.kind) for ch in c.charts]) for c in layout.categories]


@pytest.mark.parametrize("writer", WRITERS)
def test_layouts_merge_by_category_title_in_run_order(custom_scalars_logdir, writer):
    lg = tbnb.load(custom_scalars_logdir.root / writer)
    layout = cs.read_layout(lg)
    assert layout.problems == []
    want = [("Losses", [("losses", "multiline"), ("anchored", "multiline"), ("accuracy", "multiline")]),
            ("Bands", [("band", "margin")]),
            ("Extra", [("empty regex", "multiline")])]
    if writer == "tbx":  # one layout per helper call, both at step 0: the reader keeps the last
        want.append(("Helpers", [("margin", "margin")]))
    assert _charts(layout) == want
    assert layout.runs == (("a", "b", "c") if writer == "tbx" else ("a", "b"))
    losses = layout.categories[0]
    assert losses.charts[0].tags == ("loss/.*", "acc(") and losses.charts[2].tags == ("acc$", "val/.*")
    assert layout.categories[1].charts[0].series == (cs.MarginSeries("m/value", "m/lower", "m/upper"),)


@pytest.mark.parametrize("writer", WRITERS)
def test_charts_resolve_to_each_runs_scalar_tags(custom_scalars_logdir, writer):
    lg = tbnb.load(custom_scalars_logdir.root / writer)
    resolved = {(cat.title, r.chart.title): r for cat, charts in cs.resolve(lg) for r in charts}
    losses = resolved[("Losses", "losses")]
    assert losses.tags == {"a": ["loss/train", "loss/val"], "b": ["loss/train"]}
    assert len(losses.errors) == 1 and "'acc('" in losses.errors[0]  # the bad regex alone is reported
    anchored = resolved[("Losses", "anchored")]  # re.match: "val/loss" does not start with "loss"
    assert anchored.tags == {"a": ["loss/train", "loss/val"], "b": ["loss/train"]} and anchored.errors == []
    assert resolved[("Losses", "accuracy")].tags == {"a": ["acc", "val/loss"], "b": ["acc"]}
    band = resolved[("Bands", "band")]
    assert band.series == {"a": [("m/value", "m/lower", "m/upper")], "b": [("m/value", None, None)]}
    assert band.tags == {} and band.errors == []
    empty = resolved[("Extra", "empty regex")]
    assert empty.tags == {} and empty.errors == ["empty regular expression"]
    only_b = cs.resolve(lg, runs=["b"])
    assert {r.chart.title: r.tags for _, charts in only_b for r in charts}["losses"] == {"b": ["loss/train"]}


def test_merge_skips_equal_charts_and_keeps_later_ones():
    def layout(*cats):
        out = layout_pb2.Layout()
        for title, charts in cats:
            c = out.category.add(title=title)
            for chart_title, tags in charts:
                c.chart.add(title=chart_title).multiline.tag.extend(tags)
        return out

    first = layout(("A", [("x", ["x"])]))
    second = layout(("B", [("y", ["y"])]))
    third = layout(("B", [("y", ["y"]), ("z", ["z"])]), ("A", [("x", ["other"])]))
    merged = cs.from_proto(cs.merge_layouts([first, second, third]))
    assert _charts(merged) == [("A", [("x", "multiline"), ("x", "multiline")]),
                               ("B", [("y", "multiline"), ("z", "multiline")])]
    assert merged.categories[0].charts[1].tags == ("other",)  # same title, other tags: another chart


def test_neither_kind_of_chart_is_an_error_on_that_chart():
    chart = cs.Chart("nothing", "")
    assert cs.resolve_chart(None, chart, [], scalars={}).errors == [
        "chart is neither a multiline nor a margin chart"]
    with pytest.raises(cs.LayoutError):
        cs.parse_layout(b"\x0a\xff")


@needs_tensorboard
def test_an_undecodable_layout_is_a_problem(custom_scalars_logdir):
    lg = tbnb.load(custom_scalars_logdir.root / "tb")
    layout = cs.read_layout(lg)
    assert layout.categories == () and layout.runs == ()
    assert [(p.run, p.tag, p.step) for p in layout.problems] == [("bad", "custom_scalars__config__", 0)]
    assert "does not decode" in layout.problems[0].message


@needs_tensorboard
def test_layouts_written_at_several_steps_of_a_run_all_count(tmp_path):
    import numpy as np
    from tensorboard.plugins.custom_scalar import layout_pb2 as tb_layout_pb2

    from .conftest import tb_event, tb_tensor_value, tb_writer

    w = tb_writer(tmp_path / "run")
    for step, title in ((0, "first"), (1, "second")):
        layout = tb_layout_pb2.Layout()
        layout.category.add(title="C").chart.add(title=title).multiline.tag.append(title)
        data = np.array(layout.SerializeToString(), dtype=object)
        tb_event(w, tb_tensor_value("custom_scalars__config__", data, "custom_scalars", b""), step)
    w.close()
    layout = cs.read_layout(tbnb.load(tmp_path))
    assert _charts(layout) == [("C", [("first", "multiline"), ("second", "multiline")])]
