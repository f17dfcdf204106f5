"""The house rules on the page's source, ``js/src``, checked as ``test_architecture.py`` checks
tbnb's Python (imports are read with a regex: ``import ... from "..."``,
``export ... from "..."``, ``import "..."`` and dynamic ``import("...")``):

* no import circle among its modules, and no relative import of a file that is not there;
* no file over ``MAX_LINES`` lines;
* the dashboards are the same on both sides: the kernel's registry
  (``tbnb/board/dashboards/__init__.py``'s ``MODULES``), the page's (``js/src/dashboards/index.js``,
  one ``dashboards/<name>.js`` or ``dashboards/<name>/<name>.js`` each, declaring ``id: "<name>"``)
  and ``constants.json``'s list;
* every file is in its folder: ``core``, ``cards``, ``widgets``, ``dashboards`` (one ``<name>.js``
  or ``<name>/`` per dashboard, nothing else), and only the files of ``TOP_FILES`` loose at the top;
* a built-in dashboard imports only its own files and the dashboard contract: from outside its
  folder, only names that ``api.js`` imports from the same module and exposes in ``API`` (issue
  37: what ships uses what an installed dashboard gets), never another dashboard's files nor the
  Board's machinery; ``CONTRACT_EXCEPTIONS`` lists, with their reasons, the imports that may not.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter
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


# -- where files go, and what a dashboard may import -------------------------------------------

#: The only files loose at js/src's top: the dashboard contract and small helpers every part uses.
#: Everything else is in a folder: ``core`` (the Board's machinery: entry, router, codec, requests,
#: traits, plotly loading), ``cards`` (shared card types), ``widgets`` (shared parts of the page:
#: run selector, settings, header, tables, lists) and ``dashboards``.
TOP_FILES = {"api.js", "dom.js", "format.js", "naturalsort.js", "download.js", "focus.js", "runs.js", "groups.js",
             "run_groups.js", "series.js", "smoothing.js", "xaxis.js"}
FOLDERS = {"core", "cards", "widgets", "dashboards"}
#: A dashboard file's imports from outside its folder that are not the contract, each with why.
#: The media view is built apart from the bundle (js/build.mjs LAZY) and carries the compare row of
#: the image and audio cards: api.js importing it would put it back in the bundle every widget saves.
CONTRACT_EXCEPTIONS = {
    "dashboards/images/media_view.js -> cards/blob_compare.js": "built apart from the bundle (LAZY)",
}


def misplaced(src: Path, dashboards: set[str]) -> list[str]:
    """The files and folders of ``src`` outside the layout: a loose file not in ``TOP_FILES``, a
    folder not in ``FOLDERS``, and in ``dashboards/`` anything but ``index.js`` and, per
    dashboard, ``<name>.js`` or a ``<name>/`` folder."""
    bad = [f"{p.name}{'/' if p.is_dir() else ''}" for p in sorted(src.iterdir())
           if (p.name not in FOLDERS if p.is_dir() else p.suffix == ".js" and p.name not in TOP_FILES)]
    board = src / "dashboards"
    allowed = {"index.js"} | {f"{name}.js" for name in dashboards} | set(dashboards)
    bad += [f"dashboards/{p.name}" for p in sorted(board.iterdir()) if p.name not in allowed] if board.is_dir() else []
    return bad


#: Named imports ``import { a, b as c } from "m"`` / ``export { a } from "m"``; any other import
#: (default, namespace, side effect, dynamic) is listed with the name ``*``.
JS_NAMED = re.compile(r"""\b(?:import|export)\s*\{([^}]*)\}\s*from\s*["']([^"']+)["']""")


def named_imports(path: Path) -> dict[str, set[str]]:
    """Module specifier -> the names ``path`` imports from it (``*``: more than named imports)."""
    text = JS_COMMENT.sub("", path.read_text(encoding="utf-8"))
    named: dict[str, set[str]] = {}
    statements: Counter[str] = Counter()
    for m in JS_NAMED.finditer(text):
        named.setdefault(m.group(2), set()).update(
            part.split(" as ")[0].strip() for part in m.group(1).split(",") if part.strip())
        statements[m.group(2)] += 1
    return {spec: named.get(spec, set()) | ({"*"} if n > statements[spec] else set())
            for spec, n in Counter(js_imports(path)).items()}


def _resolved(path: Path, src: Path) -> dict[str, set[str]]:
    """``named_imports`` of ``path`` with relative specifiers as paths under ``src``."""
    return {(path.parent / spec).resolve().relative_to(src.resolve()).as_posix(): names
            for spec, names in named_imports(path).items() if spec.startswith(".")}


def contract(src: Path) -> dict[str, set[str]]:
    """What api.js imports (module under ``src`` -> names) and puts in its ``API`` object."""
    api = src / "api.js"
    imported = _resolved(api, src)
    exposed = JS_COMMENT.sub("", api.read_text(encoding="utf-8")).split("export const API", 1)[-1]
    return {module: {n for n in names if re.search(rf"\b{re.escape(n)}\b", exposed)}
            for module, names in imported.items()}


def dashboard_shortcuts(src: Path) -> list[str]:
    """Each import by a built-in dashboard's file of something that is neither its own (its
    ``dashboards/<name>.js`` or ``dashboards/<name>/``) nor the contract's (a module api.js
    imports, and only names api.js imports from it and exposes in ``API``): another dashboard's
    file, the Board's machinery, or a helper the contract does not offer."""
    allowed = contract(src)
    bad = []
    for path in sorted((src / "dashboards").rglob("*.js")):
        name = path.relative_to(src).as_posix()
        own = name.split("/")[1].removesuffix(".js")
        if name == "dashboards/index.js":
            continue  # the registry imports every dashboard
        for target, names in _resolved(path, src).items():
            if target.startswith("dashboards/"):
                if target.split("/")[1].removesuffix(".js") != own:
                    bad.append(f"{name} -> {target} (another dashboard's)")
                continue
            extra = sorted(names - allowed.get(target, set()))
            if extra and f"{name} -> {target}" not in CONTRACT_EXCEPTIONS:
                bad.append(f"{name} -> {target}: {', '.join(extra)}")
    return bad


