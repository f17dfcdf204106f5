"""One direction between the Board and the cards (``tbnb/cards``): the Board imports the cards
(its ``card``/``to_html`` methods, its custom cards), and the cards read the Board's data side
(the dashboards' handlers, the shared constants, the sources) but never anything that imports
the cards back. The one card module the Board's data side may import is the contract
``tbnb.cards.kind`` (it imports nothing of tbnb): a dashboard module declares its card kinds
with it. Importing a module also runs its parent packages' ``__init__`` (``tbnb.board.dashboards``
imports every dashboard), so those count as imported too; an import under ``TYPE_CHECKING``
runs never and does not count (``tbnb.board`` names its Board for type checkers only).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from tests.test_architecture import MODULES, _absolute, _tbnb_module

CARDS = "tbnb.cards"
BOARD = "tbnb.board"
#: The card kind contract: imports nothing of tbnb, so any module may declare a kind with it.
CONTRACT = "tbnb.cards.kind"


def _in(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


@cache
def _edges(name: str) -> frozenset[str]:
    """The tbnb modules ``name`` imports when it runs (in functions too; not for type checkers)."""
    module = MODULES[name]
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node.level, node.module)
            found.update(f"{source}.{alias.name}" for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(module.path.read_text()))
    targets = {_tbnb_module(imported, MODULES) for imported in found}
    return frozenset(t for t in targets if t is not None and t != name)


def _runs(name: str) -> set[str]:
    """What importing ``name`` runs at once: its imports and its parent packages."""
    parts = name.split(".")
    parents = {".".join(parts[:i]) for i in range(2, len(parts))}
    return (_edges(name) | parents) & MODULES.keys()


def board_modules_the_cards_use(modules: set[str] | None = None) -> dict[str, str]:
    """Every Board module the cards import, directly or through other Board modules:
    module -> the card module that reaches it first."""
    found: dict[str, str] = {}
    frontier = [(m, m) for m in sorted(modules if modules is not None else MODULES) if _in(m, CARDS)]
    while frontier:
        name, origin = frontier.pop()
        for target in sorted(_runs(name)):
            if _in(target, BOARD) and target not in found:
                found[target] = origin
                frontier.append((target, origin))
    return found


def back_edges(used: dict[str, str]) -> dict[str, list[str]]:
    """Board modules the cards use that import a card module (other than the contract)."""
    out = {}
    for name, origin in used.items():
        back = sorted(t for t in _edges(name) if _in(t, CARDS) and t != CONTRACT)
        if back:
            out[f"{name} (used by {origin})"] = back
    return out


def test_the_cards_never_import_what_imports_them() -> None:
    used = board_modules_the_cards_use()
    assert back_edges(used) == {}
    assert f"{BOARD}.widget" not in used and f"{BOARD}.dashboards" in used  # what the check covers


def test_the_check_finds_a_card_module_importing_the_board_widget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule fails on the two-way dependency it guards against: a card module reaching the
    Board's widget, which imports the cards."""
    module = MODULES[f"{CARDS}.board"]
    changed = tmp_path / "board.py"
    changed.write_text(module.path.read_text() + "\n\ndef board():\n    from ..board.widget import Board\n")
    monkeypatch.setattr(module, "path", changed)
    _edges.cache_clear()
    try:
        used = board_modules_the_cards_use()
        assert f"{BOARD}.widget" in used and back_edges(used) != {}
    finally:
        monkeypatch.undo()
        _edges.cache_clear()
