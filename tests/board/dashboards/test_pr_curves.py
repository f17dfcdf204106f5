"""The ``pr_curves`` message, driven as the page drives it, on PR curves written by torch's and
tensorboardX's ``add_pr_curve``; expected counts are recomputed here from the labels and
predictions that were written."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from ..conftest import Page

WRITERS = [k for k, mod in (("torch", "torch"), ("tbx", "tensorboardX")) if importlib.util.find_spec(mod)]
pytestmark = pytest.mark.skipif(not WRITERS, reason="neither torch nor tensorboardX is installed")
NUM_THRESHOLDS = 21
STEPS = {"a": (0, 4, 8), "b": (0, 5)}


def writer(kind: str, logdir: Path):
    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter
    else:
        from tensorboardX import SummaryWriter
    return SummaryWriter(str(logdir))


def labels_predictions(run: str, step: int) -> tuple[np.ndarray, np.ndarray]:
    """Reproducible data whose curve differs by step; predictions stay below 0.9 (a cut tail)."""
    rng = np.random.default_rng([ord(run[-1]), step])
    labels = rng.integers(0, 2, size=200)
    skill = 0.05 * (step + 1)
    predictions = np.clip(labels * skill + rng.uniform(0, 0.85 - skill, size=200), 0, 0.89)
    return labels, predictions


def expected(labels: np.ndarray, predictions: np.ndarray) -> dict[str, np.ndarray]:
    """Threshold i counts a prediction as positive when floor(p * (T - 1)) >= i; the tail where
    nothing is predicted positive is cut, as TensorBoard's dashboard cuts it."""
    bucket = np.floor(predictions.astype(np.float32) * (NUM_THRESHOLDS - 1))
    tp = np.array([np.sum(labels * (bucket >= i)) for i in range(NUM_THRESHOLDS)], dtype=float)
    fp = np.array([np.sum((1 - labels) * (bucket >= i)) for i in range(NUM_THRESHOLDS)], dtype=float)
    end = int(np.flatnonzero(tp + fp)[-1]) + 1
    fn, tn = labels.sum() - tp, (1 - labels).sum() - fp
    out = {"thresholds": np.arange(NUM_THRESHOLDS) / (NUM_THRESHOLDS - 1), "true_positives": tp,
           "false_positives": fp, "true_negatives": tn, "false_negatives": fn,
           "precision": tp / np.maximum(1e-7, tp + fp), "recall": tp / np.maximum(1e-7, tp + fn)}
    return {k: v[:end] for k, v in out.items()}


@pytest.fixture(scope="module", params=WRITERS)
def logdir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"pr_{request.param}")
    for run, steps in STEPS.items():
        w = writer(request.param, root / run)
        for step in steps:
            labels, predictions = labels_predictions(run, step)
            w.add_pr_curve("pr/val", labels, predictions, step, num_thresholds=NUM_THRESHOLDS)
        w.add_scalar("loss", 1.0, 0)
        w.close()
    return root


@pytest.fixture
def page(make_board, logdir: Path) -> Page:
    return Page(make_board(logdir))


def ask(page: Page, **fields: object) -> dict:
    return page.decoded({"type": "pr_curves", "id": 4, "tag": "pr/val", "runs": ["a", "b"], **fields})


def assert_curve(entry: dict, run: str, step: int) -> None:
    assert entry["run"] == run and entry["step"] == step
    for name, values in expected(*labels_predictions(run, step)).items():
        assert entry[name].dtype == np.float64, name
        np.testing.assert_allclose(entry[name], values, rtol=1e-6, atol=1e-5, err_msg=f"{run} {step} {name}")


def test_each_run_shows_its_last_step_and_lists_its_steps(page: Page) -> None:
    reply = ask(page)
    assert (reply["type"], reply["id"], reply["tag"], reply["steps"], reply["problems"]) == (
        "pr_curves", 4, "pr/val", None, [])
    assert [e["run"] for e in reply["series"]] == ["a", "b"]
    for entry in reply["series"]:
        run = entry["run"]
        assert entry["steps"].dtype == np.int64 and entry["steps"].tolist() == list(STEPS[run])
        assert_curve(entry, run, STEPS[run][-1])
        assert entry["wall_time"] > 1e9


