"""The projector dashboard in a real browser (JupyterLab 4 and Notebook 7): a 3D point cloud drawn
by our WebGL renderer (headless Chromium runs --disable-gpu; WebGL comes from SwiftShader), a
legend for a categorical colour column, a search set from Python highlighting its rows, a click in
the page setting ``projector_selection``, 2D drawn by the same renderer with a flat camera, and
an embedding with a sprite (torch's ``label_img``) drawn as its thumbnails, whose bookmark list
applies a bookmark. Screenshots: tests/artifacts/projector-*.png.
"""

from __future__ import annotations

import json
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

    # 2D: the same renderer with a flat camera; the selection still labelled
    run_cell(page, NB, C_2D)
    flat = b.locator("canvas[data-testid=projector-canvas][data-dims='2']")
    expect(flat).to_have_count(1, timeout=60_000)
    b.locator(".tbnb-projector").evaluate("(el) => el.scrollIntoView({block: 'start'})")
    page.wait_for_timeout(500)
    ink = flat.evaluate(INK_JS)
    assert ink > 200, f"{front}: the 2D canvas is blank ({ink} inked pixels)"
    expect(b.locator(".tbnb-pj-label")).to_have_count(1)
    screenshot(page, f"projector-2d-{front}")
    assert_no_js_errors(log)
    assert_only_loopback(log)


SPRITE_NB = "projector-sprites.ipynb"
HOSTILE_LABEL = "<img src=x onerror=window.__pwned=12>"
SN = 60
# Pixels of the canvas that are strongly red: the sprites' colour, never the dots' (default blue).
RED_JS = INK_JS.replace("if (data[i] < 240 || data[i + 1] < 240 || data[i + 2] < 240) ink++;",
                        "if (data[i] > 200 && data[i + 1] < 80 && data[i + 2] < 80) ink++;")


def write_sprite_logdir(root):
    """torch's add_embedding with label_img: even rows red squares, odd rows green; a bookmarks
    file (TensorBoard's saved States) added to the written config."""
    import torch
    from torch.utils.tensorboard import SummaryWriter

    rng = np.random.default_rng(1)
    feats = rng.normal(size=(SN, 8)).astype(np.float32)
    images = np.zeros((SN, 3, 16, 16), np.float32)
    images[0::2, 0] = 1.0
    images[1::2, 1] = 1.0
    w = SummaryWriter(str(root / "run"))
    w.add_embedding(torch.from_numpy(feats), metadata=[f"img{i}" for i in range(SN)],
                    label_img=torch.from_numpy(images), tag="pics")
    w.close()
    (root / "run" / "marks.json").write_text(
        json.dumps([{"label": "flat pair", "selectedProjection": "pca", "pcaComponentDimensions": [0, 1], "selectedPoints": [2, 3]},
                    {"label": HOSTILE_LABEL, "selectedProjection": "pca"}]))
    config = root / "run" / "projector_config.pbtxt"
    config.write_text(config.read_text().replace('tensor_name: "pics:00000"',
                                                 'tensor_name: "pics:00000"\n  bookmarks_path: "marks.json"'))


def test_projector_sprites_and_bookmarks(jupyter_server: JupyterServer, browser):
    pytest.importorskip("torch.utils.tensorboard")
    from playwright.sync_api import expect

    from .harness import cell_output

    logdir = jupyter_server.root_dir / "proj-sprite-logs"
    shutil.rmtree(logdir, ignore_errors=True)
    write_sprite_logdir(logdir)
    log = BrowserLog()
    front = jupyter_server.front_end
    with own_page(browser, log, jupyter_server) as page:
        jupyter_server.write_notebook(SPRITE_NB, [
            "import json\nimport tbnb\n"
            f"board = tbnb.show({str(logdir)!r}, reload_interval=0, dashboard='projector', projector_dims=3)",
            'print("STATE", json.dumps({"method": board.projector_method, "dims": board.projector_dims,'
            ' "params": board.projector_params, "selection": board.projector_selection}))',
        ])
        open_notebook(page, jupyter_server, SPRITE_NB)
        run_cell(page, SPRITE_NB, 0)
        b = cell_output(page, 0).locator(".tbnb")
        b.evaluate("(el) => el.scrollIntoView({block: 'start'})")
        canvas = b.locator("canvas[data-testid=projector-canvas]")
        expect(canvas).to_have_count(1, timeout=90_000)
        expect(b.locator(".tbnb-pj-status")).to_have_text(f"{SN} points", timeout=60_000)
        page.wait_for_function("(c) => { const x = document.createElement('canvas'); x.width = c.width; x.height = c.height;"
                               " const g = x.getContext('2d'); g.drawImage(c, 0, 0); const d = g.getImageData(0, 0, x.width, x.height).data;"
                               " for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 80 && d[i + 2] < 80) return true; return false; }",
                               arg=canvas.element_handle(), timeout=30_000)
        red = canvas.evaluate(RED_JS)
        assert red > 30 * 16, f"{front}: the sprites are not drawn ({red} red pixels)"
        screenshot(page, f"projector-sprites-{front}")
        # the bookmark list applies a bookmark's projection and selection
        marks = b.locator(".tbnb-pj-bookmarks .tbnb-pj-link")
        expect(marks).to_have_text(["flat pair", HOSTILE_LABEL])  # a label from the logs is text
        expect(b.locator(".tbnb-pj-bookmarks img")).to_have_count(0)
        marks.first.click()
        expect(b.locator("canvas[data-testid=projector-canvas][data-dims='2']")).to_have_count(1, timeout=60_000)
        expect(b.locator(".tbnb-pj-selection h4")).to_have_text("Selection: 2 points")
        state = printed_json(page, SPRITE_NB, 1, "STATE")
        assert state == {"method": "pca", "dims": 2, "params": {"components": [0, 1]}, "selection": [2, 3]}, state
        page.wait_for_timeout(500)
        screenshot(page, f"projector-bookmark-{front}")
        assert page.evaluate("() => window.__pwned === undefined")
    assert_no_js_errors(log)
    assert_only_loopback(log)
