"""The diagnostics dashboard's requests (``diagnostics``, ``diagnostic_chart``) on event files from
tbnb's writer (tests/diagnostics_logs.py: each run's finding known) and from a real training run
watched by ``tbnb.watch`` (torch's SummaryWriter), driven as the page drives the Board."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

import tbnb
from tbnb.board.codec import decode
from tbnb.board.dashboards.diagnostics import MAX_WIDTH
from tbnb.reader.plugins.update_ratio import HIGH, LOW
from tbnb.testing import EventWriter
from tests.diagnostics_logs import RUNS, T0, write_diagnostics_logdir

from ..conftest import Page

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def logdir(tmp_path: Path) -> Path:
    return write_diagnostics_logdir(tmp_path / "logs")


def ask(page: Page, runs: tuple[str, ...] | list[str] = RUNS, request_id: int = 1) -> dict:
    return page.decoded({"type": "diagnostics", "id": request_id, "runs": list(runs)})


def chart(page: Page, spec: dict, width: float = 400, request_id: int = 2) -> dict:
    return page.decoded({"type": "diagnostic_chart", "id": request_id, "runs": spec["runs"], "chart": spec,
                         "width": width})


def test_findings_grouped_by_chart_match_diagnose(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    reply = ask(page)
    listed = [f for item in reply["items"] for f in item["findings"] if f["finding"] != "lr_range_test"]
    frame = tbnb.load(logdir).diagnose()
    assert sorted((f["run"], f["metric"], f["finding"], f["step"], f["evidence"]) for f in listed) == sorted(
        frame[["run", "metric", "finding", "step", "evidence"]].itertuples(index=False, name=None))
    kinds = {item["chart"]["kind"]: item for item in reply["items"]}
    assert set(kinds) == {"pair", "lr", "lr_find", "update_ratio"}
    assert [f["finding"] for f in kinds["update_ratio"]["findings"]] == ["update_ratio_low", "update_ratio_high"]
    assert kinds["pair"]["chart"] == {"kind": "pair", "run": "overfit", "metric": "loss", "train_run": "overfit",
                                      "train_tag": "loss/train", "val_run": "overfit", "val_tag": "loss/val",
                                      "runs": ["overfit"]}
    assert kinds["lr"]["chart"]["lr_tag"] == "lr" and kinds["lr"]["findings"][0]["finding"] == "lr_too_high"
    (test,) = kinds["lr_find"]["findings"]
    assert test["finding"] == "lr_range_test" and "falls fastest at lr = " in test["evidence"]
    assert reply["quiet"] == ["healthy"]
    assert [item["chart"]["run"] for item in reply["items"]] == ["lr_find", "overfit", "ratios", "too_high"]


def test_pair_chart_has_both_curves_and_the_best_step(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    spec = next(i["chart"] for i in ask(page)["items"] if i["chart"]["kind"] == "pair")
    data = chart(page, spec)["data"]
    assert data["train"]["step"].tolist() == list(range(100)) and data["val"]["step"].tolist() == list(range(0, 100, 5))
    assert data["best_step"] == 40 and data["lower_better"] is True
    assert data["best_value"] == pytest.approx(float(np.float32(0.5 + 1.8 * math.exp(-5))))
    assert data["val"]["value"][8] == data["best_value"] and data["val"]["points"] == 20


def test_lr_and_range_test_charts(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    specs = {i["chart"]["kind"]: i["chart"] for i in ask(page)["items"]}
    lr = chart(page, specs["lr"])["data"]
    assert lr["lr"]["value"].tolist() == [5.0] * 100 and lr["loss"]["value"][0] == pytest.approx(2.3)
    found = chart(page, specs["lr_find"])["data"]
    test = tbnb.load(logdir)
    from tbnb.reader.plugins.diagnostics.lr_find import lr_range_test

    want = lr_range_test(test, "lr_find")
    assert found["suggestion"] == want.suggestion and found["suggestion_step"] == want.suggestion_step
    assert 1e-3 < found["suggestion"] < 1e-1  # the synthetic loss falls fastest near 1e-2
    assert np.all(np.diff(found["lr"]) > 0) and len(found["all_lr"]) == 100


def test_update_ratio_chart_lines_band_and_heatmap(make_board, tmp_path: Path) -> None:
    few = write_diagnostics_logdir(tmp_path / "few", n_tensors=6)
    data = chart(Page(make_board(few)), {"kind": "update_ratio", "run": "ratios", "runs": ["ratios"]})["data"]
    assert [ln["tag"] for ln in data["lines"]] == ["update_ratio/all"] + [f"update_ratio/layers.{i}.weight"
                                                                       for i in range(6)]
    assert [ln["outside"] for ln in data["lines"]] == [False, True, True, False, False, False, False]
    assert data["band"] == [LOW, HIGH] and data["guide"] == 1e-3 and data["heatmap"] is None
    many = write_diagnostics_logdir(tmp_path / "many", n_tensors=30)
    data = chart(Page(make_board(many)), {"kind": "update_ratio", "run": "ratios", "runs": ["ratios"]},
                 width=20)["data"]
    hm = data["heatmap"]
    # model order: by each tag's first point in time, so layers.10 comes after layers.9, not after layers.1
    assert hm["tags"] == [f"update_ratio/layers.{i}.weight" for i in range(30)]
    assert hm["z"].shape == (30, 20)
    assert np.allclose(hm["z"][0], math.log10(np.float32(3e-6)), atol=1e-6)  # a constant tensor: its own log
    assert np.allclose(hm["z"][1], math.log10(np.float32(0.05)), atol=1e-6)


def test_width_is_clamped_and_series_downsampled(make_board, tmp_path: Path) -> None:
    with EventWriter(tmp_path / "long", start_time=T0) as w:
        for s in range(20_000):
            w.add_scalar("loss", 2.3 + 0.2 * math.sin(s / 30) + 0.01 * s, s, wall_time=T0 + s)
            w.add_scalar("lr", 1.0, s, wall_time=T0 + s)
    page = Page(make_board(tmp_path))
    (item,) = ask(page, ["long"])["items"]
    assert item["findings"][0]["finding"] == "lr_too_high"
    data = chart(page, item["chart"], width=100)["data"]
    assert len(data["loss"]["step"]) <= 2 * 100 + 2 and data["loss"]["points"] == 20_000
    data = chart(page, item["chart"], width=1e9)["data"]  # over MAX_WIDTH: clamped, not allocated
    assert len(data["loss"]["step"]) <= 2 * MAX_WIDTH + 2


@pytest.mark.parametrize("spec, message", [
    ({"kind": "nope", "run": "overfit"}, "unknown chart kind"),
    ({"kind": "pair", "run": "overfit", "metric": "loss", "train_run": "overfit", "train_tag": "loss/train",
      "val_run": "overfit", "val_tag": "missing"}, "no scalar tag 'missing'"),
    ({"kind": "update_ratio", "run": "healthy"}, "no update_ratio"),
    ({"kind": "lr", "run": "healthy", "loss_tag": "loss", "lr_tag": {"x": 1}}, "chart field 'lr_tag'"),
    ({"kind": "lr", "run": "healthy", "loss_tag": "loss", "__class__": "x"}, "chart field '__class__'"),
    ("pair", "'chart' must be an object"),
])
def test_bad_chart_requests_are_error_replies(make_board, logdir: Path, spec: object, message: str) -> None:
    page = Page(make_board(logdir))
    reply, _ = page.ask({"type": "diagnostic_chart", "id": 3, "runs": ["overfit", "healthy"], "chart": spec,
                         "width": 300})
    assert reply["type"] == "error" and message in reply["message"]


def test_unknown_runs_and_runs_the_chart_reads(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir))
    reply, _ = page.ask({"type": "diagnostics", "id": 1, "runs": ["nope"]})
    assert reply["type"] == "error" and "unknown run" in reply["message"]
    reply, _ = page.ask({"type": "diagnostic_chart", "id": 2, "runs": ["healthy"], "width": 100,
                         "chart": {"kind": "update_ratio", "run": "ratios"}})
    assert reply["type"] == "error" and "missing ['ratios']" in reply["message"]


def test_findings_are_pushed_while_training_writes(make_board, tmp_path: Path) -> None:
    root = tmp_path / "live"
    with EventWriter(root / "run", start_time=T0) as w:
        for s in range(4):
            w.add_scalar("loss", 2.3, s, wall_time=T0 + s)
    board = make_board(root)
    page = Page(board)
    reply = ask(page, ["run"])
    assert reply["items"] == [] and reply["quiet"] == ["run"]
    with EventWriter(root / "run", start_time=T0) as w:  # the loss explodes
        for s in range(4, 20):
            w.add_scalar("loss", 2.3 * (s - 2), s, wall_time=T0 + s)
    board._poll_tick()
    pushed = [decode(c, b) for c, b in page.recorder.sent if c.get("push")]
    (push,) = [p for p in pushed if p["type"] == "diagnostics"]
    assert push["id"] == 1 and push["items"][0]["findings"][0]["finding"] == "lr_too_high" and push["quiet"] == []


def test_names_travel_as_plain_strings(make_board, tmp_path: Path) -> None:
    with EventWriter(tmp_path / HOSTILE, start_time=T0) as w:
        for s in range(30):
            w.add_scalar(f"{HOSTILE}/loss", 2.3 * (1 + s), s, wall_time=T0 + s)
    page = Page(make_board(tmp_path))
    (item,) = ask(page, [HOSTILE])["items"]
    assert item["chart"]["run"] == HOSTILE and item["findings"][0]["metric"] == f"{HOSTILE}/loss"
    assert chart(page, item["chart"])["data"]["loss_tag"] == f"{HOSTILE}/loss"


@pytest.mark.torch
@pytest.mark.skipif(importlib.util.find_spec("torch") is None or importlib.util.find_spec("sklearn") is None,
                    reason="torch and scikit-learn are needed")
def test_real_training_watched_by_tbnb_watch(make_board, tmp_path: Path) -> None:
    """A digits MLP trained twice with tbnb.watch (torch's SummaryWriter): Adam at 1e-6 barely
    moves its weights (update_ratio_low), at 5e-4 it does not; the chart's lines are the logged ratios."""
    import torch
    from sklearn.datasets import load_digits
    from torch.utils.tensorboard import SummaryWriter

    x, y = load_digits(return_X_y=True)
    x, y = torch.tensor(x / 16.0, dtype=torch.float32), torch.tensor(y)
    for name, lr in (("good", 5e-4), ("tiny", 1e-6)):
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
        opt = torch.optim.Adam(net.parameters(), lr=lr)
        with SummaryWriter(str(tmp_path / "watched" / name)) as writer, tbnb.watch(net, opt, writer, every=2):
            for step in range(60):
                pick = torch.randint(len(x), (64,), generator=torch.Generator().manual_seed(step))
                loss = torch.nn.functional.cross_entropy(net(x[pick]), y[pick])
                opt.zero_grad()
                loss.backward()
                opt.step()
                writer.add_scalar("loss", loss.item(), step)
    page = Page(make_board(tmp_path / "watched"))
    reply = ask(page, ["good", "tiny"])
    ratio_items = [i for i in reply["items"] if i["chart"]["kind"] == "update_ratio"]
    assert [i["chart"]["run"] for i in ratio_items] == ["tiny"]
    assert {f["finding"] for f in ratio_items[0]["findings"]} == {"update_ratio_low"}
    data = chart(page, ratio_items[0]["chart"], width=1000)["data"]
    assert [ln["tag"] for ln in data["lines"]] == ["update_ratio/all", "update_ratio/0.weight", "update_ratio/0.bias",
                                                   "update_ratio/2.weight", "update_ratio/2.bias"]  # model order
    logged = tbnb.load(tmp_path / "watched").scalars("tiny", "update_ratio/0.weight")
    np.testing.assert_array_equal(data["lines"][1]["value"], logged.value.astype(np.float64))
    assert all(ln["outside"] for ln in data["lines"])
