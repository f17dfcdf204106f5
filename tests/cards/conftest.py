"""A logdir written by tensorboardX (a real writer) with every kind of card, and boards on it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from tbnb.board import assets

RUNS = ("a", "b", "c/x")
STEPS = 300
HIST_STEPS = range(0, 50, 5)
IMAGE_STEPS = (0, 10, 20)
AUDIO_RATE = 8000


def loss(run_index: int, steps: np.ndarray) -> np.ndarray:
    """A noisy decaying curve per run (deterministic)."""
    rng = np.random.default_rng(run_index)
    return (1.0 + run_index) * np.exp(-steps / 100.0) + rng.normal(0, 0.05, steps.size)


def image(run_index: int, step: int) -> np.ndarray:
    """A small HWC uint8 image that differs per run and step."""
    return ((np.arange(8 * 12 * 3).reshape(8, 12, 3) * (run_index + 3) + step) % 256).astype(np.uint8)


@pytest.fixture(scope="session")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scalars ``loss`` (300 steps) and ``long`` (5,000 steps, run a only), histograms ``w``,
    images ``img``, audio ``tone`` and text ``notes/text_summary`` (TF1 naming) in runs a, b and c/x, by tensorboardX."""
    from tensorboardX import SummaryWriter

    root = tmp_path_factory.mktemp("cards")
    steps = np.arange(STEPS)
    for i, run in enumerate(RUNS):
        with SummaryWriter(str(root / run)) as w:
            for step, value in zip(steps.tolist(), loss(i, steps).tolist()):
                w.add_scalar("loss", value, step, walltime=1_700_000_000.0 + 2.0 * step + i)
            if run == "a":
                for step, value in enumerate(np.sin(np.arange(5000) / 50.0).tolist()):
                    w.add_scalar("long", value, step, walltime=1_700_000_000.0 + step)
            rng = np.random.default_rng(10 + i)
            for step in HIST_STEPS:
                w.add_histogram("w", rng.normal(i + step / 50.0, 1.0, 500), step)
            for step in IMAGE_STEPS:
                w.add_image("img", image(i, step), step, dataformats="HWC")
            tone = np.sin(np.arange(AUDIO_RATE // 10) * 2 * np.pi * 440 / AUDIO_RATE).astype(np.float32) * 0.5
            w.add_audio("tone", tone, 3, sample_rate=AUDIO_RATE)
            w.add_text("notes", f"run **{run}** <b>bold</b> & <script>window.__pwned=1</script>", 7)
    return root


@pytest.fixture
def bundle(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in for the built JS bundle, so that a Board can be made without the JS build."""
    path = tmp_path / "board.js"
    path.write_text("export default { render({ el }) { el.textContent = 'test bundle'; } };\n")
    monkeypatch.setattr(assets, "BUNDLE", path)
    monkeypatch.setattr(assets, "STYLES", path.with_suffix(".css"))
    return path


@pytest.fixture
def make_board(bundle: Path) -> Iterator[Callable[..., Any]]:
    """Board factory (no polling); every board is closed at teardown."""
    from tbnb.board.widget import Board

    boards: list[Board] = []

    def make(*args: Any, **kwargs: Any) -> Board:
        board = Board(*args, reload_interval=0, **kwargs)
        boards.append(board)
        return board

    yield make
    for board in boards:
        board.close()


def traces_of(card: Any) -> list[dict[str, Any]]:
    """The card's plotly traces as the mimebundle carries them, binary arrays decoded."""
    from .decode import decode_figure

    return decode_figure(card._repr_mimebundle_()["application/vnd.plotly.v1+json"])["data"]
