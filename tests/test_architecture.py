"""The house rules that code review alone lets slip, checked on the source of ``tbnb``:

* no import circle among tbnb's modules (relative and absolute imports, at module level, in
  functions and under ``TYPE_CHECKING``);
* no module uses another tbnb module's underscore (private) name (``from x import _y`` or
  ``x._y``; dunder names such as ``__version__`` are public);
* no source file over ``MAX_LINES`` lines (generated protobuf code and the built page aside);
* the reader never imports widget code.

Each check runs once per part of the package (``tbnb`` for its top-level modules, then every
subpackage), so that a failure names the part it is in.

The page's source, ``js/src``, has its own checks in ``test_architecture_js.py``.
"""

from __future__ import annotations

import ast
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
