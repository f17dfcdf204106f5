"""What the built pages show of a notebook's outputs, beyond MyST-NB's defaults.

* A Board is a live widget: without its kernel there is nothing to draw, and its text form
  (``<tbnb.Board ...>``) says only how it started. Its output becomes a sentence saying what
  stands there in Jupyter.
* The notebooks' saved widget state (each Board's page code, ~200 KB) is not put into the page:
  no widget manager reads it here (loading one would need a CDN).
"""

from __future__ import annotations

from typing import Any

from docutils import nodes

LIVE_NOTE = ("A live tbnb Board is drawn here when the notebook runs in Jupyter "
             "(the dashboards pages show what it looks like). For output that stays, use cards.")


def board_outputs(doctree: nodes.document) -> list[nodes.literal_block]:
    """The text outputs that are a Board's repr."""
    return [block for block in doctree.findall(nodes.literal_block)
            if "output" in block["classes"] and block.astext().startswith("<tbnb.Board ")]


def replace_boards(app: Any, doctree: nodes.document) -> None:
    for block in board_outputs(doctree):
        note = nodes.paragraph(text=LIVE_NOTE, classes=["tbnb-live-board"])
        block.replace_self(note)
    metadata = getattr(app.env, "nb_metadata", {}).get(app.env.docname, {})
    metadata.get("js_files", {}).pop("ipywidgets_state", None)


def setup(app: Any) -> dict[str, Any]:
    app.connect("doctree-read", replace_boards)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
