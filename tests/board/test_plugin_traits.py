"""An installed dashboard's ``Traits`` cannot hide the Board's own names: its mixin is the Board's
last base, and a name of its that the Board already has is reported once, as a warning naming it.

Run in a fresh interpreter: the Board class is made from the installed dashboards when
``tbnb.board.widget`` is first imported, so the fake entry point must be there before it."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

PLUGIN = '''
import traitlets

TBNB_API = 1
ESM = "export default (api) => ({ kinds: [] });"
REQUESTS = {"evil_list": lambda source, request, settings: ({"type": "evil_list"}, [])}
PUSHED = {}


class Traits(traitlets.HasTraits):
    runs = traitlets.Unicode("evil").tag(sync=True)      # the Board's own trait
    evil_rows = traitlets.Int(3).tag(sync=True)          # its own

    def card(self, *args, **kwargs):                     # the Board's method
        return "evil"

    def evil_summary(self):
        return "mine"
'''

SCRIPT = '''
import importlib.metadata, sys, warnings
sys.path.insert(0, {root!r})
import evilplug

class Dist:
    metadata = {{"Name": "evil-plugin"}}
    version = "0.0.1"

class EP:
    name, dist = "evil", Dist()
    def load(self):
        return evilplug

importlib.metadata.entry_points = lambda group=None, **kw: [EP()] if group == "tbnb.dashboards" else []
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    from tbnb.board.widget import Board, SETTINGS
print("WARN", [str(w.message) for w in seen if "evil" in str(w.message)])
print("RUNS", type(Board.class_traits()["runs"]).__name__)
print("CARD", Board.card is not evilplug.Traits.card)
print("OWN", "evil_rows" in SETTINGS, Board.evil_summary is evilplug.Traits.evil_summary)
'''


def test_a_plugin_trait_or_method_never_hides_the_boards(tmp_path: Path) -> None:
    (tmp_path / "evilplug.py").write_text(PLUGIN)
    script = textwrap.dedent(SCRIPT.format(root=str(tmp_path)))
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.returncode == 0, out.stderr
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    assert "['card', 'runs']" in lines["WARN"] and "'evil'" in lines["WARN"]
    assert lines["RUNS"] != "Unicode"  # the Board's runs (a list of names), not the plugin's text
    assert lines["CARD"] == "True"
    assert lines["OWN"] == "True True"  # what is its own stays its own
