"""``python -m tests.bench.graph_board``: the graphs dashboard in a real JupyterLab and headless
Chromium, on synthetic 10k and 100k-node GraphDefs; and TensorBoard's graph dashboard on the
same 10k file, in the same run.

From the repository root. Per size and repetition, a fresh page: a Board on the logdir, then
``board.dashboard = "graphs"`` run as a cell; measured in the page (``performance.now()``):

- top level: from the graphs tab becoming the selected one (the trait reached the page) until
  the collapsed top level is drawn (the explorer marks its card after drawing; a frame later);
  the first time also fetches the explorer's script from the kernel;
- expand: the scope with the most children (at most 500) is made visible (its ancestors opened
  from Python), then its expand button is clicked: click until its children are drawn;
- longest main-thread block: the longest ``longtask`` (PerformanceObserver) from the tab switch
  to the end.

TensorBoard: ``tensorboard --logdir D --host 127.0.0.1 --port P`` on the 10k logdir, its graphs
tab opened in a fresh page: navigation start until its first graph node is in the DOM, and the
longest main-thread block over that time. Medians of ``--repeat``. Writes
``<cache>/graph-board-results.json`` and screenshots ``tests/artifacts/bench-graph-*.png``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from .board.session import VIEWPORT, new_page, session
from .cli import log
from .graph_data import synthetic_graph_def
from .measure import ROOT

TARGETS_MS = {"top": 1000.0, "expand": 500.0, "longest": 200.0}

# Observers installed in the page once the Board is shown: long tasks, the graphs tab switching
# on, and each draw of the explorer (its card's data-drawn attribute), a frame later.
INSTALL_JS = """
() => {
  const G = (window.__gb = {longtasks: [], tab: null, draws: []});
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) G.longtasks.push([e.startTime, e.duration]);
  }).observe({type: 'longtask', buffered: false});
  new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target;
      if (r.attributeName === 'aria-selected' && el.dataset.dashboard === 'graphs' &&
          el.getAttribute('aria-selected') === 'true' && G.tab === null) G.tab = performance.now();
      if (r.attributeName === 'data-drawn') {
        const at = performance.now();
        requestAnimationFrame(() => setTimeout(() => G.draws.push({at, painted: performance.now(),
          nodes: document.querySelectorAll('.tbnb-gnode').length, timings: JSON.parse(el.dataset.timings || '{}')}), 0));
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['aria-selected', 'data-drawn']});
  return true;
}
"""

CLICK_JS = """
(id) => {
  const g = [...document.querySelectorAll('.tbnb-gnode')].find((n) => n.dataset.id === id);
  const toggle = g && g.querySelector('.tbnb-gtoggle');
  if (!toggle) return null;
  window.__gb.click = performance.now();
  toggle.dispatchEvent(new MouseEvent('click', {bubbles: true}));
  return window.__gb.click;
}
"""

TB_LONGTASKS_JS = """
window.__lt = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__lt.push([e.startTime, e.duration]);
}).observe({type: 'longtask', buffered: true});
"""


def ensure_logdir(cache: Path, size: int) -> Path:
    """``<cache>/graph-board/<size>/run``: one event file holding the synthetic GraphDef."""
    from tbnb.testing import EventWriter

    root = cache / "graph-board" / str(size)
    if not (root / "run").is_dir() or not any((root / "run").iterdir()):
        log(f"writing the {size:,}-node graph ...")
        with EventWriter(root / "run") as w:
            w.add_graph_def(synthetic_graph_def(size))
    return root


def target_scope(logdir: Path) -> tuple[list[str], str, int]:
    """(ancestors to open, the scope, its children): the scope with the most children, at most 500."""
    import tbnb
    from tbnb.reader.plugins.graph import build_hierarchy
    from tbnb.reader.plugins.graph.display import children, display
    from tbnb.reader.plugins.graph.hierarchy import OP
    from tbnb.reader.plugins.graph.search import ancestors

    h = build_hierarchy(tbnb.load(logdir).graph("run"))
    d = display(h)
    best, best_n = -1, -1
    for item in range(h.n_ops, h.n_items):
        if item == h.root or h.kind[item] == OP or not d.present(item):
            continue
        n = len(children(d, item))
        if best_n < n <= 500:
            best, best_n = item, n
    return ancestors(h, d, best), h.names[best], best_n


def measure_board(sess: Any, logdir: Path, size: int, rep: int, shot: bool) -> dict[str, Any]:
    from tests.ui.harness import open_notebook, run_cell

    chain, scope, n_children = target_scope(logdir)
    name = f"graph-bench-{size}-{rep}.ipynb"
    cells = [f"import tbnb\nboard = tbnb.show({str(logdir)!r}, reload_interval=0)",
             "board.dashboard = 'graphs'", f"board.graph_expanded = {chain!r}"]
    sess.server.write_notebook(name, cells)
    with new_page(sess) as pg:
        page = pg.page
        open_notebook(page, sess.server, name)
        run_cell(page, name, 0)
        page.wait_for_selector(".tbnb .tbnb-tab", timeout=120_000)
        page.evaluate(INSTALL_JS)
        run_cell(page, name, 1)
        page.wait_for_function("() => window.__gb.draws.length >= 1", timeout=300_000, polling=100)
        gb = page.evaluate("() => window.__gb")
        top = gb["draws"][0]["painted"] - gb["tab"]
        top_parts = gb["draws"][0]["timings"]
        if chain:
            run_cell(page, name, 2)
            page.wait_for_function("(n) => window.__gb.draws.length >= n", arg=2, timeout=300_000, polling=100)
        seen = page.evaluate("() => window.__gb.draws.length")
        clicked = page.evaluate(CLICK_JS, scope)
        if clicked is None:
            raise RuntimeError(f"scope {scope!r} is not drawn")
        page.wait_for_function("(n) => window.__gb.draws.length > n", arg=seen, timeout=300_000, polling=100)
        gb = page.evaluate("() => window.__gb")
        last = gb["draws"][-1]
        expand = last["painted"] - gb["click"]
        longest = max((d for s, d in gb["longtasks"] if s >= gb["tab"]), default=0.0)
        if shot:
            page.locator(".tbnb-card-graph .tbnb-graph-fit").click()
            page.wait_for_timeout(300)
            _screenshot(page, f"bench-graph-{size}")
        errors = pg.errors()
    return {"top_ms": top, "top_parts": top_parts, "expand_parts": last["timings"], "expand_ms": expand, "expand_scope": scope, "expand_children": n_children,
            "nodes_after_expand": last["nodes"], "longest_ms": longest, "errors": errors[:5]}


def _screenshot(page: Any, name: str) -> None:
    out = ROOT / "tests" / "artifacts"
    out.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out / f"{name}.png"))


def _free_port() -> int:
    from tests.ui.harness import free_port

    return free_port()


def measure_tensorboard(browser: Any, logdir: Path, shot: bool, tmp: Path) -> dict[str, Any]:
    port = _free_port()
    out = (tmp / f"tensorboard-{port}.log").open("w")
    proc = subprocess.Popen([sys.executable, "-m", "tensorboard.main", "--logdir", str(logdir), "--host", "127.0.0.1",
                             "--port", str(port), "--load_fast=false"], stdout=out, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/data/runs", timeout=2) as r:
                    if json.loads(r.read()):
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("TensorBoard did not start (or found no run)")
            time.sleep(0.5)
        context = browser.new_context(viewport=VIEWPORT)
        try:
            context.add_init_script(TB_LONGTASKS_JS)
            page = context.new_page()
            page.goto(f"{url}/#graphs", wait_until="commit")
            page.wait_for_selector("g.node", timeout=300_000, state="attached")
            drawn = page.evaluate("() => performance.now()")
            longest = page.evaluate("(t) => Math.max(0, ...window.__lt.filter(([s]) => s <= t).map(([, d]) => d))", drawn)
            if shot:
                page.wait_for_timeout(500)
                _screenshot(page, "bench-graph-tensorboard-10000")
            return {"drawn_ms": drawn, "longest_ms": longest}
        finally:
            context.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        out.close()


def _median(values: list[float]) -> float | None:
    return statistics.median(values) if values else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.bench.graph_board", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="10000,100000", help="graph sizes (default 10000,100000)")
    parser.add_argument("--repeat", type=int, default=3, help="repetitions, medians quoted (default 3)")
    parser.add_argument("--cache", type=Path, default=ROOT / ".bench-cache")
    parser.add_argument("--no-tensorboard", action="store_true", help="skip TensorBoard's figure")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    logdirs = {size: ensure_logdir(args.cache, size) for size in sorted(set(sizes + [10_000]))}
    results: dict[str, Any] = {"repeat": args.repeat, "boards": {}, "tensorboard": []}
    import tempfile

    with session(log) as sess, tempfile.TemporaryDirectory(prefix="tbnb-bench-graph-") as tmp:
        for size in sizes:
            runs = []
            for rep in range(args.repeat):
                log(f"{size:,} nodes, repetition {rep + 1} ...")
                runs.append(measure_board(sess, logdirs[size] , size, rep, shot=rep == 0))
                log(f"  {json.dumps({k: (round(v, 1) if isinstance(v, float) else v) for k, v in runs[-1].items()})}")
            results["boards"][size] = runs
        if not args.no_tensorboard:
            for rep in range(args.repeat):
                log(f"TensorBoard, 10,000 nodes, repetition {rep + 1} ...")
                results["tensorboard"].append(measure_tensorboard(sess.browser, logdirs[10_000], rep == 0, Path(tmp)))
                log(f"  {results['tensorboard'][-1]}")
    (args.cache / "graph-board-results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(format_table(results))
    return 0


def format_table(results: dict[str, Any]) -> str:
    lines = [f"graphs dashboard, headless Chromium, medians of {results['repeat']} (ms)",
             f"{'nodes':>8} {'top level':>10} {'expand':>8} {'children':>9} {'longest block':>14}"]
    status = []
    for size, runs in results["boards"].items():
        top = _median([r["top_ms"] for r in runs])
        expand = _median([r["expand_ms"] for r in runs])
        longest = _median([r["longest_ms"] for r in runs])
        lines.append(f"{int(size):>8,} {top:>10.0f} {expand:>8.0f} {runs[0]['expand_children']:>9} {longest:>14.0f}")
        for key, value in (("top", top), ("expand", expand), ("longest", longest)):
            status.append(f"{'PASS' if value <= TARGETS_MS[key] else 'FAIL'} {int(size):,} {key}: "
                          f"{value:.0f} ms (target <= {TARGETS_MS[key]:.0f} ms)")
    tb = results["tensorboard"]
    if tb:
        tb_drawn = _median([r["drawn_ms"] for r in tb])
        tb_long = _median([r["longest_ms"] for r in tb])
        ours = _median([r["top_ms"] for r in results["boards"].get(10_000, [])]) if 10_000 in results["boards"] else None
        lines.append(f"TensorBoard 10,000 nodes: graph drawn {tb_drawn:.0f} ms after navigation, longest block {tb_long:.0f} ms")
        if ours:
            lines.append(f"ratio TensorBoard / tbnb (10k, top level drawn): {tb_drawn / ours:.1f}")
    return "\n".join(lines + status)


if __name__ == "__main__":
    sys.exit(main())
