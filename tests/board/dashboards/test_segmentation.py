"""The segmentation card's requests (``segmentation_steps``, ``segmentation``) as the page sends
them, on logs written by ``tbnb.log_segmentation`` through tbnb's, tensorboardX's and torch's
writers: steps, classes and colours, the image and masks back exactly, each class's IoU, the
errors, the bounds, and the pushed steps while training writes."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.board.codec import decode
from tbnb.testing import EventWriter
from tests.segmentation_logs import WRITERS, make_writer

from ..conftest import Page

H, W = 9, 14
NAMES = ["background", "road", "car"]
PALETTE = ["#000000", "#ff0000", "#00ff00"]


def _sample(step: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(step)
    image = rng.integers(0, 256, size=(H, W, 3), dtype=np.uint8)
    label = rng.integers(0, 3, size=(H, W))
    prediction = label.copy()
    prediction[: step % H + 1, :4] = (label[: step % H + 1, :4] + 1) % 3  # some wrong pixels
    return image, label, prediction


def _write(writer: object, steps: list[int], tag: str = "val/s") -> None:
    for step in steps:
        image, label, prediction = _sample(step)
        tbnb.log_segmentation(writer, tag, image, label, prediction, step, classes=NAMES, palette=PALETTE,
                              dataformats="HWC")


@pytest.fixture
def logs(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    writer = make_writer(request.param, tmp_path / "seg")
    _write(writer, [0, 5, 10])
    writer.close()
    with EventWriter(tmp_path / "plain") as w:
        w.add_image("val/s/image", np.zeros((H, W, 3), np.uint8), 0)  # an image alone: not a segmentation
        w.add_scalar("loss", 1.0, 0)
    return tmp_path


def _steps(page: Page, runs: list[str], tag: str = "val/s/prediction") -> dict:
    return page.decoded({"type": "segmentation_steps", "id": 3, "tag": tag, "runs": runs})


def _step(page: Page, step: int, run: str = "seg", tag: str = "val/s") -> dict:
    return page.decoded({"type": "segmentation", "id": 4, "tag": tag, "run": run, "step": step})


def _error(page: Page, content: dict) -> str:
    reply, buffers = page.ask({"id": 9, **content})
    assert reply["type"] == "error" and buffers == []
    return reply["message"]


def _iou_by_sets(label: np.ndarray, prediction: np.ndarray, c: int) -> float:
    truth = {tuple(p) for p in np.argwhere(label == c)}
    guess = {tuple(p) for p in np.argwhere(prediction == c)}
    return len(truth & guess) / len(truth | guess) if truth | guess else math.nan


@pytest.mark.parametrize("logs", WRITERS, indirect=True)
def test_steps_and_each_step_read_back_exactly(make_board, logs: Path) -> None:
    page = Page(make_board(logs))
    reply = _steps(page, ["plain", "seg"])
    assert (reply["type"], reply["id"], reply["tag"], reply["segmentation"]) == (
        "segmentation_steps", 3, "val/s/prediction", "val/s")
    (entry,) = reply["series"]  # "plain" has an image of that name but no segmentation: skipped
    assert entry == {"run": "seg", "steps": [0, 5, 10], "classes": NAMES, "palette": PALETTE, "error": None}
    for step in (0, 5, 10):
        image, label, prediction = _sample(step)
        got = _step(page, step)
        assert (got["type"], got["run"], got["tag"], got["step"]) == ("segmentation", "seg", "val/s", step)
        assert (got["width"], got["height"], got["classes"], got["palette"]) == (W, H, NAMES, PALETTE)
        assert got["image"].dtype == np.uint8 and got["image"].shape == (H, W, 4)
        np.testing.assert_array_equal(got["image"][..., :3], image)
        assert (got["image"][..., 3] == 255).all()
        assert got["label"].dtype == np.uint8 and got["prediction"].dtype == np.uint8
        np.testing.assert_array_equal(got["label"], label)
        np.testing.assert_array_equal(got["prediction"], prediction)
        assert (got["label"] != got["prediction"]).sum() == (label != prediction).sum() > 0
        # the same integer ratios: exactly equal, NaN where a class is in neither mask
        np.testing.assert_array_equal(got["iou"], [_iou_by_sets(label, prediction, c) for c in range(3)])


def test_errors_name_what_is_wrong(make_board, tmp_path: Path) -> None:
    with EventWriter(tmp_path / "seg") as w:
        _write(w, [0, 5])
    page = Page(make_board(tmp_path))
    assert "has no step 3; steps: [0, 5]" in _error(page, {"type": "segmentation", "tag": "val/s", "run": "seg",
                                                           "step": 3})
    assert "no segmentation 'val'" in _error(page, {"type": "segmentation", "tag": "val", "run": "seg", "step": 0})
    # the page names runs, never paths: a path is an unknown run, whatever it points at
    for run in ("../seg", str(tmp_path / "seg"), "seg/.."):
        assert "unknown run" in _error(page, {"type": "segmentation", "tag": "val/s", "run": run, "step": 0})
        assert "unknown run" in _error(page, {"type": "segmentation_steps", "tag": "val/s/prediction",
                                              "runs": [run]})
    assert "by its prediction series" in _error(page, {"type": "segmentation_steps", "tag": "val/s",
                                                       "runs": ["seg"]})
    assert "no requested run has a segmentation 'nope'" in _error(
        page, {"type": "segmentation_steps", "tag": "nope/prediction", "runs": ["seg"]})
    assert "'step' must be an integer" in _error(page, {"type": "segmentation", "tag": "val/s", "run": "seg",
                                                        "step": "0"})
    assert "outside int64" in _error(page, {"type": "segmentation", "tag": "val/s", "run": "seg", "step": 2 ** 63})


def test_pixels_over_max_blob_bytes_are_refused(make_board, tmp_path: Path) -> None:
    with EventWriter(tmp_path / "seg") as w:
        _write(w, [0])
    need = H * W * (4 + 2)  # RGBA and two uint8 masks
    board = make_board(tmp_path, max_blob_bytes=need - 1)
    page = Page(board)
    assert f"take {need:,} bytes, over max_blob_bytes ({need - 1:,})" in _error(
        page, {"type": "segmentation", "tag": "val/s", "run": "seg", "step": 0})
    board.max_blob_bytes = need
    assert _step(page, 0)["width"] == W


def test_new_steps_are_pushed_while_training_writes(make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "seg")
    _write(writer, [0])
    writer.flush()
    page = Page(make_board(tmp_path))
    assert _steps(page, ["seg"])["series"][0]["steps"] == [0]
    _write(writer, [7])
    writer.flush()
    page.board._poll_tick()
    pushes = [decode(c, b) for c, b in page.recorder.sent if c.get("push")]
    (push,) = pushes
    assert push["type"] == "segmentation_steps" and push["id"] == 3 and push["series"][0]["steps"] == [0, 7]
    assert push["runs"] == ["seg"]
    writer.add_scalar("loss", 1.0, 8)  # another tag: nothing to push
    writer.flush()
    page.board._poll_tick()
    assert len([c for c, _ in page.recorder.sent if c.get("push")]) == 1
    writer.close()


def test_the_media_view_code_is_sent_or_missing_is_an_error(make_board, tmp_path: Path, bundle: Path) -> None:
    with EventWriter(tmp_path / "seg") as w:
        _write(w, [0])
    page = Page(make_board(tmp_path))
    assert "media_view.js is missing" in _error(page, {"type": "media_code"})
    (bundle.parent / "media_view.js").write_text("globalThis.__tbnb_media_view__ = {};")
    reply, buffers = page.ask({"type": "media_code", "id": 2})
    assert reply == {"type": "media_code", "id": 2, "size": len(bytes(buffers[0]))}
    assert bytes(buffers[0]).startswith(b"globalThis.__tbnb_media_view__")
