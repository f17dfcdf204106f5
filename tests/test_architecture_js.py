"""The house rules on the page's source, ``js/src``, checked as ``test_architecture.py`` checks
tbnb's Python (imports are read with a regex: ``import ... from "..."``,
``export ... from "..."``, ``import "..."`` and dynamic ``import("...")``):

* no import circle among its modules, and no relative import of a file that is not there;
* no file over ``MAX_LINES`` lines;
* the dashboards are the same on both sides: the kernel's registry
  (``tbnb/board/dashboards/__init__.py``'s ``MODULES``), the page's (``js/src/dashboards/index.js``,
  one ``dashboards/<name>.js`` or ``dashboards/<name>/<name>.js`` each, declaring ``id: "<name>"``)
  and ``constants.json``'s list.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from tests.test_architecture import MAX_LINES, _cycles

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tbnb"

JS_SRC = ROOT / "js" / "src"
#: ``import x from "m"`` / ``import {a,\n b} from "m"`` / ``import "m"`` / ``export ... from "m"``,
#: or a dynamic ``import("m")``: the specifier is group 1 or 2.
JS_IMPORT = re.compile(
    r"""\bimport\s*\(\s*["']([^"']+)["']\s*\)"""
    r"""|\b(?:import|export)\s+(?:[\w$*{}\s,]+?\s+from\s+)?["']([^"']+)["']""")
#: A comment line (``//``, or a line of a ``/* ... */`` block): its words are not imports.
JS_COMMENT = re.compile(r"^\s*(?://|/?\*).*$|(?:^|\s)//.*$", re.MULTILINE)
#: Dashboards with no kernel module: the time series tab draws the other dashboards' card types
#: on one page and asks nothing of its own.
PAGE_ONLY = {"timeseries"}


def js_imports(path: Path) -> list[str]:
    """The module specifiers ``path`` imports or re-exports, in order."""
    text = JS_COMMENT.sub("", path.read_text(encoding="utf-8"))
    return [m.group(1) or m.group(2) for m in JS_IMPORT.finditer(text)]


def js_graph(src: Path) -> tuple[dict[str, set[str]], list[str]]:
    """Module (path under ``src``) -> the modules under ``src`` it imports, and the relative
    imports that name no file. Bare specifiers (npm packages, the build's ``tbnb:`` modules)
    are not the page's source."""
    graph: dict[str, set[str]] = {}
    missing = []
    for path in sorted(src.rglob("*.js")):
        name = path.relative_to(src).as_posix()
        graph[name] = set()
        for spec in js_imports(path):
            if not spec.startswith("."):
                continue
            target = (path.parent / spec).resolve()
            if not target.is_file():
                missing.append(f"{name}: {spec}")
            elif target.is_relative_to(src.resolve()) and target.suffix == ".js":
                graph[name].add(target.relative_to(src.resolve()).as_posix())
    return graph, missing


def js_long_files(src: Path) -> dict[str, int]:
    return {p.relative_to(src).as_posix(): n for p in sorted(src.rglob("*.js"))
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}


def test_the_js_checks_see_the_page() -> None:
    graph, _ = js_graph(JS_SRC)
    assert {"core/board.js", "core/router.js", "dashboards/index.js", "dashboards/scalars.js"} <= graph.keys()
    assert "dashboards/scalars.js" in graph["dashboards/index.js"]  # export ... from
    assert "core/router.js" in graph["core/board.js"]  # import ... from
    markdown = JS_SRC / "dashboards" / "text" / "markdown.js"
    assert any(spec == "tbnb:markdown-libs" for spec in js_imports(markdown))  # import("...")


def test_the_js_checks_catch_a_circle_and_a_long_file(tmp_path: Path) -> None:
    """A circle through a multi-line import, a re-export and a dynamic import; a 401-line file."""
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.js").write_text('import {\n  b,\n  c,\n} from "./sub/b.js";\n// import "./c.js";\n')
    (tmp_path / "sub" / "b.js").write_text('export { x } from "./c.js";\n')
    (tmp_path / "sub" / "c.js").write_text('const later = () => import("../a.js");\n' + "\n" * 400)
    (tmp_path / "d.js").write_text('/* import "./a.js" */\nimport "./gone.js";\n' + "\n" * 398)  # 400 lines
    graph, missing = js_graph(tmp_path)
    assert _cycles(graph) == [["a.js", "sub/b.js", "sub/c.js"]]
    assert graph["d.js"] == set() and missing == ["d.js: ./gone.js"]
    assert js_long_files(tmp_path) == {"sub/c.js": 401}


def test_no_js_import_circle() -> None:
    graph, missing = js_graph(JS_SRC)
    loops = "; ".join(" <-> ".join(c) for c in _cycles(graph))
    assert _cycles(graph) == [], f"js/src modules that import each other in a loop: {loops}"
    assert missing == [], "relative imports of files that are not there"


def test_no_js_file_is_too_long() -> None:
    assert js_long_files(JS_SRC) == {}, f"js/src files over {MAX_LINES} lines"


def _kernel_dashboards() -> list[str]:
    """The names in ``MODULES`` of tbnb/board/dashboards/__init__.py, in order."""
    tree = ast.parse((PACKAGE / "board" / "dashboards" / "__init__.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign) and "MODULES" in ast.unparse(node).split("=")[0]:
            assert isinstance(node.value, ast.List)
            return [elt.id for elt in node.value.elts if isinstance(elt, ast.Name)]
    raise AssertionError("no MODULES list in tbnb/board/dashboards/__init__.py")


def test_the_kernel_and_the_page_have_the_same_dashboards() -> None:
    shared = json.loads((PACKAGE / "board" / "constants.json").read_text())["dashboards"]
    index = (JS_SRC / "dashboards" / "index.js").read_text()
    page = re.findall(r'export\s*\{\s*dashboard\s+as\s+(\w+)\s*\}\s*from\s*"\./([\w/]+\.js)"', JS_COMMENT.sub("", index))
    assert [name for name, _ in page] == shared, "js/src/dashboards/index.js against constants.json's dashboards"
    for name, module in page:
        assert module in (f"{name}.js", f"{name}/{name}.js"), f"dashboard {name} lives in {module}"
        assert f'id: "{name}"' in (JS_SRC / "dashboards" / module).read_text(), f"{module}'s id"
    kernel = _kernel_dashboards()
    assert sorted(kernel) == sorted(set(shared) - PAGE_ONLY), "tbnb/board/dashboards MODULES against constants.json"
    for name in kernel:
        assert (PACKAGE / "board" / "dashboards" / f"{name}.py").is_file()


#: The Board's own page modules, which no dashboard may import: a dashboard gets the Board as its
#: cards' ``board`` and the dashboard contract's helpers (js/src/api.js), never the Board's
#: machinery, so a built-in dashboard uses nothing an installed one could not reach the same way
#: (docs/writing-a-dashboard.md).
BOARD_INTERNALS = {"core/board.js", "core/board_listen.js", "core/layout.js", "core/router.js", "core/requests.js",
                   "widgets/header.js", "widgets/sections.js", "core/cards.js", "widgets/run_selector.js",
                   "widgets/settings.js", "core/plugins.js", "api.js"}


def dashboard_shortcuts(src: Path) -> list[str]:
    """``dashboards/x.js -> internal.js`` for each import of the Board's internals by a dashboard."""
    graph, _ = js_graph(src)
    return sorted(f"{name} -> {target}" for name, targets in graph.items() if name.startswith("dashboards/")
                  for target in targets if target in BOARD_INTERNALS)


def test_no_dashboard_imports_the_boards_internals(tmp_path: Path) -> None:
    assert dashboard_shortcuts(JS_SRC) == [], "dashboards importing the Board's own modules"
    (tmp_path / "dashboards").mkdir()
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "layout.js").write_text("export const x = 1;\n")
    (tmp_path / "dashboards" / "mine.js").write_text('import { x } from "../core/layout.js";\n')
    assert dashboard_shortcuts(tmp_path) == ["dashboards/mine.js -> core/layout.js"]
