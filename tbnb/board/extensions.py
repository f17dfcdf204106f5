"""Dashboards of other packages: the entry point group ``tbnb.dashboards`` (docs/writing-a-dashboard.md).

An installed package declares ``[project.entry-points."tbnb.dashboards"] <name> = "pkg.module"``;
the object is a dashboard exactly like a built-in one (dashboards/__init__.py): ``REQUESTS``,
``PUSHED``, optionally ``Traits``, plus ``ESM`` (its page code: the text of an ES module, or the
path of its .js file) and ``TBNB_API`` (the version of the contract it was written for,
``PLUGIN_API``). The page gets the code through the comm (the ``plugins`` request), never from
the network. Its requests join the router's table, so they are checked against the same bounds
(bounds.py) as ours before its handlers see them.

A plugin that fails to import, clashes with a dashboard or a request type already known, or
was written for another contract version is skipped with one warning naming its package; the
Board starts without it.
"""

from __future__ import annotations

import os
import re
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .request import Reply

#: The entry point group third-party dashboards declare.
GROUP = "tbnb.dashboards"
#: The version of the dashboard contract (kernel module and page module) this tbnb implements;
#: the page's js/src/api.js says the same (API_VERSION).
PLUGIN_API = 1
SUPPORTED_APIS = frozenset({PLUGIN_API})
#: Request types of the Board itself, which no dashboard may answer.
CORE_TYPES = frozenset({"index", "plotly", "custom_card"})
#: Largest page module accepted, in bytes.
MAX_ESM_BYTES = 4 << 20
_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class PluginError(ValueError):
    """Why a plugin cannot be used (the warning's reason)."""


@dataclass(frozen=True)
class Plugin:
    """One installed dashboard: its name (the tab's trait value), kernel module, page code, and
    the distribution it comes from."""

    name: str
    module: Any
    esm: str = field(repr=False)
    package: str
    version: str


def _esm_text(module: Any) -> str:
    esm = getattr(module, "ESM", None)
    if isinstance(esm, os.PathLike):
        with open(esm, encoding="utf-8") as f:
            esm = f.read(MAX_ESM_BYTES + 1)
    if not isinstance(esm, str) or not esm.strip():
        raise PluginError("it has no ESM (its page code: an ES module's text or the path of its .js file)")
    if len(esm.encode("utf-8")) > MAX_ESM_BYTES:
        raise PluginError(f"its page code is over {MAX_ESM_BYTES} bytes")
    return esm


def check(name: str, module: Any, taken_names: Iterable[str], taken_types: Iterable[str]) -> str:
    """The plugin's page code when ``module`` may be registered as dashboard ``name``; else PluginError."""
    if not _NAME.match(name):
        raise PluginError(f"its name {name!r} is not lower-case letters, digits and _ (up to 40)")
    if name in set(taken_names):
        raise PluginError(f"a dashboard named {name!r} exists already")
    api = getattr(module, "TBNB_API", None)
    if api not in SUPPORTED_APIS:
        raise PluginError(f"it was written for dashboard API {api!r}; this tbnb supports {sorted(SUPPORTED_APIS)}")
    requests, pushed = getattr(module, "REQUESTS", None), getattr(module, "PUSHED", None)
    if not isinstance(requests, Mapping) or not all(isinstance(k, str) and callable(v) for k, v in requests.items()):
        raise PluginError("its REQUESTS is not a dict of request type -> handler(source, request, settings)")
    if not isinstance(pushed, Mapping) or not set(pushed) <= set(requests):
        raise PluginError("its PUSHED is not a dict of some of its own request types -> push key")
    clash = sorted(set(requests) & (set(taken_types) | CORE_TYPES))
    if clash:
        raise PluginError(f"it answers request types another dashboard answers: {clash}")
    return _esm_text(module)


def _entry_points() -> list[Any]:
    from importlib.metadata import entry_points

    return sorted(entry_points(group=GROUP), key=lambda ep: ep.name)


def _package(ep: Any) -> tuple[str, str]:
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "?", "?"
    return dist.metadata["Name"] or "?", dist.version or "?"


def discover(builtin_names: Sequence[str], builtin_types: Iterable[str],
             entry_points: Callable[[], list[Any]] = _entry_points) -> list[Plugin]:
    """The installed plugins that can be used, by name; one warning for each that cannot."""
    names, types = list(builtin_names), set(builtin_types)
    found: list[Plugin] = []
    for ep in entry_points():
        package, version = _package(ep)
        try:
            try:
                module = ep.load()
            except Exception as err:  # noqa: BLE001 - any failure of someone else's import
                raise PluginError(f"it failed to import: {type(err).__name__}: {err}") from None
            esm = check(ep.name, module, names, types)
        except PluginError as err:
            warnings.warn(f"tbnb: skipped the dashboard {ep.name!r} of package {package} {version}: {err}",
                          RuntimeWarning, stacklevel=2)
            continue
        names.append(ep.name)
        types.update(module.REQUESTS)
        found.append(Plugin(ep.name, module, esm, package, version))
    return found


def plugins_reply(plugins: Sequence[Plugin]) -> Reply:
    """``plugins``: each installed dashboard's name, package, version and page code (a buffer)."""
    listed = [{"name": p.name, "package": p.package, "version": p.version, "buffer": i}
              for i, p in enumerate(plugins)]
    return ({"type": "plugins", "api": PLUGIN_API, "dashboards": listed},
            [p.esm.encode("utf-8") for p in plugins])
