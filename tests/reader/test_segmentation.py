"""``Logdir.segmentation``: steps, masks and IoU of what ``tbnb.log_segmentation`` wrote, checked
against independent computations, its errors, and a real tiny PyTorch segmentation training."""

from __future__ import annotations

import math
import time
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins.segmentation import SegmentationError, segmentation_tags
from tbnb.testing import EventWriter
from tests.segmentation_logs import CLASSES, HAVE_TORCH, shapes

H, W = 10, 13
NAMES = ["bg", "road", "car", "person"]


def _iou_by_sets(label: np.ndarray, prediction: np.ndarray, c: int) -> float:
    """IoU of class c from the sets of pixel positions: written apart from the code under test."""
    truth = {tuple(p) for p in np.argwhere(label == c)}
    guess = {tuple(p) for p in np.argwhere(prediction == c)}
    union = truth | guess
    return len(truth & guess) / len(union) if union else math.nan


def _write_random(path: Path, steps: list[int], seed: int = 0) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    written = {}
    with EventWriter(path) as w:
        for i, step in enumerate(steps):
            label = rng.integers(0, 3, size=(H, W))  # "person" (3) is never in the label ...
            prediction = rng.integers(0, 3 if i % 2 else 4, size=(H, W))  # ... and only in some predictions
            prediction[: H // 2] = label[: H // 2]  # some agreement, so IoUs are not all small
            tbnb.log_segmentation(w, "val/s", rng.uniform(size=(3, H, W)), label, prediction, step, classes=NAMES)
            written[step] = (label, prediction)
        w.add_image("plain", np.zeros((4, 4, 3), np.uint8), 0)
    return written


def test_iou_matches_an_independent_computation(tmp_path: Path) -> None:
    written = _write_random(tmp_path / "r", [0, 10, 20, 30])
    frame = tbnb.load(tmp_path).segmentation("r", "val/s").iou()
    assert list(frame.columns) == ["step", "class", "iou"]
    assert str(frame["step"].dtype) == "int64" and str(frame["iou"].dtype) == "float64"
    assert len(frame) == 4 * (len(NAMES) + 1)
    for step, (label, prediction) in written.items():
        rows = frame[frame["step"] == step]
        assert rows["class"].tolist() == [*NAMES, "mean"]
        expected = [_iou_by_sets(label, prediction, c) for c in range(len(NAMES))]
        got = rows["iou"].to_numpy()[:-1]
        # the same integer ratio: exactly equal, NaN where a class is in neither mask
        np.testing.assert_array_equal(got, np.array(expected))
        assert np.isnan(got[3]) == (not (prediction == 3).any())
        # a mean of at most 4 values in [0, 1]: rounding error below 4 ulp of 1
        assert rows["iou"].iloc[-1] == pytest.approx(np.nanmean(expected), abs=4 * np.finfo(float).eps)


def test_steps_classes_and_errors(tmp_path: Path) -> None:
    _write_random(tmp_path / "r", [3, 5])
    with EventWriter(tmp_path / "r") as w:  # an image with no label or prediction is not a step
        w.add_image("val/s/image", np.zeros((H, W, 3), np.uint8), 99)
    lg = tbnb.load(tmp_path)
    seg = lg.segmentation("r", "val/s")
    assert seg.steps.tolist() == [3, 5] and seg.classes == NAMES
    assert segmentation_tags(lg, "r") == ["val/s"]
    with pytest.raises(SegmentationError, match=r"no step 4; steps: \[3, 5\]"):
        seg.at(4)
    with pytest.raises(SegmentationError, match=r"no segmentation 'plain' \(missing plain/image"):
        lg.segmentation("r", "plain")
    with pytest.raises(SegmentationError, match=r"no segmentation 'val' .*segmentations: \['val/s'\]"):
        lg.segmentation("r", "val")
    assert issubclass(SegmentationError, LookupError)
    with pytest.raises(KeyError, match="no run"):
        lg.segmentation("nope", "val/s")


def test_images_of_the_wrong_kind_are_not_a_segmentation(tmp_path: Path) -> None:
    with EventWriter(tmp_path / "r") as w:
        for name in ("image", "label", "prediction"):
            w.add_image(f"t/{name}", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_scalar("t/classes", 1.0, 0)  # not a text: no palette to read
    with pytest.raises(SegmentationError, match="not images and text|missing t/classes"):
        tbnb.load(tmp_path).segmentation("r", "t")


def test_damaged_records_are_clear_errors(tmp_path: Path) -> None:
    palette = ["#000000", "#ff0000"]
    with EventWriter(tmp_path / "r") as w:
        tbnb.log_segmentation(w, "ok", np.zeros((2, 2), np.uint8), np.zeros((2, 2), int), np.ones((2, 2), int), 0,
                              classes=["a", "b"], palette=palette, dataformats="HW")
        w.add_image("bad/image", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_image("bad/label", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_image("bad/prediction", np.full((2, 2, 3), 7, np.uint8), 0)  # a colour not in the palette
        w.add_text("bad/classes", '{"format": "tbnb.segmentation", "classes": ["a", "b"], '
                                  '"palette": ["#000000", "#ff0000"]}', 0)
        w.add_image("json/image", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_image("json/label", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_image("json/prediction", np.zeros((2, 2, 3), np.uint8), 0)
        w.add_text("json/classes", "just some notes", 0)
    lg = tbnb.load(tmp_path)
    assert lg.segmentation("r", "ok").at(0).prediction.tolist() == [[1, 1], [1, 1]]
    with pytest.raises(ValueError, match=r"bad/prediction at step 0: 4 pixel\(s\) have colours outside"):
        lg.segmentation("r", "bad").at(0)
    with pytest.raises(ValueError, match="json/classes at step 0: not JSON"):
        lg.segmentation("r", "json").iou()


def test_sampled_steps_are_the_same_in_every_series(tmp_path: Path) -> None:
    written = _write_random(tmp_path / "r", list(range(0, 45, 3)), seed=1)
    sampled = tbnb.load(tmp_path).segmentation("r", "val/s")  # images: 10 per tag by default
    assert len(sampled.steps) == 10 and sampled.steps[-1] == 42
    for step in sampled.steps:
        got = sampled.at(int(step))
        np.testing.assert_array_equal(got.label, written[int(step)][0])
        np.testing.assert_array_equal(got.prediction, written[int(step)][1])
    everything = tbnb.load(tmp_path, samples_per_plugin={"images": "all", "text": "all"})
    assert everything.segmentation("r", "val/s").steps.tolist() == sorted(written)


# -- a real tiny segmentation training ----------------------------------------------------------

def _net():
    import torch

    return torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 16, 3, padding=2, dilation=2), torch.nn.ReLU(),
        torch.nn.Conv2d(16, 3, 3, padding=4, dilation=4),
    )


@pytest.mark.torch
@pytest.mark.skipif(not HAVE_TORCH, reason="torch is not installed")
def test_a_tiny_training_reads_back_exactly_and_its_iou_rises(tmp_path: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    from tbnb.log.grids import activation_grid, filter_grid
    from tbnb.reader.plugins.png import decode_image

    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # the machine is shared; one thread is deterministic too
    try:
        rng = np.random.default_rng(0)
        torch.manual_seed(0)
        net = _net()
        optimizer = torch.optim.Adam(net.parameters(), lr=1e-2)
        val_x, val_y = shapes(rng, 2)
        logged: dict[tuple[str, int], tuple[np.ndarray, np.ndarray]] = {}
        grids: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        start = time.perf_counter()
        writer = SummaryWriter(log_dir=str(tmp_path / "run"))
        for step in range(161):
            x, y = shapes(rng, 16)
            loss = torch.nn.functional.cross_entropy(net(torch.from_numpy(x)), torch.from_numpy(y))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            writer.add_scalar("loss", loss.item(), step)
            if step % 20:
                continue
            with torch.no_grad():
                act = net[1](net[0](torch.from_numpy(val_x[:1])))[0]
                prediction = net(torch.from_numpy(val_x)).argmax(1)
            for i in range(2):
                tbnb.log_segmentation(writer, f"val/sample{i}", torch.from_numpy(val_x[i]), val_y[i],
                                      prediction[i], step, classes=CLASSES)
                logged[f"val/sample{i}", step] = (val_y[i], prediction[i].numpy())
            tbnb.log_filters(writer, "filters/conv1", net[0].weight, step)
            tbnb.log_activations(writer, "act/conv1", act, step)
            grids[step] = (filter_grid(net[0].weight), activation_grid(act))
        writer.close()
        seconds = time.perf_counter() - start
    finally:
        torch.set_num_threads(threads)
    assert seconds < 60

    lg = tbnb.load(tmp_path, samples_per_plugin={"images": "all", "text": "all"})
    steps = list(range(0, 161, 20))
    assert segmentation_tags(lg, "run") == ["val/sample0", "val/sample1"]
    miou = {}
    for i in range(2):
        seg = lg.segmentation("run", f"val/sample{i}")
        assert seg.steps.tolist() == steps and seg.classes == CLASSES
        for step in steps:
            got = seg.at(step)
            np.testing.assert_array_equal(got.label, logged[f"val/sample{i}", step][0])
            np.testing.assert_array_equal(got.prediction, logged[f"val/sample{i}", step][1])
            expected_image = (val_x[i, 0] * np.float32(255)).clip(0, 255).astype(np.uint8)
            np.testing.assert_array_equal(got.image, np.repeat(expected_image[:, :, None], 3, axis=2))
        frame = seg.iou()
        miou[i] = frame[frame["class"] == "mean"].set_index("step")["iou"]
        for step in steps:
            label, prediction = logged[f"val/sample{i}", step]
            expected = np.nanmean([_iou_by_sets(label, prediction, c) for c in range(3)])
            assert miou[i][step] == pytest.approx(expected, abs=3 * np.finfo(float).eps)
    for i in range(2):  # learning: the net starts near chance and ends segmenting both shapes
        assert miou[i][160] > miou[i][0] + 0.3, miou[i].tolist()
    for tag, k in (("filters/conv1", 0), ("act/conv1", 1)):
        series = lg.tensors("run", tag)
        assert series.step.tolist() == steps
        for step, value in zip(steps, series.values):
            np.testing.assert_array_equal(decode_image(bytes(value[2])), grids[step][k])
