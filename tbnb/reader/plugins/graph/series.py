"""Series: sibling ops of one op type whose names end in consecutive numbers (``add_1``…``add_9``).

TensorBoard's rule, over the op children of each scope (scopes themselves are never grouped, so
repeated blocks ``layer_1…n`` stay apart): the leaf name is split by ``^(\\D*)(\\d+)$`` into a
prefix and a number (no number counts as 0); siblings of one op with one prefix, sorted by
number, form a series for each run of consecutive numbers of at least two. A series is grouped
into one node by default when it has at least ``SERIES_MIN_SIZE`` members; the user can group
or ungroup any series.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

SERIES_MIN_SIZE = 5

_NUMBERED = re.compile(r"^(\D*)(\d+)$")


class _Names(Protocol):
    def __contains__(self, name: object) -> bool: ...

    def add(self, name: str) -> None: ...


@dataclass(frozen=True)
class Series:
    """One series: its name (``scope/prefix[first-last]``), the scope (item id) it sits in, and
    its member ops (node numbers, in number order)."""

    name: str
    label: str
    scope: int
    members: tuple[int, ...]

    @property
    def grouped_by_default(self) -> bool:
        return len(self.members) >= SERIES_MIN_SIZE


def detect_series(leaves: Mapping[int, str], ops: Sequence[str], scope_of: Sequence[int],
                  candidates: Sequence[int], scope_names: Mapping[int, str], taken: _Names) -> list[Series]:
    """The series among ``candidates`` (node numbers of ops that may be grouped).

    ``leaves[i]`` is node i's last name component, ``scope_of[i]`` the item id of its scope and
    ``scope_names`` maps scope item ids to full names; ``taken`` holds every existing name, so that
    a series name never collides with a node's.
    """
    groups: dict[tuple[int, str, str], list[tuple[int, int]]] = {}
    for i in candidates:
        leaf = leaves[i]
        m = _NUMBERED.match(leaf)
        prefix, number = (m.group(1), int(m.group(2))) if m else (leaf, 0)
        groups.setdefault((scope_of[i], ops[i], prefix), []).append((number, i))
    found: list[Series] = []
    for (scope, _op, prefix), members in groups.items():
        if len(members) < 2:
            continue
        members.sort()
        run = [members[0]]
        for item in members[1:]:
            if item[0] == run[-1][0] + 1:
                run.append(item)
                continue
            _add(found, run, scope, prefix, scope_names, taken)
            run = [item]
        _add(found, run, scope, prefix, scope_names, taken)
    return found


def _add(found: list[Series], run: list[tuple[int, int]], scope: int, prefix: str,
         scope_names: Mapping[int, str], taken: _Names) -> None:
    if len(run) < 2:
        return
    label = f"{prefix}[{run[0][0]}-{run[-1][0]}]"
    parent = scope_names[scope]
    name = f"{parent}/{label}" if parent else label
    while name in taken:  # a node already has this name: keep the series' distinct
        name += "'"
    taken.add(name)
    found.append(Series(name, label, scope, tuple(i for _, i in run)))
