"""The projector dashboard in a real browser (JupyterLab 4 and Notebook 7): a 3D point cloud drawn
by our WebGL renderer (headless Chromium runs --disable-gpu; WebGL comes from SwiftShader), a
legend for a categorical colour column, a search set from Python highlighting its rows, a click in
the page setting ``projector_selection``, and 2D through plotly's scattergl. Screenshots:
tests/artifacts/projector-*.png.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from .harness import BrowserLog, JupyterServer, assert_no_js_errors, assert_only_loopback, open_notebook, own_page, printed_json, run_cell, screenshot

pytestmark = pytest.mark.ui

NB = "projector.ipynb"
N, D = 300, 16
KINDS = ("cat", "dog", "bird")
C_SHOW, C_SEARCH, C_STATE, C_2D = range(4)


def write_logdir(root):
    import torch
    from torch.utils.tensorboard import SummaryWriter

    rng = np.random.default_rng(0)
    centres = rng.normal(0, 4, size=(3, D))
    kinds = [KINDS[i % 3] for i in range(N)]
    feats = np.stack([centres[i % 3] + rng.normal(size=D) for i in range(N)]).astype(np.float32)
    names = [f"{k}{i}" for i, k in enumerate(kinds)]
    w = SummaryWriter(str(root / "run"))
    w.add_embedding(torch.from_numpy(feats), metadata=list(zip(names, kinds)), metadata_header=["name", "kind"], tag="feats")
    w.close()
    return names, kinds


def cells(logdir) -> list[str]:
    return [
        "import json\nimport tbnb\n"
        f"board = tbnb.show({str(logdir)!r}, reload_interval=0, dashboard='projector', projector_dims=3,\n"
        "                  projector_color_by='kind', projector_label_by='name')",
        "board.projector_search = '^cat'",
        'print("STATE", json.dumps({"selection": board.projector_selection}))',
        "board.projector_dims = 2",
    ]


# Non-white pixels of the 3D canvas (its drawing buffer is preserved, so it can be read back).
INK_JS = """
(canvas) => {
  const c = document.createElement('canvas');
  c.width = canvas.width; c.height = canvas.height;
  const ctx = c.getContext('2d');
  ctx.drawImage(canvas, 0, 0);
  const data = ctx.getImageData(0, 0, c.width, c.height).data;
  let ink = 0;
  for (let i = 0; i < data.length; i += 4) if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) ink++;
  return ink;
}
"""


@pytest.fixture(scope="module")
def nb(jupyter_server: JupyterServer, browser):
    pytest.importorskip("torch.utils.tensorboard")
    logdir = jupyter_server.root_dir / "proj-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    names, kinds = write_logdir(logdir)
    log = BrowserLog()
    with own_page(browser, log, jupyter_server) as page:
        jupyter_server.write_notebook(NB, cells(logdir))
        open_notebook(page, jupyter_server, NB)
        run_cell(page, NB, C_SHOW)
        yield jupyter_server, page, log, names, kinds


def board(page):
    from .harness import cell_output

    return cell_output(page, C_SHOW).locator(".tbnb")


def test_projector(nb):
    from playwright.sync_api import expect

    server, page, log, names, kinds = nb
    front = server.front_end
    b = board(page)
    b.evaluate("(el) => el.scrollIntoView({block: 'start'})")
    canvas = b.locator("canvas[data-testid=projector-canvas]")
    expect(canvas).to_have_count(1, timeout=90_000)
    expect(b.locator(".tbnb-pj-status")).to_have_text(f"{N} points", timeout=60_000)
    page.wait_for_timeout(300)
    ink = canvas.evaluate(INK_JS)
    assert ink > 200, f"{front}: the 3D canvas is blank ({ink} inked pixels)"
    # colour by a categorical column: a legend of its values and counts
    legend = b.locator(".tbnb-pj-legend")
    expect(legend).to_contain_text("Colour: kind")
    for k in KINDS:
        expect(legend).to_contain_text(f"{k} ({N // 3})")
    screenshot(page, f"projector-3d-{front}")

    # a search set from Python selects the matching rows; the page highlights and labels them
    run_cell(page, NB, C_SEARCH)
    cats = [i for i, n in enumerate(names) if n.startswith("cat")]
    expect(b.locator(".tbnb-pj-selection h4")).to_have_text(f"Selection: {len(cats)} points")
    labels = b.locator(".tbnb-pj-label")
    expect(labels).to_have_count(min(len(cats), 50))
    assert all(t.startswith("cat") for t in labels.all_text_contents())
    screenshot(page, f"projector-search-{front}")

    # a click on a point in the page sets projector_selection in the kernel
    target = labels.first
    row_name = target.text_content()
    box = canvas.bounding_box()
    left = target.evaluate("(el) => parseFloat(el.style.left)")
    top = target.evaluate("(el) => parseFloat(el.style.top)")
    page.mouse.click(box["x"] + left, box["y"] + top)
    expect(b.locator(".tbnb-pj-selection h4")).to_have_text("Selection: 1 point")
    expect(b.locator(".tbnb-pj-neighbors")).to_contain_text("Nearest (cosine)")
    state = printed_json(page, NB, C_STATE, "STATE")
    assert len(state["selection"]) == 1 and names[state["selection"][0]].startswith("cat"), (state, row_name)
    assert names[state["selection"][0]] == row_name

    # 2D: plotly's scattergl with every point
    run_cell(page, NB, C_2D)
    plot = b.locator("[data-testid=projector-plot].js-plotly-plot")
    expect(plot).to_have_count(1, timeout=60_000)
    page.wait_for_function("(el) => Array.isArray(el.data) && el.data[0] && el.data[0].x.length === %d" % N,
                           arg=plot.element_handle(), timeout=30_000)
    kinds_drawn = plot.evaluate("(el) => el.data[0].type")
    assert kinds_drawn == "scattergl"
    b.locator(".tbnb-projector").evaluate("(el) => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(300)
    screenshot(page, f"projector-2d-{front}")
    assert_no_js_errors(log)
    assert_only_loopback(log)
