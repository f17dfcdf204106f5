"""The ``hparams`` message, driven as the page drives it, on sweeps written by torch's and
tensorboardX's ``add_hparams`` (a timestamped sub-run per trial, training scalars in the parent
run); expected values come from what the sweep wrote."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import traitlets

from tbnb.board.dashboards.hparams import trial_patterns

from ..conftest import Page

TRIALS = [
    ({"lr": 0.1, "optimizer": "sgd"}, {"hparam/accuracy": 0.71}),
    ({"lr": 0.01, "optimizer": "adam"}, {"hparam/accuracy": 0.84}),
    ({"lr": 0.001, "optimizer": "=HYPERLINK(\"x\")"}, {"hparam/accuracy": 0.79, "hparam/extra": 3.0}),
]
WRITERS = ["torch", "tbx"]


def f32(x: float) -> float:
    return float(np.float32(x))


def final_loss(i: int) -> float:
    return 1.0 / (i + 2)


def write_sweep(root: Path, writer: str) -> None:
    """Per trial ``trial<i>``: a ``train/loss`` curve (steps 0..2, last value ``final_loss(i)``)
    in the trial's run, then ``add_hparams``, which writes the hparams and metrics to a sub-run."""
    for i, (hparams, metrics) in enumerate(TRIALS):
        if writer == "torch":
            from torch.utils.tensorboard import SummaryWriter

            w = SummaryWriter(log_dir=str(root / f"trial{i}"))
        else:
            from tensorboardX import SummaryWriter

            w = SummaryWriter(logdir=str(root / f"trial{i}"))
        for s in range(3):
            w.add_scalar("train/loss", final_loss(i) + 0.5 * (2 - s), s)
        w.add_hparams(dict(hparams), dict(metrics))
        w.close()


@pytest.fixture(scope="module", params=WRITERS)
def sweep(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    pytest.importorskip("torch" if request.param == "torch" else "tensorboardX")
    root = tmp_path_factory.mktemp(f"hparams_{request.param}")
    write_sweep(root, request.param)
    return request.param, root


def ask(page: Page, **fields: object) -> dict:
    return page.decoded({"type": "hparams", "id": 7, **fields})


def trial_of(run: str) -> int:
    m = re.fullmatch(r"trial(\d)/\d+(\.\d+)?", run)
    assert m, f"{run!r} is not a timestamped trial sub-run"
    return int(m.group(1))


def test_one_row_per_trial_with_its_hparams_and_metrics(make_board, sweep) -> None:
    _, root = sweep
    reply = ask(Page(make_board(root)))
    assert (reply["type"], reply["id"], reply["join"], reply["problems"]) == ("hparams", 7, "", [])
    keys = [c["key"] for c in reply["columns"]]
    assert keys == ["run", "status", "start_time", "lr", "optimizer", "hparam/accuracy", "hparam/extra"]
    kinds = [c["kind"] for c in reply["columns"]]
    assert kinds == ["run", "status", "start_time", "hparam", "hparam", "metric", "metric"]
    assert len(reply["trials"]) == len(TRIALS)
    for trial in reply["trials"]:
        i = trial_of(trial["run"])
        assert trial["parent"] == f"trial{i}"
        row = dict(zip(keys, trial["values"]))
        hparams, metrics = TRIALS[i]
        assert row["run"] == trial["run"] and row["status"] == "success"
        assert row["lr"] == hparams["lr"] and row["optimizer"] == hparams["optimizer"]
        assert row["hparam/accuracy"] == f32(metrics["hparam/accuracy"])
        assert row["hparam/extra"] == (f32(metrics["hparam/extra"]) if "hparam/extra" in metrics else None)


def test_parent_join_adds_the_training_curves_last_values(make_board, sweep) -> None:
    _, root = sweep
    reply = ask(Page(make_board(root)), join="parent")
    keys = [c["key"] for c in reply["columns"]]
    assert keys[-3:] == ["hparam/accuracy", "hparam/extra", "train/loss"] and reply["join"] == "parent"
    (loss,) = [c for c in reply["columns"] if c["key"] == "train/loss"]
    assert loss["source"] == "parent" and loss["tag"] == "train/loss"
    for trial in reply["trials"]:
        row = dict(zip(keys, trial["values"]))
        assert row["train/loss"] == f32(final_loss(trial_of(trial["run"])))


def test_a_bad_join_is_refused(make_board, sweep) -> None:
    _, root = sweep
    page = Page(make_board(root))
    reply, _ = page.ask({"type": "hparams", "id": 1, "join": "children"})
    assert reply["type"] == "error" and "join" in reply["message"]


def test_the_join_trait_and_selecting_trials(make_board, sweep) -> None:
    _, root = sweep
    board = make_board(root, hparams_join="parent")
    assert board.hparams_join == "parent"
    trials = sorted(r for r in board.logdir.runs() if "/" in r)
    board.select_trials(trials[:2])
    assert board.runs == trial_patterns(trials[:2], board.logdir.runs())
    chosen = [r for r in board.logdir.runs() if any(re.fullmatch(p, r) for p in board.runs)]
    assert chosen == sorted([*trials[:2], "trial0", "trial1"])
    board.select_trials(trials[:1], parents=False)
    assert [r for r in board.logdir.runs() if any(re.fullmatch(p, r) for p in board.runs)] == trials[:1]
    with pytest.raises(ValueError, match="unknown run"):
        board.select_trials(["nope"])
    with pytest.raises(traitlets.TraitError):
        board.hparams_join = "children"


def test_trial_patterns_match_exactly() -> None:
    runs = ["a.b/1701.5", "a.b", "x(1)", "axb/1701.5"]
    patterns = trial_patterns(["a.b/1701.5", "x(1)"], runs)
    assert patterns == [r"a\.b/1701\.5", r"a\.b", r"x\(1\)"]
    assert [r for r in runs if any(re.fullmatch(p, r) for p in patterns)] == ["a.b/1701.5", "a.b", "x(1)"]
