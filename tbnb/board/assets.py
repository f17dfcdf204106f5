"""The JavaScript the page needs: our bundle (small, stored with each widget) and plotly.js.

plotly.js is 4.8 MB and ships inside the ``plotly`` Python package. Bundling it would store it
with every widget instance in the saved notebook (anywidget keeps ``_esm`` per instance), and a
CDN needs network; so the page asks for it once over the comm and caches it on ``globalThis``.
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


def read_styles() -> str:
    """The bundle's stylesheet, or "" when the build puts its CSS inside the module."""
    try:
        return STYLES.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ""


@functools.lru_cache(maxsize=1)
def plotly_js() -> tuple[bytes, str]:
    """``(plotly.min.js bytes, plotly.js version)`` from the installed plotly package, read once.

    Raises RuntimeError if plotly (a dependency) is missing or ships no ``plotly.min.js``.
    """
    try:
        source = importlib.resources.files("plotly") / "package_data" / "plotly.min.js"
        data = source.read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as err:
        raise RuntimeError(f"plotly.min.js not found ({err}); reinstall plotly: `pip install plotly`") from None
    # The UMD build starts with a banner comment: "/** ... plotly.js v4.1.1 ..."
    match = re.search(rb"plotly\.js v(\d[\w.+-]*)", data[:1000])
    return data, match.group(1).decode() if match else "unknown"
