"""Run groups in a real browser (JupyterLab 4 and Notebook 7), on seeds written by torch's
SummaryWriter: with ``board.run_groups`` set from Python each group is drawn as one line with a
band filled around it (the drawn band holds the kernel's statistics), the hover names the group,
n and its runs, the run selector shows each group, foldable, its checkbox hiding every member,
and the data table lists groups with "mean ± spread". Screenshot:
tests/artifacts/run-groups-<front end>.png.
"""

from __future__ import annotations

import shutil
from typing import Any

import numpy as np
import pytest

from .harness import BrowserLog, assert_no_js_errors, open_notebook, own_page, printed_json, run_cell, screenshot

pytestmark = pytest.mark.ui

NB = "rungroups.ipynb"
PATTERN = r"(?P<group>cfg_[ab])/seed_\d+"
RUNS = ("cfg_a/seed_0", "cfg_a/seed_1", "cfg_a/seed_2", "cfg_b/seed_0", "cfg_b/seed_1", "baseline")
C_SHOW, C_READ, C_HIDDEN, C_SHOWALL = range(4)


def value(run: str, step: int) -> float:
    seed = int(run[-1]) if "seed" in run else 0
    base = 2.0 if run.startswith("cfg_a") else 1.0 if run.startswith("cfg_b") else 0.5
    return float(np.float32(base * np.exp(-step / 60) + 0.15 * seed + 0.05 * np.sin(step / 7 + seed)))


def every(run: str) -> int:
    """How many steps apart a run logs: seeds every 2, 3, 4 steps (uneven), baseline every 2."""
    return 2 + (int(run[-1]) if "seed" in run else 0)


def notebook_cells(logdir: str) -> list[str]:
    return [
        "import json\nimport tbnb\n"
        f"board = tbnb.show({logdir!r}, reload_interval=0, smoothing=0, dashboard='scalars',\n"
        f"                  run_groups={PATTERN!r}, group_band='minmax')",
        "board.selected_step = 100\nframe = board.logdir.to_pandas(groups=board.run_groups)\n"
        "print('READ', json.dumps({'table': json.loads(board.step_table('loss').to_json(orient='records')),\n"
        "    'groups': json.loads(frame[frame.tag == 'loss'].to_json(orient='records'))}))",
        "print('HIDDEN', json.dumps(sorted(board.hidden_runs)))",
        "board.hidden_runs = []",
    ]


# The "loss" card's traces as drawn: per group its line, band edges; the hover layer's text.
TRACES_JS = """
() => {
  const root = document.querySelector('.jp-Notebook .jp-OutputArea .tbnb');
  const card = root && root.querySelector(".tbnb-card[data-tag='loss']");
  const plot = card && card.querySelector('.tbnb-plot');
  if (!plot || !plot.data) return null;
  const out = { groups: {}, runs: [], fills: plot.querySelectorAll('.fills path').length };
  plot.data.forEach((t, i) => {
    if (t.meta && t.meta.group) out.groups[t.meta.group] = { ...(out.groups[t.meta.group] || {}), line: Array.from(t.y),
      step: t.customdata.map((c) => c[1]), n: t.customdata.map((c) => c[2]), color: t.line.color };
    else if (t.meta && t.meta.band) {
      const g = out.groups[t.meta.band] = out.groups[t.meta.band] || {};
      g[t.fill === 'tonexty' ? 'upper' : 'lower'] = Array.from(t.y);
      if (t.fill) g.fillcolor = t.fillcolor;
    } else if (t.hoverinfo !== 'skip') out.runs.push(t.name);
  });
  out.sub = card.querySelector('.tbnb-card-sub').textContent;
  const rows = [...card.querySelectorAll('.tbnb-data-table tbody tr')];
  out.table = rows.map((tr) => ({ run: tr.dataset.run,
    cells: Object.fromEntries([...tr.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, td.textContent])) }));
  return out;
}
"""


@pytest.fixture(scope="module")
def groups_page(jupyter_server, browser):
    from torch.utils.tensorboard import SummaryWriter

    logdir = jupyter_server.root_dir / "grouplogs"
    shutil.rmtree(logdir, ignore_errors=True)
    for run in RUNS:
        with SummaryWriter(str(logdir / run)) as w:
            for step in range(0, 301, every(run)):
                w.add_scalar("loss", value(run, step), step)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        page.set_viewport_size({"width": 1400, "height": 1000})
        jupyter_server.write_notebook(NB, notebook_cells(str(logdir)))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        page.wait_for_function(f"() => {{ const t = ({TRACES_JS})(); return !!t && Object.keys(t.groups).length === 2 }}",
                               timeout=60_000, polling=200)
        yield page, log, jupyter_server.front_end


def traces(page: Any) -> dict:
    return page.evaluate(TRACES_JS)


