"""The house rules that code review alone lets slip, checked on the source of ``tbnb``:

* no import circle among tbnb's modules (relative and absolute imports, at module level, in
  functions and under ``TYPE_CHECKING``);
* no module uses another tbnb module's underscore (private) name (``from x import _y`` or
  ``x._y``; dunder names such as ``__version__`` are public);
* no source file over ``MAX_LINES`` lines (generated protobuf code and the built page aside);
* the reader never imports widget code;
* imports only go down the layers: the wire format (``tbnb/format``) below everything; the
  reader's layers ``files`` < ``records`` < ``events`` < ``runs`` < ``plugins`` < ``logdir``, one
  folder each, with ``user_regex`` below them and the package's ``__init__`` above; the writer
  imports the format and never the reader. A module loose at ``tbnb/reader``'s top that is not
  one of those two is in no layer, and fails too.

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


def _generated(path: Path, package: Path = PACKAGE) -> bool:
    return path.name.endswith(("_pb2.py", "_pb2.pyi")) or "static" in path.relative_to(package).parts


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
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


def _modules(package: Path = PACKAGE) -> dict[str, Module]:
    """Every module of ``package`` (a folder named ``tbnb``: the real one, or a test's copy)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        if _generated(path, package):
            continue
        name = _module_name(path, package.parent)
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
    """The tbnb module ``name`` is, or lies in (``tbnb.reader.runs.run.Run`` -> ``tbnb.reader.runs.run``)."""
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
    assert "tbnb.reader.runs.run" in _edges("tbnb.reader.logdir.logdir")
    assert "tbnb.format.proto.event_pb2" not in MODULES  # generated code is not read
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


# -- the layers: tbnb/format below everything, the reader's folders in order, the writer apart --

#: The reader's layers, lowest first, one folder of ``tbnb/reader`` each: a module imports its own
#: layer and the layers before it, never a later one.
READER_LAYERS = ("files", "records", "events", "runs", "plugins", "logdir")
#: The modules loose at ``tbnb/reader``'s top, and where they stand: the regex compiler every layer
#: (and the Board) uses below the layers, the package itself (lazy ``Logdir``/``load``) above them.
READER_TOP = {"tbnb.reader.user_regex": -1, "tbnb.reader": len(READER_LAYERS)}
FORMAT = -2  # tbnb/format: the wire format, below every layer of the reader
ABOVE = len(READER_LAYERS) + 1  # the rest of tbnb (the Board, the cards, the CLI...)


def _rank(name: str) -> int | None:
    """Where ``name`` stands in the stack; None for a reader module in no layer."""
    if name == "tbnb.format" or name.startswith("tbnb.format."):
        return FORMAT
    if name in READER_TOP:
        return READER_TOP[name]
    if name.startswith("tbnb.reader."):
        layer = name.split(".")[2]
        return READER_LAYERS.index(layer) if layer in READER_LAYERS else None
    return ABOVE


def _allowed(source: str, target: str) -> bool:
    """May ``source`` import ``target``? The writer: itself and the format; the format: itself;
    the reader: down its layers (and the format); the rest of tbnb: anything (circles aside)."""
    if source.startswith("tbnb.writer"):
        return target.startswith(("tbnb.writer", "tbnb.format"))
    rank, other = _rank(source), _rank(target)
    if rank is None or rank == ABOVE:
        return rank == ABOVE
    return other is not None and other <= rank


def layer_violations(modules: dict[str, Module]) -> list[str]:
    """``a -> b`` for each import that goes up the layers (or from the writer into the reader),
    ``a: in no layer`` for each reader module loose outside the layer folders."""
    found = []
    for name in sorted(modules):
        if name.startswith("tbnb.reader") and _rank(name) is None:
            found.append(f"{name}: in no layer")
            continue
        for imported in sorted(modules[name].imports):
            target = _tbnb_module(imported, modules)
            if target is not None and target != name and not _allowed(name, target):
                found.append(f"{name} -> {target}")
    return sorted(set(found))


#: Each layer's folder (and the format, the writer, tbnb/reader's top), checked apart so that a
#: failure names the folder it is in.
LAYER_FOLDERS = ["tbnb.format", *(f"tbnb.reader.{layer}" for layer in READER_LAYERS), "tbnb.reader", "tbnb.writer"]


def _folder(name: str) -> str:
    return next((f for f in sorted(LAYER_FOLDERS, key=len, reverse=True)
                 if name == f or name.startswith(f"{f}.")), "")


@pytest.mark.parametrize("folder", LAYER_FOLDERS)
def test_imports_go_down_the_layers(folder: str) -> None:
    assert any(_folder(name) == folder for name in MODULES), f"no module in {folder}"
    bad = [v for v in layer_violations(MODULES) if _folder(v.split(" ")[0].rstrip(":")) == folder]
    assert bad == [], "imports up the layers, or modules in no layer"


def test_the_layer_check_catches_an_upward_import_and_a_stray_module(tmp_path: Path) -> None:
    """A small tbnb of its own: lawful imports pass; an upward import (relative, or inside a
    function), a module loose at the reader's top, the writer reaching into the reader and the
    format importing the reader are each reported."""
    package = tmp_path / "tbnb"
    files = {
        "__init__.py": "from .reader.logdir.logdir import Logdir\n",
        "format/__init__.py": "",
        "format/crc.py": "import tbnb.reader.user_regex\n",  # up: the format imports the reader
        "reader/__init__.py": "from .logdir import logdir\n",
        "reader/user_regex.py": "",
        "reader/stray.py": "",  # put back at the top: in no layer
        "reader/files/__init__.py": "",
        "reader/files/storage.py": "from .. import user_regex\nfrom tbnb.format.crc import mask\n"
                                   "def later():\n    from ..runs import run\n",  # up, in a function
        "reader/runs/__init__.py": "",
        "reader/runs/run.py": "from ..files.storage import read\nfrom ..logdir.logdir import Logdir\n",  # up
        "reader/plugins/__init__.py": "",
        "reader/plugins/graph/__init__.py": "",
        "reader/plugins/graph/view.py": "from ...runs.run import Run\n",
        "reader/logdir/__init__.py": "",
        "reader/logdir/logdir.py": "from ..plugins.graph import view\nfrom ..runs import run\n",
        "writer/__init__.py": "from tbnb.format import crc\nfrom tbnb.reader.files import storage\n",  # reader
    }
    for path, text in files.items():
        (package / path).parent.mkdir(parents=True, exist_ok=True)
        (package / path).write_text(text)
    assert layer_violations(_modules(package)) == [
        "tbnb.format.crc -> tbnb.reader.user_regex",
        "tbnb.reader.files.storage -> tbnb.reader.runs.run",
        "tbnb.reader.runs.run -> tbnb.reader.logdir.logdir",
        "tbnb.reader.stray: in no layer",
        "tbnb.writer -> tbnb.reader.files.storage",
    ]
