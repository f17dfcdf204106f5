"""IoU of segmentations as virtual scalar tags (tbnb.board.iou_scalars): listed as scalar tags,
equal to ``Logdir.segmentation(...).iou()``, read by the step table, and recomputed when
training writes new masks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.board.codec import decode
from tbnb.testing import EventWriter
from tests.segmentation_logs import WRITERS, make_writer

from .conftest import Page

NAMES = ["background", "road", "car"]


def _write(writer: object, steps: list[int]) -> None:
    for step in steps:
        rng = np.random.default_rng(step)
        label = rng.integers(0, 2, size=(6, 7))  # "car" never in the label...
        prediction = label.copy()
        prediction[: step % 6 + 1] = (label[: step % 6 + 1] + 1) % 2
        tbnb.log_segmentation(writer, "val/s", rng.uniform(size=(6, 7, 3)), label, prediction, step,
                              classes=NAMES, dataformats="HWC")


@pytest.mark.parametrize("kind", WRITERS)
def test_iou_tags_equal_the_readers_iou(make_board, tmp_path: Path, kind: str) -> None:
    writer = make_writer(kind, tmp_path / "seg")
    _write(writer, [0, 3, 8])
    writer.close()
    board = make_board(tmp_path)
    page = Page(board)
    tags = {t["tag"]: t["plugin"] for t in page.decoded({"type": "index"})["tags"]}
    virtual = ["val/s/iou/background", "val/s/iou/road", "val/s/iou/car", "val/s/miou"]
    assert all(tags[t] == "scalars" for t in virtual)
    frame = tbnb.load(tmp_path).segmentation("seg", "val/s").iou()
    for tag, name in zip(virtual, [*NAMES, "mean"]):
        series = board.source.scalars("seg", tag)
        want = frame[frame["class"] == name]
        assert series.step.tolist() == want["step"].tolist() == [0, 3, 8]
        # the same integer ratios and the same mean of at most 3 values: bit for bit
        np.testing.assert_array_equal(series.value, want["iou"].to_numpy())
    assert np.isnan(board.source.scalars("seg", "val/s/iou/car").value).all()  # in neither mask
    reply = page.decoded({"type": "series", "id": 2, "tag": "val/s/miou", "runs": ["seg"], "x_axis": "step",
                          "range": None, "width": 100})
    (entry,) = reply["series"]
    assert entry["run"] == "seg" and len(entry["step"]) == 3  # a scalar card's series, as for logged tags


def test_new_masks_recompute_the_iou(make_board, tmp_path: Path) -> None:
    writer = EventWriter(tmp_path / "seg")
    _write(writer, [0])
    writer.flush()
    board = make_board(tmp_path)
    page = Page(board)
    page.ask({"type": "series", "id": 1, "tag": "val/s/miou", "runs": ["seg"], "x_axis": "step", "range": None,
              "width": 100})
    assert board.source.scalars("seg", "val/s/miou").step.tolist() == [0]
    _write(writer, [5])
    writer.flush()
    board._poll_tick()
    pushes = [decode(c, b) for c, b in page.recorder.sent if c.get("push")]
    assert [p["tag"] for p in pushes] == ["val/s/miou"]
    assert board.source.scalars("seg", "val/s/miou").step.tolist() == [0, 5]
    writer.close()
