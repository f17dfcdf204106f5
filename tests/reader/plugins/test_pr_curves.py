"""PR curves from torch, tensorboardX and TensorBoard's summary form, checked against counts
recomputed here from the labels, predictions and weights that were written."""

from __future__ import annotations

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins import pr_curves
from tbnb.reader.plugins.pr_curves import PrCurveError, card, decode, read_curves

from .conftest import needs_tensorboard


@pytest.fixture(scope="module")
def lg(pr_logdir) -> tbnb.Logdir:
    return tbnb.load(pr_logdir.root)


def expected_curve(labels, predictions, num_thresholds, weights) -> dict[str, np.ndarray]:
    """Threshold i counts a prediction as positive when floor(p * (T - 1)) >= i (the writers'
    definition), each example weighted; the tail where nothing is predicted positive is cut."""
    labels = np.asarray(labels, dtype=np.float64)
    weights = np.broadcast_to(np.asarray(weights, dtype=np.float64), labels.shape)
    bucket = np.floor(np.asarray(predictions, dtype=np.float32) * (num_thresholds - 1))
    tp = np.array([np.sum(weights * labels * (bucket >= i)) for i in range(num_thresholds)])
    fp = np.array([np.sum(weights * (1 - labels) * (bucket >= i)) for i in range(num_thresholds)])
    fn = np.sum(weights * labels) - tp
    tn = np.sum(weights * (1 - labels)) - fp
    keep = np.flatnonzero(np.trunc(tp) + np.trunc(fp) != 0)
    end = int(keep[-1]) + 1 if keep.size else 1
    return {
        "thresholds": (np.arange(num_thresholds) / (num_thresholds - 1))[:end],
        "true_positives": tp[:end], "false_positives": fp[:end],
        "true_negatives": tn[:end], "false_negatives": fn[:end],
        "precision": (tp / np.maximum(1e-7, tp + fp))[:end], "recall": (tp / np.maximum(1e-7, tp + fn))[:end],
    }


def assert_curve(curve: pr_curves.PrCurve, written) -> None:
    want = expected_curve(*written)
    got = curve.arrays()
    assert list(got) == list(want)
    for name, values in want.items():
        assert got[name].dtype == np.float64 and got[name].shape == values.shape, name
        np.testing.assert_allclose(got[name], values, rtol=2e-6, atol=2e-5, err_msg=name)


def test_every_written_curve_reads_back(lg, pr_logdir):
    assert pr_logdir.data, "no writer available"
    for (run, tag), steps in pr_logdir.data.items():
        curves, problems = read_curves(lg, run, tag)
        if run != "bad":
            assert problems == []
            assert [c.step for c in curves] == sorted(steps)
        for curve in curves:
            assert_curve(curve, steps[curve.step])
            labels, predictions, num_thresholds, _ = steps[curve.step]
            if np.ndim(steps[curve.step][3]) == 0:  # unweighted: the last kept threshold is the top bucket
                assert len(curve) == int(np.floor(np.float32(predictions) * (num_thresholds - 1)).max()) + 1
            assert len(curve) < num_thresholds  # predictions stay below 0.8: the tail was cut


def test_curves_are_found_by_plugin_not_by_tag_name(lg, pr_logdir):
    for run, tag in pr_logdir.data:
        assert tag in pr_curves.pr_tags(lg, run)
    assert pr_curves.num_thresholds(lg, "torch/a", "pr") == 51


@needs_tensorboard
def test_malformed_tensors_are_problems_and_the_rest_is_read(lg, pr_logdir):
    curves, problems = read_curves(lg, "bad", "pr")
    assert [c.step for c in curves] == [1]
    assert_curve(curves[0], pr_logdir.data[("bad", "pr")][1])
    assert [(p.run, p.tag, p.step) for p in problems] == [("bad", "pr", 0), ("bad", "pr", 2)]
    assert "[5, 11]" in problems[0].message and "expected [6, num_thresholds]" in problems[0].message
    assert "dtype object" in problems[1].message
    curves, problems = read_curves(lg, "bad", "mismatch")
    assert len(curves) == 1 and len(curves[0].thresholds) <= 11
    assert len(problems) == 1 and "13" in problems[0].message and "11" in problems[0].message


def test_decode_rejects_wrong_shapes_and_keeps_one_threshold_of_an_empty_curve():
    for bad in (np.zeros((5, 4)), np.zeros((6,)), np.zeros((6, 0)), np.zeros((2, 6, 3)), np.array(["a"] * 6)):
        with pytest.raises(PrCurveError):
            decode(bad)
    empty = decode(np.zeros((6, 9), dtype=np.float32), step=4, wall_time=1.5)
    assert (empty.step, empty.wall_time, len(empty)) == (4, 1.5, 1)
    whole = decode(np.zeros((6, 9), dtype=np.float32), trim=False)
    np.testing.assert_array_equal(whole.thresholds, np.arange(9) / 8)


def test_card_picks_each_runs_step(lg, pr_logdir):
    runs = [r for r in ("torch/a", "torch/b", "tbx/a", "summary_api") if (r, "pr") in pr_logdir.data]
    asked = {"torch/a": 1, "torch/b": 3, "tbx/a": 7}
    got = card(lg, "pr", runs, asked)
    assert sorted(got) == sorted(r for r in runs if r != "summary_api")  # its tag is pr/pr_curves
    want = {"torch/a": 1, "torch/b": 5, "tbx/a": 2}  # exact; nearest of 0/5 to 3; nearest to 7 is the last
    for run, entry in got.items():
        written = pr_logdir.data[(run, "pr")]
        np.testing.assert_array_equal(entry.steps, sorted(written))
        assert entry.curve is not None and entry.curve.step == want[run]
        assert_curve(entry.curve, written[want[run]])
    last = card(lg, "pr", runs)
    assert all(entry.curve.step == max(pr_logdir.data[(run, "pr")]) for run, entry in last.items())


@needs_tensorboard
def test_card_of_the_summary_api_tag_and_of_a_bad_run(lg, pr_logdir):
    got = card(lg, "pr/pr_curves", ["summary_api", "bad"])
    assert list(got) == ["summary_api"]
    assert got["summary_api"].curve.step == 1
    bad = card(lg, "pr", ["bad"], {"bad": 0})["bad"]
    assert bad.steps.tolist() == [1] and bad.curve.step == 1 and len(bad.problems) == 2
