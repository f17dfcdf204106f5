"""tbnb: TensorBoard rebuilt for the notebook.

The kernel reads the logdir itself (``tbnb.load``); dashboards live in the output cell.
"""

from __future__ import annotations

from ._version import __version__
from .reader.logdir import Logdir, LogdirError, load

__all__ = ["Logdir", "LogdirError", "__version__", "load"]
