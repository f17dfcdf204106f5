"""The dashboard registry: one line per dashboard module in ``MODULES``.

A dashboard module answers its requests from the reader as pure functions of the source and
the request. It defines:

``REQUESTS: dict[str, Handler]``  request type -> ``handler(source, request, settings)``
                                  returning ``(reply, buffers)`` (request.py); a type belongs
                                  to one module
``PUSHED: dict[str, PushKey]``    the request types (among its own) remembered and answered
                                  again when their data changes, each with the key saying which
                                  remembered request a newer one replaces (pushed.py)
``BLOBS: BlobKind`` (optional)    its tags are listed by step with the shared ``blobs`` request
                                  and, if ``item`` is set, fetched one at a time with ``blob``
                                  (media.py)
``Traits`` (optional)             a ``traitlets.HasTraits`` subclass holding the dashboard's own
                                  settings (synced traits, e.g. ``graph_expanded``) and Python
                                  methods that read them; the Board inherits every module's
                                  ``Traits`` (``trait_mixins``), so they are the Board's traits and
                                  ``tbnb.show(..., name=value)`` accepts them

Adding a dashboard is a new module here plus its line below (and its name in constants.json's
"dashboards" when the page shows it as a dashboard); the router and the widget do not change.
The run/tag index, plotly.js and the status are the board's core (core.py), not dashboards.

Installed packages add dashboards of the same form through the entry point group
``tbnb.dashboards`` (extensions.py): ``PLUGINS``, found when this registry is first imported,
follow ``MODULES`` in ``registered()``, which the functions below read by default.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from .. import extensions
from ..protocol import DASHBOARDS
from ..request import Fields, Handler, PushKey, Reply, Settings
from . import (
    audio,
    custom_scalars,
    diagnostics,
    distributions,
    graphs,
    histograms,
    hparams,
    images,
    media,
    mesh,
    pr_curves,
    projector,
    scalars,
    text,
)
from .media import BlobKind, blob_requests

#: The registry: every dashboard module, in the order blob plugins are named in messages.
MODULES: list[ModuleType] = [
    scalars,
    histograms,
    distributions,
    images,
    audio,
    text,
    pr_curves,
    custom_scalars,
    hparams,
    mesh,
    projector,
    graphs,
    diagnostics,
]


def trait_mixins(modules: Sequence[ModuleType] | None = None) -> tuple[type, ...]:
    """The ``Traits`` classes of the dashboard modules, in registry order: the Board's bases.

    A dashboard's settings live beside its requests, so adding one touches no widget code.
    """
    modules = registered() if modules is None else modules
    return tuple(m.Traits for m in modules if getattr(m, "Traits", None) is not None)


def plugin_trait_mixins() -> tuple[type, ...]:
    """The installed dashboards' ``Traits``: the Board's last bases, so that no name of theirs can
    hide one of the Board's (``hidden_plugin_names`` says which of theirs the Board hides)."""
    return trait_mixins([p.module for p in PLUGINS])


def hidden_plugin_names(board: type) -> list[tuple[str, list[str]]]:
    """(plugin, its names the Board resolves elsewhere) for each installed dashboard whose
    ``Traits`` define a name the Board or a base before it has: those names are not theirs."""
    out = []
    for plugin in PLUGINS:
        mixin = getattr(plugin.module, "Traits", None)
        if mixin is None:
            continue
        hidden = sorted(name for name in vars(mixin) if not name.startswith("_")
                        and next(c for c in board.__mro__ if name in vars(c)) is not mixin)
        if hidden:
            out.append((plugin.name, hidden))
    return out


def blob_kinds(modules: Sequence[ModuleType]) -> dict[str, BlobKind]:
    """Plugin -> BlobKind of the modules that declare ``BLOBS``, in registry order."""
    kinds = [m.BLOBS for m in modules if getattr(m, "BLOBS", None) is not None]
    return {kind.plugin: kind for kind in kinds}


def handlers(modules: Sequence[ModuleType] | None = None) -> dict[str, Handler]:
    """Request type -> handler over ``modules`` (default: the registry, read now).

    ValueError if two modules claim one request type: which one answers would be an accident.
    """
    modules = registered() if modules is None else modules
    table: dict[str, Handler] = {}
    owners: dict[str, str] = {}
    kinds = blob_kinds(modules)
    shared = blob_requests(kinds) if kinds else {}
    claims = [(k, h, media.__name__) for k, h in shared.items()] + [("plugins", plugins, extensions.__name__)]
    claims += [(k, h, m.__name__) for m in modules for k, h in m.REQUESTS.items()]
    for name, handler, owner in claims:
        if name in table:
            raise ValueError(f"request type {name!r} is answered by both {owners[name]} and {owner}")
        table[name], owners[name] = handler, owner
    return table


def push_keys(modules: Sequence[ModuleType] | None = None) -> dict[str, PushKey]:
    """Request type -> push key, for the request types remembered for pushed replies."""
    modules = registered() if modules is None else modules
    keys: dict[str, PushKey] = {}
    for module in modules:
        unknown = set(module.PUSHED) - set(module.REQUESTS)
        if unknown:
            raise ValueError(f"{module.__name__} pushes {sorted(unknown)} but does not answer them")
        keys.update(module.PUSHED)
    return keys


def plugins(source: object, content: dict[str, object], settings: Settings) -> Reply:
    """``plugins``: the installed dashboards and their page code (extensions.py)."""
    request_id = Fields(content).integer("id")
    reply, buffers = extensions.plugins_reply(PLUGINS)
    return {**reply, "id": request_id}, buffers


#: The installed packages' dashboards that can be used (the others were skipped with a warning).
PLUGINS: list[extensions.Plugin] = extensions.discover(DASHBOARDS, handlers(MODULES))


def registered() -> list[ModuleType]:
    """Every dashboard module: the built-in ones (``MODULES``), then the installed ones."""
    return MODULES + [p.module for p in PLUGINS]


def dashboard_names() -> tuple[str, ...]:
    """The values of the Board's ``dashboard`` trait: the built-in tabs, then the installed ones."""
    return DASHBOARDS + tuple(p.name for p in PLUGINS)


def listing() -> list[dict[str, object]]:
    """Every dashboard a Board shows, in tab order: name, package, version, builtin
    (``tbnb.dashboards()``)."""
    from ..._version import __version__

    builtin = [{"name": name, "package": "tbnb", "version": __version__, "builtin": True} for name in DASHBOARDS]
    return builtin + [{"name": p.name, "package": p.package, "version": p.version, "builtin": False} for p in PLUGINS]
