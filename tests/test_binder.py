"""binder/: Binder's postBuild, run in a fresh virtual environment on a copy of the checkout,
installs tbnb from that copy and writes the demo logdir; the quickstart then executes with that
environment's kernel, importing the tbnb it installed.

The environment sees the system's packages (``--system-site-packages``), so that torch,
JupyterLab and the rest are not downloaded again; tbnb itself is installed into it by postBuild.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
#: The built page bundle, ignored by git: copied along (with its times) so that the package build
#: finds it up to date instead of running npm; where it is missing the build makes it.
BUILT = ("tbnb/static",)

EXECUTE = """
import sys, nbformat, nbclient
path = sys.argv[1]
nb = nbformat.read(path, as_version=4)
nb.cells.append(nbformat.v4.new_code_cell("import sys, tbnb; print('TBNB', tbnb.__file__, sys.executable)"))
nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                        resources={"metadata": {"path": str(__import__('pathlib').Path(path).parent)}}).execute()
nbformat.write(nb, path)
"""


def tracked_copy(dest: Path) -> Path:
    """The checkout's tracked files (what a clone has) and its built bundle, copied to ``dest``."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = REPO / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    for name in BUILT:
        if (REPO / name).is_dir():
            shutil.copytree(REPO / name, dest / name)
    return dest


@pytest.mark.binder
def test_postbuild_installs_tbnb_and_the_quickstart_runs(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout (the tracked files are what Binder gets)")
    repo = tracked_copy(tmp_path / "repo")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    bin_dir = venv / "bin"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(venv),
               PIP_DISABLE_PIP_VERSION_CHECK="1")

    build = subprocess.run(["bash", "binder/postBuild"], cwd=repo, env=env, capture_output=True, text=True, check=False,
                           timeout=900)
    assert build.returncode == 0, f"postBuild failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}"
    assert (repo / "notebooks" / "demo-runs" / "mnist" / "lr_0.1").is_dir(), build.stdout[-2000:]
    site = subprocess.run([str(bin_dir / "python"), "-c", "import tbnb; print(tbnb.__file__)"], cwd=tmp_path,
                          env=env, capture_output=True, text=True, check=True).stdout.strip()
    assert Path(site).is_relative_to(venv), f"the environment imports tbnb from {site}, not its own install"
    assert (Path(site).parent / "static" / "board.js").is_file()

    notebook = repo / "notebooks" / "quickstart.ipynb"
    run = subprocess.run([str(bin_dir / "python"), "-c", EXECUTE, str(notebook)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, f"the quickstart failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    import nbformat

    outputs = [o for c in nbformat.read(notebook, as_version=4).cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    assert any("application/vnd.jupyter.widget-view+json" in o.get("data", {}) for o in outputs)
    (line,) = [o["text"] for o in outputs if o.output_type == "stream" and o["text"].startswith("TBNB")]
    _, module, python = line.split()
    assert Path(module).is_relative_to(venv) and Path(python).parent == bin_dir, line
