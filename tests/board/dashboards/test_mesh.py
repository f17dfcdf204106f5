"""The ``meshes`` and ``mesh`` messages, driven as the page drives them, on meshes written by
torch's and tensorboardX's ``add_mesh`` (with and without faces and colours, with a config)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ..conftest import Page

CONFIG = {"camera": {"cls": "PerspectiveCamera", "fov": 60},
          "material": {"cls": "MeshStandardMaterial", "opacity": 0.5}}


@pytest.fixture(scope="module", params=["torch", "tbx"])
def meshes(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    """Runs ``a`` and ``b``: ``solid`` (faces, colours, config) at steps 0 and 4, two samples each;
    ``cloud`` (vertices only) at step 1 in run ``a``. Returns the root and what was written."""
    writer = request.param
    pytest.importorskip("torch" if writer == "torch" else "tensorboardX")
    root = tmp_path_factory.mktemp(f"mesh_{writer}")
    rng = np.random.default_rng(3)
    written: dict = {}
    for run in ("a", "b"):
        if writer == "torch":
            import torch
            from torch.utils.tensorboard import SummaryWriter

            w = SummaryWriter(log_dir=str(root / run))
            conv = torch.from_numpy
        else:
            from tensorboardX import SummaryWriter

            w = SummaryWriter(logdir=str(root / run))
            conv = np.asarray
        for step in (0, 4):
            v = rng.normal(size=(2, 6, 3)).astype(np.float32)
            f = rng.integers(0, 6, size=(2, 4, 3)).astype(np.int32)
            c = rng.integers(0, 256, size=(2, 6, 3)).astype(np.uint8)
            w.add_mesh("solid", conv(v), colors=conv(c), faces=conv(f), config_dict=CONFIG, global_step=step)
            written[(run, "solid", step)] = (v, f, c)
        if run == "a":
            v = rng.normal(size=(1, 10, 3)).astype(np.float32)
            w.add_mesh("cloud", conv(v), global_step=1)
            written[(run, "cloud", 1)] = (v, None, None)
        w.close()
    return root, written


def test_meshes_lists_names_and_runs(make_board, meshes) -> None:
    root, _ = meshes
    reply = Page(make_board(root)).decoded({"type": "meshes", "id": 2})
    assert reply["type"] == "meshes" and reply["id"] == 2
    assert reply["meshes"] == [{"name": "cloud", "runs": ["a"]}, {"name": "solid", "runs": ["a", "b"]}]


def test_mesh_sends_the_chosen_step_and_sample(make_board, meshes) -> None:
    root, written = meshes
    page = Page(make_board(root))
    reply = page.decoded({"type": "mesh", "id": 3, "tag": "solid", "runs": ["a", "b"], "steps": {"a": 1}, "sample": 1})
    assert [e["run"] for e in reply["runs"]] == ["a", "b"]
    a, b = reply["runs"]
    assert a["steps"].tolist() == [0, 4] and a["step"] == 0 and b["step"] == 4  # nearest to 1; last
    for entry in (a, b):
        v, f, c = written[(entry["run"], "solid", entry["step"])]
        assert entry["samples"] == 2 and entry["sample"] == 1 and entry["problems"] == []
        assert entry["vertices"].dtype == np.float32 and entry["vertices"].shape == (6, 3)
        np.testing.assert_array_equal(entry["vertices"], v[1])
        np.testing.assert_array_equal(entry["faces"], f[1])
        assert entry["colors"].dtype == np.uint8
        np.testing.assert_array_equal(entry["colors"], c[1])
        assert entry["config"] == CONFIG


def test_a_point_cloud_has_no_faces(make_board, meshes) -> None:
    root, written = meshes
    reply = Page(make_board(root)).decoded({"type": "mesh", "id": 4, "tag": "cloud", "runs": ["a", "b"]})
    (entry,) = reply["runs"]  # run b has no such mesh
    v, _, _ = written[("a", "cloud", 1)]
    assert entry["faces"] is None and entry["colors"] is None and entry["step"] == 1
    np.testing.assert_array_equal(entry["vertices"], v[0])


def test_bad_requests_are_errors(make_board, meshes) -> None:
    root, _ = meshes
    page = Page(make_board(root))
    for bad in ({"tag": "solid", "runs": ["zzz"]}, {"tag": "solid", "runs": ["a"], "sample": -1},
                {"tag": "solid", "runs": ["a"], "steps": {"a": "x"}}):
        reply, _ = page.ask({"type": "mesh", "id": 5, **bad})
        assert reply["type"] == "error"