def test_band_drawn_around_each_group_line(groups_page) -> None:
    page, log, front_end = groups_page
    read = printed_json(page, NB, C_READ, "READ")
    drawn = traces(page)
    assert drawn["runs"] == ["baseline"]  # the members are drawn as their group only
    assert drawn["fills"] >= 2  # plotly drew a filled band per group
    kernel = {}
    for row in read["groups"]:
        kernel.setdefault(row["group"], []).append(row)
    for group in ("cfg_a", "cfg_b"):
        g = drawn["groups"][group]
        rows = kernel[group]
        assert g["fillcolor"].startswith("rgba(") and g["fillcolor"].endswith(", 0.2)")
        assert g["step"] == [r["step"] for r in rows]  # every point: fewer than the card's width
        np.testing.assert_allclose(g["line"], [r["mean"] for r in rows], rtol=1e-7, atol=1e-9)  # to_json keeps 10 digits
        np.testing.assert_allclose(g["lower"], [r["min"] for r in rows], rtol=1e-7, atol=1e-9)  # to_json keeps 10 digits
        np.testing.assert_allclose(g["upper"], [r["max"] for r in rows], rtol=1e-7, atol=1e-9)  # to_json keeps 10 digits
        assert all(lo <= y <= hi for lo, y, hi in zip(g["lower"], g["line"], g["upper"]))
        assert g["n"] == [r["n"] for r in rows]
    assert drawn["groups"]["cfg_a"]["color"] != drawn["groups"]["cfg_b"]["color"]
    assert "2 groups (5 runs)" in drawn["sub"]
    # the card counts the points it draws from: the members' as well as baseline's (not 0 for the groups)
    points = sum(len(range(0, 301, every(run))) for run in RUNS)
    assert drawn["sub"].startswith(f"{points} points · "), (drawn["sub"], points)
    # the table lists the groups with mean ± spread at the selected step
    page.wait_for_function(f"() => {{ const t = ({TRACES_JS})(); return t && t.table.some((r) => r.run === 'cfg_a' && r.cells.value.includes('±')) }}",
                           timeout=30_000, polling=200)
    table = {r["run"]: r for r in traces(page)["table"]}
    assert set(table) == {"baseline", "cfg_a", "cfg_b"}
    kernel_row = next(r for r in read["table"] if r["run"] == "cfg_a")
    mean, spread = (float(v) for v in table["cfg_a"]["cells"]["value"].split(" ± "))
    assert mean == pytest.approx(kernel_row["value"], rel=1e-3)
    assert spread == pytest.approx(kernel_row["spread"], rel=1e-3)
    assert "±" not in table["baseline"]["cells"]["value"]
    # hover over the chart: the group, n and its runs
    card = page.locator(".tbnb-card[data-tag='loss']").first
    card.scroll_into_view_if_needed()
    box = card.locator(".nsewdrag").first.bounding_box()
    hover = card.locator(".hoverlayer")
    for fx in (0.3, 0.5, 0.4, 0.6):
        page.mouse.move(box["x"] + fx * box["width"], box["y"] + 0.5 * box["height"])
        page.wait_for_timeout(200)
        if "cfg_a/seed_1" in (hover.text_content() or ""):
            break
    text = hover.text_content() or ""
    assert "cfg_a (mean)" in text and "n 3/3" in text and "cfg_a/seed_0, cfg_a/seed_1, cfg_a/seed_2" in text
    path = screenshot(page, f"run-groups-{front_end}")
    assert path.exists()
    page.mouse.move(0, 0)
    assert_no_js_errors(log)


def test_run_selector_shows_groups(groups_page) -> None:
    page, log, front_end = groups_page
    root = page.locator(".jp-Notebook .jp-OutputArea .tbnb").first
    group = root.locator(".tbnb-run-group[data-group='cfg_a']")
    assert group.locator(".tbnb-group-count").text_content() == "3/3"
    assert root.locator(".tbnb-run-group").count() == 2
    assert root.locator(".tbnb-group-member").count() == 0  # folded
    group.locator(".tbnb-group-fold").click()
    members = root.locator(".tbnb-group-member")
    assert members.count() == 3
    assert [members.nth(i).locator(".tbnb-run-name").text_content() for i in range(3)] == list(RUNS[:3])
    screenshot(page, f"run-groups-selector-{front_end}")
    # the group's checkbox hides every member
    group.locator("input[type=checkbox]").uncheck()
    hidden = None
    for _ in range(20):
        hidden = printed_json(page, NB, C_HIDDEN, "HIDDEN")
        if hidden:
            break
        page.wait_for_timeout(250)
    assert hidden == list(RUNS[:3])
    page.wait_for_function(f"() => {{ const t = ({TRACES_JS})(); return t && Object.keys(t.groups).join() === 'cfg_b' }}",
                           timeout=30_000, polling=200)
    run_cell(page, NB, C_SHOWALL)
    page.wait_for_function(f"() => {{ const t = ({TRACES_JS})(); return t && Object.keys(t.groups).length === 2 }}",
                           timeout=30_000, polling=200)
    assert_no_js_errors(log)
