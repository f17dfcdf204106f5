"""The data table under a scalar card (``step_table`` request and ``Board.step_table``), checked
against the series real writers (torch's SummaryWriter) wrote: a run without the selected step,
a restart, NaN values, a range with no points; and the kernel's smoothing against the page's."""

from __future__ import annotations

import bisect
import json
import math
import shutil
import subprocess
import time
from pathlib import Path

import numpy as np
import pytest

from tbnb.board.dashboards.step_table import closest_index
from tbnb.board.smoothing import smooth
from tests.smoothing_bounds import U, dot_error, kernel_vs_loop

from ..conftest import Page

ROOT = Path(__file__).resolve().parents[3]
T0 = time.time() - 10_000
B_VALUES = {s: (math.nan if s == 55 else 2 - s / 100) for s in range(5, 101, 10)}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """"a": steps 0, 10, ..., 100 with 1/(s+1); "b": steps 5, 15, ..., 95, NaN at 55; "c": steps
    0..50 then a restart writing 30..70 again (negated values); "d": only "acc"."""
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path_factory.mktemp("steptable") / "logs"
    with SummaryWriter(str(root / "a")) as w:
        for s in range(0, 101, 10):
            w.add_scalar("loss", 1 / (s + 1), s, walltime=T0 + s)
    with SummaryWriter(str(root / "b")) as w:
        for s, v in B_VALUES.items():
            w.add_scalar("loss", v, s, walltime=T0 + 1000 + s)
    with SummaryWriter(str(root / "c")) as w:
        for s in range(0, 51, 10):
            w.add_scalar("loss", s, s, walltime=T0 + 2000 + s)
    with SummaryWriter(str(root / "c")) as w:  # the restart: same run directory, a new file
        for s in range(30, 71, 10):
            w.add_scalar("loss", -s, s, walltime=T0 + 3000 + s)
    with SummaryWriter(str(root / "d")) as w:
        w.add_scalar("acc", 0.5, 1, walltime=T0)
    return root


def tb_closest(steps: list[int], target: int) -> int:
    """TensorBoard's findClosestIndex, transcribed (d3's bisect is bisect_right)."""
    right = min(bisect.bisect_right(steps, target), len(steps) - 1)
    left = max(0, right - 1)
    return left if abs(steps[left] - target) - abs(steps[right] - target) <= 0 else right


def reference_smooth(ys: list[float], w: float) -> list[float]:
    """TensorBoard's debiased EMA as tensorboard-format.md states it: the oracle."""
    if all(y == ys[0] for y in ys):
        return list(ys)
    last, n, out = 0.0, 0, []
    for y in ys:
        if not math.isfinite(y):
            out.append(y)
            continue
        last = last * w + (1 - w) * y
        n += 1
        out.append(last if w == 1 else last / (1 - w ** n))
    return out


def table(page: Page, **fields: object) -> dict:
    request = {"type": "step_table", "id": 3, "tag": "loss", "runs": ["a", "b", "c"], "step": None,
               "range": None, "smoothing": 0.0, **fields}
    return page.decoded(request)


def same(a: float, b: float, bound: float = 0.0) -> bool:
    """Equal, both NaN, or within ``bound`` (an error bound of the two computations)."""
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= bound


def smoothing_bound(values: list[float], w: float) -> float:
    """How far the kernel's smoothed values (``smooth`` or ``smoothed_at``) may be from the
    loop's anywhere in ``values``: the error bounds of tests/smoothing_bounds.py, whatever order
    this CPU sums in."""
    ys = np.asarray(values, dtype=np.float64)
    kept = ys[np.isfinite(ys)]
    if not len(kept) or w == 1:
        return 0.0
    return float(kernel_vs_loop(ys, w).max()) + dot_error(kept, w)


def mean_bound(values: list[float]) -> float:
    """Two sums of the same n values in different orders (the table's numpy against Python's
    sum), each within n * u * sum|x|, then divided by n."""
    return 2 * len(values) * U * float(np.abs(values).sum()) / len(values) + 2 * U * float(np.abs(values).max())


def test_closest_index_is_tensorboards_rule() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        steps = sorted(rng.integers(0, 40, size=rng.integers(1, 12)).tolist())
        target = int(rng.integers(-5, 45))
        assert closest_index(np.asarray(steps), target) == tb_closest(steps, target), (steps, target)
    assert closest_index(np.asarray([10, 20]), 15) == 0  # a tie goes to the earlier step
    assert closest_index(np.asarray([10, 30, 30, 40]), 30) == 2  # the last point at that step
    assert closest_index(np.asarray([], dtype=np.int64), 5) == -1
    # not in step order (a restart read without sorting): same rule by distance
    assert closest_index(np.asarray([0, 10, 20, 10, 20]), 11) == 3
    assert closest_index(np.asarray([0, 20, 10]), 15) == 2


