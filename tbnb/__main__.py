"""``python -m tbnb ...``: the same as the ``tbnb`` script, for environments without it on PATH."""

from __future__ import annotations

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
