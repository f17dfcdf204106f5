"""Train/validation pairs on logdirs written by torch's, tensorboardX's and tbnb's writers, one run
per naming convention, plus the ambiguity rule and the user's corrections."""

from __future__ import annotations

from pathlib import Path

import pytest

import tbnb
from tbnb.reader.plugins.diagnostics.pairs import COLUMNS, run_pairs

from .conftest import ALL_WRITERS, write_run

CURVE = [1.0, 0.8, 0.7]

#: run -> tags written there (all with CURVE)
LAYOUT = {
    "tutorial": ["Loss/train", "Loss/test", "Accuracy/train", "Accuracy/test", "Accuracy/val"],
    "hf": ["train/loss", "eval/loss", "train/learning_rate", "train/epoch", "eval/accuracy"],
    "lightning": ["train_loss", "val_loss", "val_acc", "lr-SGD"],
    "history": ["loss", "val_loss", "accuracy", "val_accuracy"],
    "keras/train": ["epoch_loss", "epoch_accuracy", "epoch_learning_rate"],
    "keras/validation": ["epoch_loss", "epoch_accuracy"],
    "ambiguous": ["train_loss", "loss", "val_loss", "Acc/Train", "acc/val"],
}

EXPECTED = {
    ("tutorial", "Accuracy", "tutorial", "Accuracy/train", "tutorial", "Accuracy/val", "X/split"),
    ("tutorial", "Loss", "tutorial", "Loss/train", "tutorial", "Loss/test", "X/split"),
    ("hf", "loss", "hf", "train/loss", "hf", "eval/loss", "split/X"),
    ("lightning", "loss", "lightning", "train_loss", "lightning", "val_loss", "train_X"),
    ("history", "accuracy", "history", "accuracy", "history", "val_accuracy", "X+val_X"),
    ("history", "loss", "history", "loss", "history", "val_loss", "X+val_X"),
    ("keras", "epoch_accuracy", "keras/train", "epoch_accuracy", "keras/validation", "epoch_accuracy", "keras"),
    ("keras", "epoch_loss", "keras/train", "epoch_loss", "keras/validation", "epoch_loss", "keras"),
    # train_X comes before X+val_X: val_loss goes to train_loss and ``loss`` stays alone;
    # split words match whatever their case
    ("ambiguous", "loss", "ambiguous", "train_loss", "ambiguous", "val_loss", "train_X"),
    ("ambiguous", "Acc", "ambiguous", "Acc/Train", "ambiguous", "acc/val", "X/split"),
}


@pytest.fixture(scope="module", params=ALL_WRITERS)
def conventions(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp(f"pairs-{request.param}")
    for run, tags in LAYOUT.items():
        write_run(request.param, root / run, dict.fromkeys(tags, CURVE))
    return root


def test_every_convention(conventions: Path) -> None:
    df = tbnb.load(conventions).pairs()
    assert list(df.columns) == list(COLUMNS)
    rows = [tuple(r) for r in df.itertuples(index=False)]
    assert len(rows) == len(set(rows))
    assert set(rows) == EXPECTED


def test_runs_filter_and_corrections(conventions: Path) -> None:
    lg = tbnb.load(conventions)
    assert set(lg.pairs(runs=["hf"])["val_tag"]) == {"eval/loss"}
    assert set(lg.pairs(runs=["keras/train", "keras/validation"])["metric"]) == {"epoch_loss", "epoch_accuracy"}
    assert lg.pairs(runs=["keras/train"]).empty  # its validation sibling was not chosen
    # add: a pair the conventions miss, and a correction replacing a guessed pair's tag
    df = lg.pairs(runs=["lightning", "tutorial"], add={"acc": ("train_loss", "val_acc"),
                                                         "Loss": ("Loss/train", "Accuracy/test")})
    rows = {(r.run, r.metric, r.train_tag, r.val_tag, r.convention) for r in df.itertuples()}
    assert ("lightning", "acc", "train_loss", "val_acc", "user") in rows
    assert ("tutorial", "Loss", "Loss/train", "Accuracy/test", "user") in rows
    assert not any(r[2] == "Loss/train" and r[4] != "user" for r in rows)  # the guess is gone
    assert ("lightning", "loss", "train_loss", "val_loss", "train_X") not in rows  # train_loss taken
    dropped = lg.pairs(drop=["loss", "Accuracy/val"])
    assert "loss" not in set(dropped["metric"]) and "Accuracy/val" not in set(dropped["val_tag"])
    assert "Loss" in set(dropped["metric"])
    with pytest.raises(ValueError, match="two different tags"):
        lg.pairs(add={"x": ("a", "a")})
    with pytest.raises(TypeError, match="add must map"):
        lg.pairs(add=[("a", "b")])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no run 'nope'"):
        lg.pairs(runs=["nope"])


def test_validation_word_preference() -> None:
    tags = ["x/train", "x/test", "x/eval", "x/valid", "train/y", "test/y", "validation/y"]
    pairs = {p["train_tag"]: p["val_tag"] for p in run_pairs("r", tags)}
    assert pairs == {"x/train": "x/valid", "train/y": "validation/y"}
    # nothing pairs a tag with itself or a validation tag with another
    assert run_pairs("r", ["val_loss", "val_val_loss", "loss/val"]) == []
