"""The JavaScript the page needs: our bundle (small, stored with each widget) and plotly.js.

plotly.js is 4.8 MB and ships inside the ``plotly`` Python package. Bundling it would store it
with every widget instance in the saved notebook (anywidget keeps ``_esm`` per instance), and a
CDN needs network; so the page asks for it once over the comm and caches it on ``globalThis``.

Two builds of the same plotly.js version: ``full`` (the ``plotly`` package's plotly.min.js, every
trace type) and ``cartesian`` (plotly's cartesian-only dist build, a third of the size and of the
time to run, copied next to the bundle by the JS build). Most dashboards draw only cartesian
traces, so the page gets the cartesian build first; a dashboard that declares it needs more
(3D, parcoords, splom, WebGL scatter) makes the page ask for the full one. A checkout whose JS
was not built has no cartesian asset: ``full`` is then handed over for both.
"""

from __future__ import annotations

import functools
import importlib.resources
import re
from pathlib import Path

#: The board's ES module, written by the JS build (``js/build.mjs``).
BUNDLE = Path(__file__).resolve().parent.parent / "static" / "board.js"
#: Optional stylesheet next to it (a build may emit CSS separately).
STYLES = BUNDLE.with_suffix(".css")
#: plotly.js's cartesian-only build, copied by the JS build from npm (``js/build.mjs``).
PLOTLY_CARTESIAN = BUNDLE.with_name("plotly-cartesian.min.js")
#: The small module ``%load_ext tbnb`` carries plotly.js with before any Board (preload.py).
PRELOAD = BUNDLE.with_name("preload.js")
#: The plotly.js builds, smallest first: each can draw everything the ones before it can.
PLOTLY_BUNDLES = ("cartesian", "full")

BUILD_HINT = ("build it from a source checkout with `npm --prefix js ci && npm --prefix js run build`, "
              "or reinstall tbnb (`pip install --force-reinstall tbnb`)")


def read_bundle() -> str:
    """The board's ES module text; RuntimeError if it was not built.

    Read at each instantiation, not at import: importing tbnb must work without the bundle
    (the reader and the CLI need no JS), and a rebuilt bundle is picked up by the next board.
    """
    try:
        text = BUNDLE.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RuntimeError(f"tbnb's JS bundle is not built ({BUNDLE} is missing): {BUILD_HINT}") from None
    if not text.strip():
        raise RuntimeError(f"tbnb's JS bundle {BUNDLE} is empty: {BUILD_HINT}")
    return text


def read_preload() -> str | None:
    """The preload module's text, or None when the JS build did not make it (then the first
    Board carries plotly.js, as without ``%load_ext``)."""
    try:
        text = PRELOAD.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    return text if text.strip() else None


def read_styles() -> str:
    """The bundle's stylesheet, or "" when the build puts its CSS inside the module."""
    try:
        return STYLES.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


def plotly_version(data: bytes) -> str:
    """The plotly.js version in a UMD build's banner comment, or "unknown".

    "/** * plotly.js v4.1.1 ..." (the full build), "plotly.js (cartesian - minified) v4.1.1" (a
    partial one).
    """
    match = re.search(rb"plotly\.js(?: \([^)\n]*\))? v(\d[\w.+-]*)", data[:1000])
    return match.group(1).decode() if match else "unknown"


def plotly_js(bundle: str = "full") -> tuple[bytes, str]:
    """``(script bytes, plotly.js version)`` of a plotly.js build (``PLOTLY_BUNDLES``), read once.

    ``full`` is the installed plotly package's plotly.min.js; ``cartesian`` the asset the JS build
    copies, or the full build when that asset is missing (a checkout whose JS is not built).
    Raises RuntimeError if plotly (a dependency) is missing or ships no ``plotly.min.js``, and
    ValueError for an unknown build name.
    """
    if bundle not in PLOTLY_BUNDLES:
        raise ValueError(f"unknown plotly.js build {bundle!r}; builds are {list(PLOTLY_BUNDLES)}")
    if bundle == "cartesian":
        cartesian = _plotly_cartesian()
        if cartesian is not None:
            return cartesian
    return _plotly_full()


def plotly_bundle_served(bundle: str) -> str:
    """The build ``plotly_js(bundle)`` really returns (``cartesian`` falls back to ``full``)."""
    return "cartesian" if bundle == "cartesian" and _plotly_cartesian() is not None else "full"


def forget_plotly() -> None:
    """Drop the plotly.js scripts read so far: the next ``plotly_js`` reads them again (e.g.
    after the JS build rewrote the cartesian asset)."""
    _plotly_full.cache_clear()
    _plotly_cartesian.cache_clear()


@functools.lru_cache(maxsize=1)
def _plotly_full() -> tuple[bytes, str]:
    try:
        source = importlib.resources.files("plotly") / "package_data" / "plotly.min.js"
        data = source.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as err:
        raise RuntimeError(f"plotly.min.js not found ({err}); reinstall plotly: `pip install plotly`") from None
    return data, plotly_version(data)


@functools.lru_cache(maxsize=1)
def _plotly_cartesian() -> tuple[bytes, str] | None:
    try:
        data = PLOTLY_CARTESIAN.read_bytes()
    except FileNotFoundError:
        return None
    return (data, plotly_version(data)) if data.strip() else None
