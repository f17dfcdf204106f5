"""Sphinx configuration of tbnb's documentation: MyST Markdown pages, the notebooks of
``notebooks/`` (``docs/notebooks`` links to them) executed at build time, and nothing loaded
from outside the built site, so that it reads offline (tests/test_docs.py checks this)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the checkout's tbnb, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

import tbnb

project = "tbnb"
author = "tbnb contributors"
copyright = "tbnb contributors"
release = tbnb.__version__
version = release

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "tbnb_docs"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints", "**/*-runs", "README.md"]
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3

# The notebooks run at build time, each in a temporary directory (the logdirs they write stay out
# of the checkout); ``TBNB_DOCS_EXECUTION=off`` builds the text alone, quickly.
nb_execution_mode = os.environ.get("TBNB_DOCS_EXECUTION", "force")
nb_execution_in_temp = True
nb_execution_timeout = 300
nb_execution_raise_on_error = True
nb_execution_show_tb = True
# No ipywidgets embedding: it loads RequireJS and the widget manager from a CDN, and a Board is
# live only with its kernel anyway. A Board's output is its text; cards carry their own offline
# HTML (plotly.js inline), which is what these pages show.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
nb_mime_priority_overrides = [
    ("html", "application/vnd.jupyter.widget-view+json", None),
    ("html", "application/vnd.jupyter.widget-state+json", None),
    ("html", "application/vnd.plotly.v1+json", None),  # cards: their text/html draws offline
]
# MyST-NB renders every mime type of an output before picking one by the priorities above, and
# warns about plotly's, which it cannot render (and which the priorities leave out anyway).
suppress_warnings = ["mystnb.unknown_mime_type"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": False}

html_theme = "alabaster"
html_title = f"tbnb {release}"
html_static_path: list[str] = []
html_theme_options = {
    "description": "TensorBoard rebuilt for the notebook",
    "font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "head_font_family": "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif",
    "page_width": "1180px",
}
