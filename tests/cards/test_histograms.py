"""Histogram and distribution cards against the dashboards' own rebinning and compression."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.board.dashboards.distributions import distribution_entries
from tbnb.board.dashboards.histograms import histogram_entries
from tbnb.board.protocol import PALETTE
from tbnb.cards.colors import ramp_color
from tbnb.cards.histograms import thin_indices
from tbnb.cards.view import CardView

from .conftest import HIST_STEPS, RUNS, traces_of


def entries(logdir: Path, make) -> dict[str, dict]:
    view = CardView.from_logdir(logdir)
    return {e["run"]: e for e in make(view.source, "w", list(RUNS), "step")}


def panel(traces: list[dict], index: int) -> list[dict]:
    axis = "x" if index == 0 else f"x{index + 1}"
    return [t for t in traces if t["xaxis"] == axis]


def test_offset_ridges_are_the_rebinned_counts(logdir: Path) -> None:
    card = tbnb.card(logdir, "w")
    assert card.kind == "histograms" and "offset" in card.summary
    traces, expected = traces_of(card), entries(logdir, histogram_entries)
    for i, run in enumerate(RUNS):
        ridges = panel(traces, i)
        counts = expected[run]["counts"]
        assert len(ridges) == len(HIST_STEPS)
        heights = np.array([float(r["y"][0]) - r["y"][1:-1] for r in ridges])  # baseline - top
        np.testing.assert_allclose(heights / heights.max(), counts / counts.max(), rtol=1e-5, atol=1e-6)
        assert [float(r["y"][0]) for r in ridges] == list(HIST_STEPS)  # each ridge stands on its step
        assert ridges[0]["fillcolor"] == ramp_color(PALETTE[i], 0.0)  # first step: brighter
        assert ridges[-1]["fillcolor"] == ramp_color(PALETTE[i], 1.0)  # last step: darker
    layout = card.figure.layout
    assert layout.yaxis.range[0] > layout.yaxis.range[1]  # time runs down the panel


def test_overlay_lines_are_the_counts(logdir: Path) -> None:
    card = tbnb.card(logdir, "w", mode="overlay")
    lines, expected = panel(traces_of(card), 1), entries(logdir, histogram_entries)["b"]
    np.testing.assert_allclose(np.array([ln["y"][1:-1] for ln in lines]), expected["counts"], rtol=1e-6)
    centres = (expected["edges"][:-1] + expected["edges"][1:]) / 2
    np.testing.assert_allclose(lines[0]["x"][1:-1], centres, rtol=1e-6)
    assert card.figure.layout.yaxis2.rangemode == "tozero"


def test_distribution_bands_and_median(logdir: Path) -> None:
    card = tbnb.card(logdir, "w", "distributions")
    traces, expected = traces_of(card), entries(logdir, distribution_entries)
    for i, run in enumerate(RUNS):
        drawn = panel(traces, i)
        assert len(drawn) == 9  # four bands (two edges each) and the median
        values = expected[run]["values"]
        for k, column in enumerate((0, 8, 1, 7, 2, 6, 3, 5)):
            np.testing.assert_allclose(drawn[k]["y"], values[:, column], rtol=1e-6)
        np.testing.assert_allclose(drawn[8]["y"], values[:, 4], rtol=1e-6)
        assert drawn[8]["line"]["color"] == PALETTE[i] and drawn[8]["x"].tolist() == list(HIST_STEPS)


def test_at_most_100_steps_evenly_spread() -> None:
    picked = thin_indices(1000, 100)
    assert len(picked) == 100 and picked[0] == 0 and picked[-1] == 999
    assert thin_indices(5, 100) == [0, 1, 2, 3, 4]


def test_a_scalar_tag_is_not_a_histogram(logdir: Path) -> None:
    with pytest.raises(ValueError, match="no shown run has histogram tag 'loss'"):
        tbnb.card(logdir, "loss", "histograms")
