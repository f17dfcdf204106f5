"""The house rules that code review alone lets slip, checked on the source of ``tbnb``:

* no import circle among tbnb's modules (relative and absolute imports, at module level, in
  functions and under ``TYPE_CHECKING``);
* no module uses another tbnb module's underscore (private) name (``from x import _y`` or
  ``x._y``; dunder names such as ``__version__`` are public);
* no source file over ``MAX_LINES`` lines (generated protobuf code and the built page aside);
* the reader never imports widget code.

Each check runs once per part of the package (``tbnb`` for its top-level modules, then every
subpackage), so that a failure names the part it is in.

And on the page's source, ``js/src`` (imports read with a regex: ``import ... from "..."``,
``export ... from "..."``, ``import "..."`` and dynamic ``import("...")``):

* no import circle among its modules, and no relative import of a file that is not there;
* no file over ``MAX_LINES`` lines;
* the dashboards are the same on both sides: the kernel's registry
  (``tbnb/board/dashboards/__init__.py``'s ``MODULES``), the page's (``js/src/dashboards/index.js``,
  one ``dashboards/<name>.js`` each, declaring ``id: "<name>"``) and ``constants.json``'s list.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "tbnb"
MAX_LINES = 400
#: What the reader must never import: widget libraries and the Board.
WIDGET_MODULES = ("anywidget", "ipywidgets", "traitlets", "tbnb.board")


def _generated(path: Path) -> bool:
    return path.name.endswith(("_pb2.py", "_pb2.pyi")) or "static" in path.relative_to(PACKAGE).parts


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass
class Module:
    """One tbnb module: what it imports (tbnb modules and others) and which private names of
    other tbnb modules it uses."""

    name: str
    path: Path
    is_package: bool
    imports: set[str] = field(default_factory=set)
    private_uses: list[str] = field(default_factory=list)

    @property
    def part(self) -> str:
        return _part_of(self.path)


def _part_of(path: Path) -> str:
    """``tbnb`` for a top-level module, else ``tbnb.<subpackage>``."""
    inner = path.relative_to(PACKAGE).parts
    return f"tbnb.{inner[0]}" if len(inner) > 1 else "tbnb"


def _modules() -> dict[str, Module]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if _generated(path):
            continue
        name = _module_name(path)
        found[name] = Module(name, path, path.name == "__init__.py")
    for module in found.values():
        _read_imports(module, found)
    return found


def _absolute(module: Module, level: int, target: str | None) -> str:
    """The absolute name of ``from <level dots><target> import ...`` written in ``module``."""
    if level == 0:
        return target or ""
    base = module.name.split(".")
    if not module.is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _tbnb_module(name: str, known: dict[str, Module]) -> str | None:
    """The tbnb module ``name`` is, or lies in (``tbnb.reader.run.Run`` -> ``tbnb.reader.run``)."""
    while name:
        if name in known:
            return name
        name = name.rpartition(".")[0]
    return None


def _read_imports(module: Module, known: dict[str, Module]) -> None:
    tree = ast.parse(module.path.read_text(), str(module.path))
    bound: dict[str, str] = {}  # local name -> the tbnb module it is bound to
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                module.imports.add(alias.name)
                target = _tbnb_module(alias.name, known)
                if target is not None:
                    if alias.asname:
                        bound[alias.asname] = alias.name
                    else:
                        bound[alias.name.split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node.level, node.module)
            for alias in node.names:
                full = f"{source}.{alias.name}"
                if full in known:  # ``from pkg import submodule``
                    module.imports.add(full)
                    bound[alias.asname or alias.name] = full
                    continue
                module.imports.add(source)
                if _tbnb_module(source, known) and _private(alias.name):
                    module.private_uses.append(f"from {source} import {alias.name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = _dotted(node.value)
            if owner is None or owner.split(".")[0] not in bound:
                continue
            head, _, rest = owner.partition(".")
            resolved = bound[head] + (f".{rest}" if rest else "")
            if resolved in known and resolved != module.name:
                module.private_uses.append(f"{resolved}.{node.attr}")


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _dotted(node: ast.expr) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        inner = _dotted(node.value)
        return None if inner is None else f"{inner}.{node.attr}"
    return None


MODULES = _modules()
PARTS = sorted({m.part for m in MODULES.values()})


def _edges(name: str) -> set[str]:
    """The tbnb modules ``name`` imports (a name inside a module counts as that module)."""
    out = set()
    for imported in MODULES[name].imports:
        target = _tbnb_module(imported, MODULES)
        if target is not None and target != name:
            out.add(target)
    return out


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan's algorithm) of ``graph``
    (node -> the nodes it imports; edges to nodes outside it are ignored)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v] & graph.keys()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return found


def _circles() -> list[list[str]]:
    """The import circles among tbnb's modules."""
    return _cycles({name: _edges(name) for name in MODULES})


