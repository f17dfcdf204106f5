"""The build hook's function for the Board's front end: install with ``npm ci``, then build.

hatch-jupyter-builder's ``npm_builder`` always runs ``npm install``, and ``npm install`` rewrites
``package-lock.json`` whenever its idea of the file differs from the one in git: a build that
edits a tracked file. ``npm ci`` installs exactly what the lockfile pins, never writes it, and
stops with an error when it no longer matches ``package.json``. This is ``npm_builder`` with that
one change (same arguments, same skip switches, same staleness rule); the hook in pyproject.toml
names it. hatch-jupyter-builder imports it from the project root, so it lives in ``js/`` beside
the sources it builds and is shipped in the sdist with the bundle.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from hatch_jupyter_builder.utils import is_stale, normalize_cmd, run


def npm_ci_builder(
    target_name: str,
    version: str,
    path: str = ".",
    build_dir: str | None = None,
    source_dir: str | None = None,
    build_cmd: str = "build",
    npm: str | list[str] = "npm",
) -> None:
    """Run ``npm ci`` and ``npm run <build_cmd>`` in ``path`` when the bundle is stale.

    Nothing runs when npm is switched off (``--skip-npm`` or HATCH_JUPYTER_BUILDER_SKIP_NPM=1, as
    with ``npm_builder``), when ``path`` has no ``package.json`` (an sdist carries the built bundle,
    not the sources), or when nothing in ``source_dir`` is newer than ``build_dir``.
    """
    del target_name, version  # the same build for wheel and sdist, standard and editable
    if "--skip-npm" in sys.argv or os.environ.get("HATCH_JUPYTER_BUILDER_SKIP_NPM") == "1":
        return
    root = Path(path).resolve()
    if not (root / "package.json").exists():
        return
    if build_dir and source_dir and not is_stale(build_dir, source_dir):
        return
    cmd = normalize_cmd([npm] if isinstance(npm, str) else list(npm))
    run([*cmd, "ci"], cwd=str(root))
    if build_cmd:
        run([*cmd, "run", build_cmd], cwd=str(root))