def test_files_are_in_their_folders() -> None:
    assert misplaced(JS_SRC, set(_kernel_dashboards()) | PAGE_ONLY) == []


def test_a_file_in_the_wrong_folder_fails(tmp_path: Path) -> None:
    for folder in ("core", "dashboards/scalars", "dashboards/stray", "tools"):
        (tmp_path / folder).mkdir(parents=True)
    for name in ("api.js", "core/board.js", "histogram.js", "dashboards/index.js", "dashboards/scalars/scalars.js",
                 "dashboards/text.js", "dashboards/scalars_plot.js"):
        (tmp_path / name).write_text("")
    found = misplaced(tmp_path, {"scalars", "text"})
    assert found == ["histogram.js", "tools/", "dashboards/scalars_plot.js", "dashboards/stray"]


def test_built_in_dashboards_import_only_their_own_files_and_the_contract() -> None:
    assert dashboard_shortcuts(JS_SRC) == [], "dashboards going around js/src/api.js (the contract)"
    for exception in CONTRACT_EXCEPTIONS:  # each still needed
        source, target = exception.split(" -> ")
        assert target in _resolved(JS_SRC / source, JS_SRC), f"{exception} is no longer imported"


def test_a_dashboard_going_around_the_contract_fails(tmp_path: Path) -> None:
    """Another dashboard's file, the Board's machinery, a helper api.js does not expose, a name of
    a contract module api.js does not import, and a namespace import all fail; the own folder,
    and names api.js imports and exposes, pass."""
    for folder in ("core", "dashboards/mine", "dashboards/other"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "core" / "layout.js").write_text("export const registry = 1;\n")
    (tmp_path / "core" / "codec.js").write_text("export const decode = 1, encode = 2, hidden = 3;\n")
    (tmp_path / "api.js").write_text('import { decode, encode } from "./core/codec.js";\n'
                                     "export const API = { codec: { decode } };\n")
    (tmp_path / "dashboards" / "other" / "plot.js").write_text("export const plot = 1;\n")
    (tmp_path / "dashboards" / "mine" / "util.js").write_text("export const util = 1;\n")
    (tmp_path / "dashboards" / "mine" / "mine.js").write_text(
        'import { util } from "./util.js";\nimport { decode } from "../../core/codec.js";\n')
    assert dashboard_shortcuts(tmp_path) == []
    (tmp_path / "dashboards" / "mine" / "mine.js").write_text(
        'import { util } from "./util.js";\nimport {\n  decode,\n  encode,\n  hidden as h,\n} from "../../core/codec.js";\n'
        'import { plot } from "../other/plot.js";\nimport { registry } from "../../core/layout.js";\n')
    (tmp_path / "dashboards" / "other" / "other.js").write_text('import * as codec from "../../core/codec.js";\n')
    assert dashboard_shortcuts(tmp_path) == [
        "dashboards/mine/mine.js -> core/codec.js: encode, hidden",
        "dashboards/mine/mine.js -> dashboards/other/plot.js (another dashboard's)",
        "dashboards/mine/mine.js -> core/layout.js: registry",
        "dashboards/other/other.js -> core/codec.js: *",
    ]
