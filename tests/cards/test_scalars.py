"""Scalar cards against the series tensorboardX wrote: values, smoothing, colours, zoom, thinning."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.board.protocol import PALETTE
from tbnb.board.smoothing import smooth
from tests.smoothing_bounds import kernel_vs_loop

from .conftest import RUNS, STEPS, loss, traces_of

JS_SMOOTHING = Path(__file__).resolve().parents[2] / "js" / "src" / "smoothing.js"


def by_name(traces: list[dict]) -> dict[str, tuple[dict, dict]]:
    """run name -> (raw trace, smoothed trace)."""
    out = {}
    for raw, smoothed in zip(traces[::2], traces[1::2]):
        assert raw["name"] == smoothed["name"] and raw["opacity"] == 0.25 and smoothed["showlegend"]
        out[raw["name"]] = (raw, smoothed)
    return out


def test_raw_and_smoothed_lines_hold_the_written_values(logdir: Path) -> None:
    card = tbnb.card(logdir, "loss", smoothing=0.6)
    lines = by_name(traces_of(card))
    assert list(lines) == list(RUNS)
    for i, run in enumerate(RUNS):
        raw, smoothed = lines[run]
        expected = loss(i, np.arange(STEPS)).astype(np.float32)  # tensorboardX writes float32
        assert raw["x"].tolist() == list(range(STEPS))
        assert raw["y"].dtype == np.float32
        np.testing.assert_array_equal(raw["y"], expected)
        np.testing.assert_allclose(smoothed["y"], smooth(expected.astype(np.float64), 0.6), rtol=1e-6)
        assert smoothed["x"].tolist() == raw["x"].tolist()
    assert card.info["points"] == 3 * STEPS and card.info["drawn"] == 3 * STEPS
    assert "900 points (900 drawn" in card.summary and "smoothing 0.6" in card.summary


def test_smoothing_is_tensorboards_debiased_ema() -> None:
    # By hand: w = 0.5 over 1, 2, 3 -> 1, 1.25/0.75, 2.125/0.875; NaN passes through.
    out = smooth(np.array([1.0, 2.0, np.nan, 3.0]), 0.5)
    np.testing.assert_allclose(out[[0, 1, 3]], [1.0, 1.25 / 0.75, 2.125 / 0.875])
    assert np.isnan(out[2])
    np.testing.assert_array_equal(smooth(np.array([4.0, 4.0, 4.0]), 0.9), [4.0, 4.0, 4.0])


@pytest.mark.skipif(shutil.which("node") is None, reason="node is needed to run the page's smoothing")
def test_smoothing_equals_the_pages() -> None:
    values = np.random.default_rng(3).normal(size=200).tolist() + [float("nan")] + [1.5] * 5
    script = (f"import({json.dumps(JS_SMOOTHING.as_uri())}).then(m => console.log(JSON.stringify("
              f"Array.from(m.smooth({json.dumps(values, allow_nan=True).replace('NaN', 'NaN')}, 0.83), "
              "v => Number.isFinite(v) ? v : null))))")
    out = subprocess.run(["node", "-e", script], capture_output=True, text=True, check=True).stdout
    page = np.array([np.nan if v is None else v for v in json.loads(out)])
    got = smooth(np.array(values), 0.83)
    # Within the error bounds of the kernel's blocked sums and the page's loop (not a tolerance
    # read off one machine: the blocked product sums in an order the CPU chooses).
    assert np.array_equal(np.isnan(got), np.isnan(page))
    assert (np.abs(got - page)[~np.isnan(page)] <= kernel_vs_loop(np.array(values), 0.83)[~np.isnan(page)]).all()


def test_colours_are_the_palette_in_run_order_or_the_chosen_ones(logdir: Path) -> None:
    default = by_name(traces_of(tbnb.card(logdir, "loss")))
    assert [s["line"]["color"] for _, s in default.values()] == list(PALETTE[:3])
    chosen = by_name(traces_of(tbnb.card(logdir, "loss", run_colors={"b": "#123456"})))
    assert chosen["b"][0]["line"]["color"] == chosen["b"][1]["line"]["color"] == "#123456"
    assert chosen["a"][1]["line"]["color"] == PALETTE[0]


def test_runs_and_hidden_runs_choose_the_lines(logdir: Path) -> None:
    assert list(by_name(traces_of(tbnb.card(logdir, "loss", runs=["c/.*", "a"])))) == ["a", "c/x"]
    assert list(by_name(traces_of(tbnb.card(logdir, "loss", hidden_runs=["a"])))) == ["b", "c/x"]
    with pytest.raises(ValueError, match="no shown run"):
        tbnb.card(logdir, "loss", runs=["nothing"])
    with pytest.raises(ValueError, match="in no run"):
        tbnb.card(logdir, "no/such/tag")


def test_zoom_keeps_the_range_and_sets_the_axis(logdir: Path) -> None:
    card = tbnb.card(logdir, "loss", zoom={"loss": [250, 100]}, smoothing=0.5)
    figure = card._repr_mimebundle_()["application/vnd.plotly.v1+json"]
    assert figure["layout"]["xaxis"]["range"] == [100.0, 250.0]
    raw, smoothed = by_name(traces_of(card))["b"]
    assert raw["x"].tolist() == list(range(100, 251))
    # Smoothing runs over the whole series; the zoom only cuts what is drawn.
    full = smooth(loss(1, np.arange(STEPS)).astype(np.float32).astype(np.float64), 0.5)
    np.testing.assert_allclose(smoothed["y"], full[100:251], rtol=1e-6)
    assert "zoomed to 100–250" in card.summary


def test_long_series_are_thinned_keeping_extremes_and_the_last_step(logdir: Path) -> None:
    card = tbnb.card(logdir, "long", width=200, smoothing=0)
    raw, _ = by_name(traces_of(card))["a"]
    values = np.sin(np.arange(5000) / 50.0).astype(np.float32)
    assert len(raw["x"]) <= 2 * 200 + 2 < 5000
    assert raw["x"][0] == 0 and raw["x"][-1] == 4999
    assert raw["y"].max() == values.max() and raw["y"].min() == values.min()
    np.testing.assert_array_equal(raw["y"], values[raw["x"]])
    drawn = len(raw["x"])
    assert card.info == {"runs": ["a"], "points": 5000, "drawn": drawn, "last_steps": {"a": 4999}}
    title = card.figure.layout.title.text
    assert f"5,000 points ({drawn:,} drawn)" in title and f"5,000 points ({drawn:,} drawn" in card.summary


def test_x_axes(logdir: Path) -> None:
    # Seconds since the run's first event (tensorboardX's file header, written "now"), in
    # minutes or hours as the page chooses from the largest; 300 steps 2 s apart span 598 s.
    card = tbnb.card(logdir, "loss", x_axis="relative")
    relative = traces_of(card)[0]
    unit = {" min": 60.0, " h": 3600.0, " d": 86400.0}[card.figure.layout.xaxis.ticksuffix]
    assert float(relative["x"][-1] - relative["x"][0]) * unit == pytest.approx(598.0, abs=unit * 1e-3)
    wall = traces_of(tbnb.card(logdir, "loss", x_axis="wall"))[0]
    assert wall["x"].dtype == np.float64  # epoch milliseconds need float64
    shift = wall["x"][0] - 1_700_000_000_000.0
    assert abs(shift) <= 14 * 3600 * 1000 and shift % (15 * 60 * 1000) == 0  # a time zone's offset


def test_arrays_are_binary_and_compact(logdir: Path) -> None:
    figure = tbnb.card(logdir, "loss")._repr_mimebundle_()["application/vnd.plotly.v1+json"]
    trace = figure["data"][0]
    assert set(trace["x"]) == {"dtype", "bdata"} and trace["y"]["dtype"] == "f4"
    assert "template" not in figure["layout"]  # not plotly's 6 KB default template
    assert figure["config"]["displaylogo"] is False


def test_log_y(logdir: Path) -> None:
    assert tbnb.card(logdir, "loss", log_y=True).figure.layout.yaxis.type == "log"