def test_the_slider_step_is_exact_or_the_nearest_per_run(page: Page) -> None:
    reply = ask(page, steps={"a": 4, "b": 4})
    a, b = reply["series"]
    assert_curve(a, "a", 4)  # exact
    assert_curve(b, "b", 5)  # nearest of 0 and 5
    first = ask(page, steps={"a": 0, "b": 0})
    assert not np.array_equal(first["series"][0]["precision"], a["precision"])  # the step changes the line
    assert_curve(first["series"][0], "a", 0)


def test_runs_without_the_tag_are_left_out_and_bad_requests_are_errors(page: Page) -> None:
    assert ask(page, runs=["b"])["series"][0]["run"] == "b"
    error, _ = page.ask({"type": "pr_curves", "id": 5, "tag": "loss", "runs": ["a"]})
    assert error["type"] == "error" and "scalars" in error["message"]
    error, _ = page.ask({"type": "pr_curves", "id": 6, "tag": "pr/val", "runs": ["a"], "steps": {"a": "last"}})
    assert error["type"] == "error" and "steps" in error["message"]
    error, _ = page.ask({"type": "pr_curves", "id": 7, "tag": "pr/val", "runs": ["nope"]})
    assert error["type"] == "error" and "nope" in error["message"]


def test_a_tensor_of_the_wrong_shape_is_a_problem_listed_not_a_failure(make_board, tmp_path: Path) -> None:
    from tbnb.format.proto import event_pb2, plugin_data_pb2, summary_pb2, tensor_pb2, types_pb2
    from tbnb.testing import EventWriter

    def pr_event(array: np.ndarray, step: int) -> event_pb2.Event:
        shape = tensor_pb2.TensorShapeProto(dim=[tensor_pb2.TensorShapeProto.Dim(size=n) for n in array.shape])
        tensor = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT, tensor_shape=shape,
                                        tensor_content=array.astype("<f4").tobytes())
        value = summary_pb2.Summary.Value(tag="pr", tensor=tensor)
        value.metadata.plugin_data.plugin_name = "pr_curves"
        value.metadata.plugin_data.content = content
        return event_pb2.Event(wall_time=1e9 + step, step=step, summary=summary_pb2.Summary(value=[value]))

    labels, predictions = labels_predictions("good", 0)
    w = writer(WRITERS[0], tmp_path / "good")
    w.add_pr_curve("pr", labels, predictions, 0, num_thresholds=NUM_THRESHOLDS)
    w.close()
    content = plugin_data_pb2.PrCurvePluginData(version=0, num_thresholds=NUM_THRESHOLDS).SerializeToString()
    with EventWriter(tmp_path / "bad") as bad:
        bad.add_event(pr_event(np.zeros((5, NUM_THRESHOLDS)), 0))  # a row short
        bad.add_event(pr_event(np.zeros((6, NUM_THRESHOLDS)), 1))
    page = Page(make_board(tmp_path))
    reply = page.decoded({"type": "pr_curves", "id": 1, "tag": "pr", "runs": ["bad", "good"], "steps": {"bad": 0}})
    bad_entry, good_entry = reply["series"]
    assert bad_entry["run"] == "bad" and bad_entry["steps"].tolist() == [1]  # the malformed step is not offered
    assert bad_entry["step"] == 1 and len(bad_entry["precision"]) == 1  # all-zero counts: one threshold kept
    assert_curve(good_entry, "good", 0)
    assert len(reply["problems"]) == 1
    assert "'bad'" in reply["problems"][0] and "step 0" in reply["problems"][0] and "[5, 21]" in reply["problems"][0]


def test_pr_cards_join_the_time_series_only_when_asked(make_board, logdir: Path) -> None:
    """TensorBoard's time series has no PR cards: the default card types stay its three."""
    assert make_board(logdir).card_types == ["scalars", "histograms", "images"]
    board = make_board(logdir, card_types=["scalars", "pr_curves"])
    assert board.card_types == ["scalars", "pr_curves"]
    assert board.get_state()["card_types"] == ["scalars", "pr_curves"]
