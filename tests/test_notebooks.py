"""Every demo notebook runs headless from a clean directory, so the README and demos never rot."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))
#: What some notebooks must print: values their cells read back from the board or the logdir.
PRINTS = {
    "live_training.ipynb": ["2 runs, 330 points", "sgd/lr_0.05"],  # 2 x (150 losses + 15 histograms)
    "comparing_runs.ipynb": ["['adam/lr_0.001', 'adam/lr_0.01', 'sgd/lr_0.1']",
                             "{'adam/lr_0.001': 800, 'adam/lr_0.01': 800}"],
    "report.ipynb": ["tbnb histograms card 'weights/dense_1'", "tbnb images card 'inputs/sample'",
                     "report.html: 4 cards"],
    "diagnostics.ipynb": ["sgd/lr_20: lr_too_high", "sgd/40_images: overfitting",
                          "adam/lr_1e-6: update_ratio_low", "5 series, 5 outside"],
    "segmentation.ipynb": ["steps: [0, 20, 40, 60, 80, 100, 120, 140, 160]", "label read back exactly: True"],
}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=[n.name for n in NOTEBOOKS])
def test_notebook_runs(notebook: Path, tmp_path: Path) -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    shutil.copy(notebook, tmp_path / notebook.name)
    nb = nbformat.read(tmp_path / notebook.name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any error
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    widgets = [o for o in outputs if "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert widgets, "the notebook should display at least one board"
    printed = "\n".join(o.get("text", "") + o.get("data", {}).get("text/plain", "") for o in outputs)
    missing = [text for text in PRINTS.get(notebook.name, []) if text not in printed]
    assert not missing, f"{notebook.name} did not print {missing}"
    if notebook.name == "quickstart.ipynb":
        text = "\n".join(o.get("data", {}).get("text/plain", "") for o in outputs)
        assert "mnist/lr_0.1" in text and "loss/train" in text  # board.view read the points back
        assert "'points':" in text  # board.status after refresh()
        assert "smoothed" in text and "relative" in text  # board.step_table at one step
        assert "mean" in text and "change" in text  # and over a range
        assert "lr_0.03" in text and "spread" in text  # run groups in the step table
        assert "median" in text  # and as to_pandas(groups=...)


def test_there_is_a_quickstart() -> None:
    assert any(n.name == "quickstart.ipynb" for n in NOTEBOOKS)