def test_table_at_a_step_against_the_series(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    page = Page(board)
    reply = table(page, step=55, smoothing=0.6)
    assert (reply["type"], reply["id"], reply["tag"], reply["mode"], reply["step"]) == ("step_table", 3, "loss", "step", 55)
    cols = reply["columns"]
    assert cols["run"] == ["a", "b", "c"]
    for i, run in enumerate(cols["run"]):
        s = board.logdir.scalars(run, "loss")
        steps = s.step.tolist()
        k = tb_closest(steps, 55)
        assert cols["step"][i] == steps[k]
        assert same(cols["value"][i], float(s.value[k]))
        assert same(cols["smoothed"][i], reference_smooth(s.value.tolist(), 0.6)[k], smoothing_bound(s.value.tolist(), 0.6))
        assert cols["wall"][i] == pytest.approx(float(s.wall_time[k]))
        assert cols["relative"][i] == pytest.approx(float(s.wall_time[k]) - board.logdir.run_start_time(run))
    # "a" has no step 55: 50 and 60 are as close, the earlier wins; "b" has 55, whose value is NaN
    assert cols["step"].tolist() == [50, 55, 50]
    assert math.isnan(cols["value"][1]) and math.isnan(cols["smoothed"][1])
    # "c" restarted at 30: the purged points (30, 40, 50 of the first write) are gone
    assert cols["value"][2] == -50.0


def test_default_step_is_the_cards_largest(make_board, logdir: Path) -> None:
    reply = table(Page(make_board(logdir)))
    assert reply["step"] == 100
    assert reply["columns"]["step"].tolist() == [100, 95, 70]


def test_restart_read_without_purging_takes_the_later_write(make_board, logdir: Path) -> None:
    board = make_board(logdir, purge_orphaned_data=False)
    cols = table(Page(board), step=40, runs=["c"])["columns"]
    assert board.logdir.scalars("c", "loss").step.tolist().count(40) == 2
    assert (cols["step"].tolist(), cols["value"].tolist()) == ([40], [-40.0])


def test_range_against_every_point_in_it(make_board, logdir: Path) -> None:
    board = make_board(logdir)
    reply = table(Page(board), range=[60, 20], smoothing=0.5)
    assert (reply["mode"], reply["range"], reply["step"]) == ("range", [20, 60], None)
    cols = reply["columns"]
    for i, run in enumerate(cols["run"]):
        s = board.logdir.scalars(run, "loss")
        steps, values = s.step.tolist(), s.value.tolist()
        sm = reference_smooth(values, 0.5)
        a, b = tb_closest(steps, 20), tb_closest(steps, 60)
        inside = [k for k, st in enumerate(steps) if 20 <= st <= 60]
        raw_inside = [values[k] for k in inside if not math.isnan(values[k])]
        sm_inside = [sm[k] for k in inside if not math.isnan(sm[k])]
        assert (cols["start_step"][i], cols["end_step"][i]) == (steps[a], steps[b])
        bound = smoothing_bound(values, 0.5)
        assert same(cols["start"][i], sm[a], bound) and same(cols["end"][i], sm[b], bound)
        assert same(cols["change"][i], sm[b] - sm[a], 2 * bound + 2 * U * abs(sm[b] - sm[a]))
        assert same(cols["raw_change"][i], values[b] - values[a])
        assert cols["points"][i] == len(inside)
        assert same(cols["min"][i], min(sm_inside), bound) and same(cols["max"][i], max(sm_inside), bound)
        assert same(cols["mean"][i], sum(raw_inside) / len(raw_inside), mean_bound(raw_inside))
        assert cols["step_at_min"][i] == steps[inside[[sm[k] for k in inside].index(min(sm_inside))]]
    # "b": steps 25, 35, 45, 55 (NaN, left out), in range; start 15 or 25 both 5 away from 20: 15
    b = cols["run"].index("b")
    assert (cols["points"][b], cols["start_step"][b], cols["end_step"][b]) == (4, 15, 55)
    assert cols["mean"][b] == pytest.approx(np.mean([B_VALUES[s] for s in (25, 35, 45)]))


def test_range_with_no_points(make_board, logdir: Path) -> None:
    cols = table(Page(make_board(logdir)), range=[41, 44], runs=["a", "b"])["columns"]
    assert cols["points"].tolist() == [0, 0]
    assert all(math.isnan(cols[c][i]) for c in ("min", "max", "mean") for i in range(2))
    assert cols["step_at_min"].tolist() == [-1, -1]  # no step: -1 on the wire
    assert cols["start_step"].tolist() == [40, 45] and cols["end_step"].tolist() == [40, 45]  # closest points


def test_board_step_table_follows_the_traits(make_board, logdir: Path) -> None:
    board = make_board(logdir, hidden_runs=["c"], smoothing=0.0)
    assert (board.step_selection, board.selected_step, board.range_selection, board.link_step) == (True, None, False, True)
    board.selected_step = 30
    frame = board.step_table("loss")
    assert list(frame.columns) == ["run", "step", "value", "smoothed", "relative", "wall"]
    assert frame["run"].tolist() == ["a", "b"]  # hidden runs absent, "d" has no loss
    assert frame["step"].tolist() == [30, 25]
    assert frame["value"].tolist() == pytest.approx([1 / 31, 1.75], rel=1e-6)
    assert frame["smoothed"].tolist() == frame["value"].tolist()  # smoothing 0
    board.range_selection = True
    board.selected_range = [80, 20]
    assert board.selected_range == [20, 80]
    frame = board.step_table("loss")
    assert {"start", "end", "min", "max", "mean", "change"} <= set(frame.columns)
    assert frame["points"].tolist() == [7, 6]
    # unlinked: a card's own selection (written by the page when its marker is dragged)
    board.range_selection = False
    board.card_steps = {"loss": {"step": 70, "range": None}}
    assert board.step_table("loss")["step"].tolist() == [30, 25]  # linked: the board's step
    board.link_step = False
    assert board.step_table("loss")["step"].tolist() == [70, 65]
    board.hidden_patterns = ["b"]  # switched off by a pattern, as by name
    assert board.step_table("loss")["run"].tolist() == ["a"]
    with pytest.raises(ValueError, match="unknown tag"):
        board.step_table("nope")


def test_bad_requests_and_settings_are_clear_errors(make_board, logdir: Path) -> None:
    from traitlets import TraitError

    board = make_board(logdir)
    page = Page(board)
    for fields, message in [({"step": "5"}, "'step' must be null or an integer"),
                            ({"range": [1]}, "'range' must be null or"),
                            ({"smoothing": "x"}, "'smoothing' must be a number"),
                            ({"tag": "acc", "runs": ["a"]}, None)]:
        reply, _ = page.ask({"type": "step_table", "id": 1, "tag": "loss", "runs": ["a"], **fields})
        if message is None:
            assert reply["type"] == "step_table" and reply["columns"]["run"] == []
        else:
            assert reply["type"] == "error" and message in reply["message"]
    with pytest.raises(TraitError):
        board.tooltip_sort = "random"
    with pytest.raises(TraitError):
        board.tooltip_rows = -1
    with pytest.raises(TraitError):
        board.card_steps = {"loss": {"step": "x"}}
    with pytest.raises(TraitError):
        board.selected_range = [1, 2, 3]


def test_step_table_is_pushed_when_points_arrive(make_board, tmp_path: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    root = tmp_path / "live"
    writer = SummaryWriter(str(root / "run"))
    writer.add_scalar("loss", 1.0, 0)
    writer.flush()
    board = make_board(root)
    page = Page(board)
    page.ask({"type": "step_table", "id": 9, "tag": "loss", "runs": ["run"], "step": None, "smoothing": 0})
    writer.add_scalar("loss", 0.5, 10)
    writer.close()
    board.refresh()
    pushed = [(c, b) for c, b in page.recorder.sent if c.get("type") == "step_table" and c.get("push")]
    assert len(pushed) == 1
    from tbnb.board.codec import decode

    msg = decode(*pushed[0])
    assert (msg["id"], msg["step"], msg["columns"]["value"].tolist()) == (9, 10, [0.5])


def test_kernel_smoothing_equals_the_pages(tmp_path: Path) -> None:
    """The same points through js/src/smoothing.js (node) and tbnb.board.smoothing."""
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not installed")
    rng = np.random.default_rng(1)
    cases = [(rng.normal(size=500).cumsum().tolist(), 0.6), ([1.0, math.nan, 3.0, math.inf, 2.0], 0.9),
             ([4.0, 4.0, 4.0], 0.5), (rng.normal(size=50).tolist(), 0.999), ([1.0, 2.0], 1.0), ([], 0.3)]
    script = tmp_path / "smooth.mjs"
    module = (ROOT / "js" / "src" / "smoothing.js").as_uri()
    script.write_text(
        f'import {{ smooth }} from "{module}";\n'
        'const cases = JSON.parse(process.argv[2]);\n'
        'console.log(JSON.stringify(cases.map(([ys, w]) => Array.from(smooth(ys.map(Number), w), String))));\n')
    text = {math.inf: "Infinity", -math.inf: "-Infinity"}  # JS's Number() spellings; NaN is "nan" -> NaN
    payload = json.dumps([[[text.get(v, repr(v)) for v in ys], w] for ys, w in cases])
    out = subprocess.run([node, str(script), payload], capture_output=True, text=True, timeout=60, check=True)
    js = [[float(v) for v in ys] for ys in json.loads(out.stdout)]
    for (ys, w), expected in zip(cases, js):
        got = smooth(np.asarray(ys, dtype=np.float64), w).tolist()
        assert len(got) == len(expected)
        bound = kernel_vs_loop(np.asarray(ys, dtype=np.float64), w)  # the page's loop is the reference's
        assert all(same(g, e, b) for g, e, b in zip(got, expected, bound)), (w, got[:5], expected[:5])
        assert all(same(g, r, b) for g, r, b in zip(got, reference_smooth(ys, w) if ys else [], bound))
