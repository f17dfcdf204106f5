"""The reader core never imports widget code (design rule: reader knows nothing of widgets)."""

from __future__ import annotations

import subprocess
import sys


def test_reader_imports_no_widget_code() -> None:
    code = (
        "import sys, tbnb.reader.logdir.logdir, tbnb.reader.plugins.projector\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('ipywidgets', 'anywidget', 'plotly', 'IPython')]\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
