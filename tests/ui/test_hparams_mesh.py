"""The hparams and mesh dashboards in a real JupyterLab and Notebook 7: an hparams sweep written
by torch (``add_hparams`` per trial, training scalars in the parent runs) drawn as parallel
coordinates with a line per trial; ticking table rows sets ``board.runs`` (read back from the
kernel); meshes written by torch's ``add_mesh`` drawn as a mesh3d and a point cloud, the camera
shared by the runs of one mesh. Screenshots in tests/artifacts/."""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from .harness import (
    BoardPage,
    BrowserLog,
    JupyterServer,
    assert_no_js_errors,
    assert_only_loopback,
    open_notebook,
    own_page,
    printed_json,
    run_cell,
    screenshot,
)

NB = "hparams_mesh.ipynb"
TRIALS = [({"lr": 0.1, "optimizer": "sgd"}, 0.71), ({"lr": 0.01, "optimizer": "adam"}, 0.84),
          ({"lr": 0.001, "optimizer": "adam"}, 0.79), ({"lr": 0.03, "optimizer": "rmsprop"}, 0.8)]


def write_sweep(root: Path) -> None:
    from torch.utils.tensorboard import SummaryWriter

    for i, (hparams, acc) in enumerate(TRIALS):
        w = SummaryWriter(str(root / f"trial{i}"))
        for s in range(5):
            w.add_scalar("train/loss", 1.0 / (s + 1) + 0.1 * i, s)
        w.add_hparams(hparams, {"hparam/accuracy": acc})
        w.close()


def write_meshes(root: Path) -> None:
    import torch
    from torch.utils.tensorboard import SummaryWriter

    # A tetrahedron (faces, colours) at steps 0 and 1 in runs a and b; a point cloud in run a.
    vertices = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]], dtype=np.float32)
    faces = np.array([[0, 1, 2], [0, 1, 3], [0, 2, 3], [1, 2, 3]], dtype=np.int32)
    colors = np.array([[230, 40, 40], [40, 200, 40], [40, 40, 230], [230, 200, 40]], dtype=np.uint8)
    for k, run in enumerate(("a", "b")):
        w = SummaryWriter(str(root / run))
        for step in (0, 1):
            w.add_mesh("tetra", torch.from_numpy(vertices[None] * (1 + step + k)), colors=torch.from_numpy(colors[None]),
                       faces=torch.from_numpy(faces[None]), global_step=step,
                       config_dict={"camera": {"cls": "PerspectiveCamera", "fov": 75}})
        if run == "a":
            cloud = np.random.default_rng(1).normal(size=(1, 200, 3)).astype(np.float32)
            w.add_mesh("cloud", torch.from_numpy(cloud), global_step=0)
        w.close()


C_HP, C_STATE, C_MESH = range(3)


def cells(sweep: Path, meshes: Path) -> list[str]:
    return [
        f"import json\nimport tbnb\nboard = tbnb.show({str(sweep)!r}, reload_interval=0, dashboard='hparams')",
        'print("STATE", json.dumps({"runs": board.runs, "join": board.hparams_join, "all": board.logdir.runs()}))',
        f"meshes = tbnb.show({str(meshes)!r}, reload_interval=0, dashboard='mesh')",
    ]


@dataclass
class HM(BoardPage):
    pass


@pytest.fixture(scope="module")
def nb(jupyter_server: JupyterServer, browser):
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "hpmesh-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_sweep(logdir / "sweep")
    write_meshes(logdir / "meshes")
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        s = HM(jupyter_server, page, log, logdir)
        jupyter_server.write_notebook(NB, cells(logdir / "sweep", logdir / "meshes"))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_HP)
        run_cell(page, NB, C_MESH)
        yield s


PARCOORDS_JS = """
(plot) => ({type: plot.data[0].type, dims: plot.data[0].dimensions.map((d) => [d.name, Array.from(d.values)]),
            canvases: plot.querySelectorAll('canvas').length,
            ticks: [...plot.querySelectorAll('.tick text, .axis-title')].map((t) => t.textContent)})
"""