#: Parts whose violations are known and being mended, per check (none now): each becomes a
#: strict xfail, so a part that comes to pass says so and its entry goes.
KNOWN: dict[tuple[str, str], str] = {}


def _parts(check: str) -> list[object]:
    return [pytest.param(part, marks=pytest.mark.xfail(reason=KNOWN[(check, part)], strict=True))
            if (check, part) in KNOWN else part for part in PARTS]


def test_the_checks_see_the_package() -> None:
    assert {"tbnb", "tbnb.reader", "tbnb.board"} <= set(PARTS)
    assert "tbnb.reader.run" in _edges("tbnb.reader.logdir")
    assert "tbnb.reader.proto.event_pb2" not in MODULES  # generated code is not read
    assert any(_widget(i) for m in MODULES.values() if m.part == "tbnb.board" for i in m.imports)


@pytest.mark.parametrize("part", _parts("circles"))
def test_no_import_circle(part: str) -> None:
    circles = [c for c in _circles() if any(MODULES[m].part == part for m in c)]
    loops = "; ".join(" <-> ".join(c) for c in circles)
    assert circles == [], f"modules that import each other in a loop: {loops}"


@pytest.mark.parametrize("part", _parts("private"))
def test_no_module_uses_another_modules_private_names(part: str) -> None:
    uses = {m.name: m.private_uses for m in MODULES.values() if m.part == part and m.private_uses}
    assert uses == {}


@pytest.mark.parametrize("part", _parts("size"))
def test_no_source_file_is_too_long(part: str) -> None:
    files = [p for p in PACKAGE.rglob("*.py*") if p.suffix in (".py", ".pyi") and not _generated(p)]
    long = {str(p.relative_to(ROOT)): n for p in files
            if _part_of(p) == part and (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"files over {MAX_LINES} lines"


def _widget(name: str) -> bool:
    return any(name == w or name.startswith(f"{w}.") for w in WIDGET_MODULES)


def test_the_reader_never_imports_widget_code() -> None:
    bad = {m.name: sorted(filter(_widget, m.imports)) for m in MODULES.values() if m.part == "tbnb.reader"}
    assert {name: found for name, found in bad.items() if found} == {}


# -- the page's source (js/src) ------------------------------------------------------------------

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
    assert {"board.js", "router.js", "dashboards/index.js", "dashboards/scalars.js"} <= graph.keys()
    assert "dashboards/scalars.js" in graph["dashboards/index.js"]  # export ... from
    assert "router.js" in graph["board.js"]  # import ... from
    assert any(spec == "tbnb:markdown-libs" for spec in js_imports(JS_SRC / "markdown.js"))  # import("...")


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
    page = re.findall(r'export\s*\{\s*dashboard\s+as\s+(\w+)\s*\}\s*from\s*"\./(\w+)\.js"', JS_COMMENT.sub("", index))
    assert [name for name, _ in page] == shared, "js/src/dashboards/index.js against constants.json's dashboards"
    for name, stem in page:
        assert stem == name, f"dashboard {name} lives in dashboards/{name}.js, not {stem}.js"
        assert f'id: "{name}"' in (JS_SRC / "dashboards" / f"{stem}.js").read_text(), f"{stem}.js's id"
    kernel = _kernel_dashboards()
    assert sorted(kernel) == sorted(set(shared) - PAGE_ONLY), "tbnb/board/dashboards MODULES against constants.json"
    for name in kernel:
        assert (PACKAGE / "board" / "dashboards" / f"{name}.py").is_file()


#: The Board's own page modules, which no dashboard may import: a dashboard gets the Board as its
#: cards' ``board`` and the dashboard contract's helpers (js/src/api.js), never the Board's
#: machinery, so a built-in dashboard uses nothing an installed one could not reach the same way
#: (docs/writing-a-dashboard.md).
BOARD_INTERNALS = {"board.js", "board_listen.js", "layout.js", "router.js", "requests.js", "header.js",
                   "sections.js", "cards.js", "run_selector.js", "settings.js", "plugins.js", "api.js"}


def dashboard_shortcuts(src: Path) -> list[str]:
    """``dashboards/x.js -> internal.js`` for each import of the Board's internals by a dashboard."""
    graph, _ = js_graph(src)
    return sorted(f"{name} -> {target}" for name, targets in graph.items() if name.startswith("dashboards/")
                  for target in targets if target in BOARD_INTERNALS)


def test_no_dashboard_imports_the_boards_internals(tmp_path: Path) -> None:
    assert dashboard_shortcuts(JS_SRC) == [], "dashboards importing the Board's own modules"
    (tmp_path / "dashboards").mkdir()
    (tmp_path / "layout.js").write_text("export const x = 1;\n")
    (tmp_path / "dashboards" / "mine.js").write_text('import { x } from "../layout.js";\n')
    assert dashboard_shortcuts(tmp_path) == ["dashboards/mine.js -> layout.js"]
