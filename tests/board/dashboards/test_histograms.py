"""The ``histograms`` and ``distributions`` messages, driven as the page drives them, on logdirs
written by tbnb's EventWriter (TF1 ``histo`` and TF2 tensors) and by torch."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tbnb.testing import EventWriter

from ..conftest import T0, Page

# Steps of the "weights" histogram, chosen so that rebinning to 30 bins over [0, 30] is exact:
# 0..30 in 30 unit buckets; three values in 2 buckets; an all-equal step; an empty step.
STEPS = {0: (np.arange(31.0), 30), 1: (np.array([10.0, 10.0, 20.0]), 2), 2: (np.full(3, 5.5), 30),
         3: (np.array([]), 30)}
EXPECTED_COUNTS = np.zeros((4, 30))
EXPECTED_COUNTS[0] = [1] * 29 + [2]  # 29 and 30 share the closed last bucket [29, 30]
EXPECTED_COUNTS[1, 10:15] = 2 / 5  # bucket [10, 15) holds 2, spread over 5 bins
EXPECTED_COUNTS[1, 15:20] = 1 / 5  # bucket [15, 20] holds 1
EXPECTED_COUNTS[2, 5] = 3  # a zero-width bucket at 5.5: wholly in bin [5, 6)


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("histograms")
    for run, tf2 in (("tf1", False), ("tf2", True)):
        with EventWriter(root / run, start_time=T0) as w:
            for step, (values, bins) in STEPS.items():
                w.add_histogram("weights", values, step, bins=bins, wall_time=T0 + 10 + step, tf2=tf2)
            w.add_scalar("loss", 0.5, 0, wall_time=T0 + 1)
    with EventWriter(root / "shifted", start_time=T0 + 100) as w:
        for step in range(3):
            w.add_histogram("weights", np.linspace(-step - 1, step + 1, 50), step, wall_time=T0 + 100 + step, tf2=True)
    with EventWriter(root / "only_scalars", start_time=T0) as w:
        w.add_scalar("loss", 1.0, 0, wall_time=T0 + 1)
    return root


@pytest.fixture
def page(make_board, logdir: Path) -> Page:
    return Page(make_board(logdir))


def ask(page: Page, kind: str = "histograms", **fields: object) -> dict:
    return page.decoded({"type": kind, "id": 3, "tag": "weights", "runs": ["tf1", "tf2"], "x_axis": "step",
                         **fields})


def test_histograms_are_rebinned_to_30_bins_per_run(page: Page) -> None:
    reply = ask(page)
    assert (reply["type"], reply["id"], reply["tag"], reply["x_axis"]) == ("histograms", 3, "weights", "step")
    assert [s["run"] for s in reply["series"]] == ["tf1", "tf2"]
    for entry in reply["series"]:  # TF1 histo and TF2 tensor of the same data read the same
        assert entry["steps"].dtype == np.int64 and entry["steps"].tolist() == [0, 1, 2, 3]
        assert entry["x"].dtype == np.float64 and entry["x"].tolist() == [0, 1, 2, 3]
        assert entry["edges"].dtype == np.float64 and entry["edges"].tolist() == list(range(31))
        assert entry["counts"].shape == (4, 30)
        np.testing.assert_allclose(entry["counts"], EXPECTED_COUNTS, rtol=1e-12, atol=1e-12)


def test_arrays_travel_as_buffers(page: Page) -> None:
    reply, buffers = page.ask({"type": "histograms", "id": 1, "tag": "weights", "runs": ["tf2"], "x_axis": "step"})
    entry = reply["series"][0]
    assert entry["counts"] == {"buffer": entry["counts"]["buffer"], "dtype": "float64", "shape": [4, 30]}
    assert entry["edges"]["shape"] == [31] and entry["steps"]["dtype"] == "int64"
    assert len(buffers) == 4 and sum(len(b) for b in buffers) == 8 * (4 + 4 + 31 + 120)


def test_each_run_has_its_own_range(page: Page) -> None:
    reply = ask(page, runs=["shifted", "tf2"])
    shifted, tf2 = reply["series"]
    assert shifted["edges"][0] == -3 and shifted["edges"][-1] == 3  # the widest step, step 2
    assert tf2["edges"][0] == 0 and tf2["edges"][-1] == 30
    np.testing.assert_allclose(shifted["counts"].sum(axis=1), [50, 50, 50])
    # step 0 lies in [-1, 1]: the 10 middle bins of [-3, 3], nothing outside
    assert not shifted["counts"][0, :10].any() and not shifted["counts"][0, 20:].any()


@pytest.mark.parametrize(("axis", "xs"), [("relative", [10, 11, 12, 13]), ("wall", [T0 + 10 + s for s in range(4)])])
def test_x_axes(page: Page, axis: str, xs: list[float]) -> None:
    for kind in ("histograms", "distributions"):
        reply = ask(page, kind, x_axis=axis)
        assert reply["x_axis"] == axis
        assert [e["x"].tolist() for e in reply["series"]] == [xs, xs]


def test_x_axis_defaults_to_the_boards(make_board, logdir: Path) -> None:
    page = Page(make_board(logdir, x_axis="relative"))
    reply = page.decoded({"type": "distributions", "id": 1, "tag": "weights", "runs": ["tf2"]})
    assert reply["x_axis"] == "relative" and reply["series"][0]["x"].tolist() == [10, 11, 12, 13]


def test_distributions_by_hand_and_as_tensorboard(page: Page) -> None:
    from tensorboard.plugins.distribution.compressor import compress_histogram

    reply = ask(page, "distributions")
    assert (reply["type"], reply["id"], reply["x_axis"]) == ("distributions", 3, "step")
    tf1, tf2 = reply["series"]
    for entry in (tf1, tf2):
        values = entry["values"]
        assert values.shape == (4, 9) and entry["steps"].tolist() == [0, 1, 2, 3]
        # step 0: 0..30, 31 values in unit buckets: min, median 15.5 (interpolated), max (the
        # cumulative weights sum to 10000 minus rounding, so bp 10000 interpolates to nearly 30)
        np.testing.assert_allclose(values[0, [0, 4, 8]], [0, 15.5, 30], rtol=1e-12)
        # step 1: [10, 15) holds 2/3 of the weight: bp 5000 is 3/4 of the way into it
        np.testing.assert_allclose(values[1, [0, 4, 8]], [10, 13.75, 20], rtol=1e-12)
        assert values[2].tolist() == [5.5] * 9  # all equal
        assert values[3].tolist() == [0.0] * 9  # empty
    lg = page.board.logdir
    for run, entry in (("tf1", tf1), ("tf2", tf2)):
        expected = [[v for _, v in compress_histogram(h)] for h in lg.tensors(run, "weights").values]
        assert entry["values"].tolist() == expected


def test_a_run_without_the_tag_is_skipped(page: Page) -> None:
    for kind in ("histograms", "distributions"):
        reply = ask(page, kind, runs=["only_scalars", "tf2"])
        assert [e["run"] for e in reply["series"]] == ["tf2"]
        assert ask(page, kind, runs=[])["series"] == []


@pytest.mark.parametrize(("fields", "message"), [
    ({"runs": ["tf2", "nope"]}, "unknown run"),
    ({"tag": "nope"}, "unknown tag 'nope'"),
    ({"tag": "loss"}, "'loss' is a scalars tag"),
    ({"runs": "tf2"}, "'runs' must be a list of strings"),
    ({"x_axis": "time"}, "'x_axis' must be one of"),
])
def test_errors(page: Page, fields: dict, message: str) -> None:
    for kind in ("histograms", "distributions"):
        reply, buffers = page.ask({"type": kind, "id": 9, "tag": "weights", "runs": ["tf2"], **fields})
        assert reply["type"] == "error" and reply["id"] == 9 and message in reply["message"]
        assert buffers == []


# -- torch's SummaryWriter ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def torch_logdir(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[int, np.ndarray]]:
    torch = pytest.importorskip("torch")
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("torch_histograms")
    rng = np.random.default_rng(5)
    data = {step: rng.normal(step, 1 + step, size=1000).astype(np.float32) for step in range(3)}
    writer = SummaryWriter(log_dir=str(root / "torch"))
    for step, values in data.items():
        writer.add_histogram("layer/weight", torch.from_numpy(values), step)
    writer.close()
    return root, data


@pytest.mark.torch
def test_torch_histograms_and_distributions(make_board, torch_logdir) -> None:
    root, data = torch_logdir
    page = Page(make_board(root))
    request = {"id": 1, "tag": "layer/weight", "runs": ["torch"], "x_axis": "step"}
    (hist,) = page.decoded({"type": "histograms", **request})["series"]
    assert hist["steps"].tolist() == [0, 1, 2]
    lo = min(float(v.min()) for v in data.values())
    hi = max(float(v.max()) for v in data.values())
    assert (hist["edges"][0], hist["edges"][-1]) == (lo, hi)
    np.testing.assert_allclose(hist["counts"].sum(axis=1), [1000, 1000, 1000], rtol=1e-12)
    # torch's fine buckets, spread over the common bins, follow the data's own 30-bin histogram
    for step, values in data.items():
        direct = np.histogram(values, bins=hist["edges"])[0]
        assert np.abs(hist["counts"][step] - direct).max() <= 0.05 * 1000
    (dist,) = page.decoded({"type": "distributions", **request})["series"]
    for step, values in data.items():
        assert dist["values"][step, 0] == float(values.min()) and dist["values"][step, 8] == float(values.max())
        assert abs(dist["values"][step, 4] - np.median(values)) < 0.05 * (1 + step)