def test_parcoords_has_a_line_per_trial_and_rows_select_runs(nb: HM):
    from playwright.sync_api import expect

    s = nb
    board = s.board(C_HP)
    card = board.locator('.tbnb-card[data-kind="hparams"]')
    expect(card).to_have_count(1)
    plot = card.locator(".tbnb-hp-parcoords.js-plotly-plot")
    expect(plot).to_have_count(1, timeout=60_000)
    s.page.wait_for_function("(p) => Array.isArray(p.data) && p.data.length === 1", arg=plot.element_handle())
    fig = plot.evaluate(PARCOORDS_JS)
    assert fig["type"] == "parcoords" and fig["canvases"] > 0
    dims = dict(fig["dims"])
    assert list(dims) == ["lr", "optimizer", "hparam/accuracy"]
    assert all(len(v) == len(TRIALS) for v in dims.values()), "one line per trial"
    assert sorted(dims["lr"]) == sorted(h["lr"] for h, _ in TRIALS)
    np.testing.assert_allclose(sorted(dims["hparam/accuracy"]), sorted(a for _, a in TRIALS), rtol=1e-6)
    assert {"adam", "rmsprop", "sgd"} <= set(fig["ticks"])
    rows = card.locator(".tbnb-hp-grid tbody tr")
    expect(rows).to_have_count(len(TRIALS))
    board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    s.page.wait_for_timeout(500)
    screenshot(s.page, f"hparams-{s.front_end}")

    # Sorting by a column click.
    card.locator('.tbnb-hp-grid th[data-key="hparam/accuracy"]').click()
    accs = [float(t) for t in rows.evaluate_all(
        "(rs) => rs.map((r) => r.children[r.parentElement.parentElement.querySelector('th[data-key=\"hparam/accuracy\"]').cellIndex].textContent)")]
    assert accs == sorted(accs)

    # Ticking two rows selects those trials' runs and their parent runs, on the kernel's side.
    picked = []
    for i in (0, 2):
        row = rows.nth(i)
        picked.append(row.get_attribute("data-run"))
        row.locator("input[type=checkbox]").check()
        s.page.wait_for_timeout(300)
    state = printed_json(s.page, NB, C_STATE, "STATE")
    shown = [r for r in state["all"] if any(re.fullmatch(p, r) for p in state["runs"])]
    parents = [p.rsplit("/", 1)[0] for p in picked]
    assert sorted(shown) == sorted([*picked, *parents]), (state["runs"], picked)
    expect(card.locator("tbody tr.tbnb-hp-selected")).to_have_count(2)
    screenshot(s.page, f"hparams-selected-{s.front_end}")

    # Brushing the lr axis (as a drag does: a constraint range) filters the table.
    plot.evaluate("(p) => window.Plotly.restyle(p, {'dimensions[0].constraintrange': [[0.005, 0.05]]})")
    expect(rows).to_have_count(2)
    plot.evaluate("(p) => window.Plotly.restyle(p, {'dimensions[0].constraintrange': null})")
    expect(rows).to_have_count(len(TRIALS))

    # The CSV download: the shown columns and rows, formulas neutralised.
    with s.page.expect_download() as got:
        card.locator('button[title^="Download the table"]').click()
    text = Path(got.value.path()).read_text(encoding="utf-8")
    lines = text.splitlines()
    assert lines[0] == "run,status,lr,optimizer,hparam/accuracy" and len(lines) == 1 + len(TRIALS), text

    # A filter by range leaves the matching rows; "All runs" selects nothing again.
    box = card.locator('input.tbnb-hp-filter[data-key="lr"]')
    box.fill("0.005..0.05")
    expect(rows).to_have_count(2)
    box.fill("")
    card.locator(".tbnb-hp-all").click()
    s.page.wait_for_timeout(300)
    assert printed_json(s.page, NB, C_STATE, "STATE")["runs"] == [".*"]

    # The parent join adds the training curves' last values as a column.
    card.locator("select").select_option("parent")
    expect(card.locator('.tbnb-hp-grid th[data-key="train/loss"]')).to_have_count(1, timeout=30_000)
    assert printed_json(s.page, NB, C_STATE, "STATE")["join"] == "parent"
    assert_no_js_errors(s.log)


MESH_JS = """
(plot) => ({type: plot.data[0].type, n: plot.data[0].x.length, faces: plot.data[0].i ? plot.data[0].i.length : 0,
            colors: plot.data[0].vertexcolor ? plot.data[0].vertexcolor.length : 0,
            eye: plot._fullLayout.scene.camera.eye})
"""


def test_meshes_draw_and_share_the_camera(nb: HM):
    from playwright.sync_api import expect

    s = nb
    board = s.board(C_MESH)
    board.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    tetra = board.locator('.tbnb-mesh-panel[data-mesh="tetra"]')
    plots = tetra.locator(".tbnb-mesh-plot.js-plotly-plot")
    expect(plots).to_have_count(2, timeout=60_000)
    for i in range(2):
        s.page.wait_for_function("(p) => Array.isArray(p.data) && p.data.length === 1", arg=plots.nth(i).element_handle())
    a = plots.nth(0).evaluate(MESH_JS)
    assert (a["type"], a["n"], a["faces"], a["colors"]) == ("mesh3d", 4, 4, 4)
    cloud = board.locator('.tbnb-mesh-panel[data-mesh="cloud"] .tbnb-mesh-plot.js-plotly-plot')
    expect(cloud).to_have_count(1)
    s.page.wait_for_function("(p) => Array.isArray(p.data) && p.data.length === 1", arg=cloud.element_handle())
    c = cloud.evaluate(MESH_JS)
    assert (c["type"], c["n"], c["faces"]) == ("scatter3d", 200, 0)
    expect(tetra.locator(".tbnb-mesh-step")).to_have_text("step 1")
    tetra.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    s.page.wait_for_timeout(500)
    screenshot(s.page, f"mesh-{s.front_end}")

    # Turning run a's view turns run b's.
    plots.nth(0).evaluate("(p) => window.Plotly.relayout(p, {'scene.camera': {eye: {x: 2.2, y: 0.3, z: 0.4}}})")
    s.page.wait_for_function("(p) => Math.abs(p._fullLayout.scene.camera.eye.x - 2.2) < 1e-9", arg=plots.nth(1).element_handle())
    # The step slider shows step 0 in every run.
    slider = tetra.locator("input.tbnb-mesh-slider")
    slider.evaluate("(el) => { el.value = 0; el.dispatchEvent(new Event('input')); }")
    expect(tetra.locator(".tbnb-mesh-meta").first).to_contain_text("step 0")
    expect(tetra.locator(".tbnb-mesh-meta").nth(1)).to_contain_text("step 0")
    s.page.wait_for_function("(p) => p.data[0].x[1] === 1", arg=plots.nth(0).element_handle())
    screenshot(s.page, f"mesh-step0-{s.front_end}")
    assert_no_js_errors(s.log)
    assert_only_loopback(s.log)
