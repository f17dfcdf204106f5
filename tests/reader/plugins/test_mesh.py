"""Meshes and point clouds from torch's and tensorboardX's ``add_mesh``, against the arrays written."""

from __future__ import annotations

import numpy as np
import pytest

import tbnb
from tbnb.reader.plugins import mesh as mesh_view

from ..conftest import WRITERS
from .conftest import MESH_CONFIG, needs_tensorboard

SUFFIX = {"torch": {"vertices": "VERTEX", "faces": "FACE", "colors": "COLOR"},
          "tbx": {"vertices": "1", "faces": "2", "colors": "3"}}


@pytest.mark.parametrize("writer", WRITERS)
def test_meshes_read_back_as_written(mesh_logdir, writer):
    lg = tbnb.load(mesh_logdir.root / writer)
    meshes, problems = mesh_view.read_meshes(lg, ".")
    assert problems == []
    assert list(meshes) == mesh_view.mesh_names(lg, ".") == ["cloud", "painted", "solid"]
    written = mesh_logdir.data[writer]
    for name, mesh in meshes.items():
        steps = sorted(step for (n, step) in written if n == name)
        assert [s.step for s in mesh.steps] == steps
        parts = [p for p, a in zip(("vertices", "faces", "colors"), written[(name, steps[0])]) if a is not None]
        assert mesh.tags == {p: f"{name}_{SUFFIX[writer][p]}" for p in parts}
        for got in mesh.steps:
            vertices, faces, colors = written[(name, got.step)]
            assert got.vertices.dtype == np.float32 and got.samples == 2
            np.testing.assert_array_equal(got.vertices, vertices)
            assert got.is_point_cloud == (faces is None)
            if faces is not None:
                assert got.faces.dtype == np.int32
                np.testing.assert_array_equal(got.faces, faces)
            if colors is None:
                assert got.colors is None
            else:
                assert got.colors.dtype == np.uint8
                np.testing.assert_array_equal(got.colors, colors)
            v1, f1, c1 = got.sample(1)
            np.testing.assert_array_equal(v1, vertices[1])
            assert (f1 is None) == (faces is None) and (c1 is None) == (colors is None)
            with pytest.raises(IndexError):
                got.sample(2)
    solid = meshes["solid"]
    assert solid.config == MESH_CONFIG
    assert solid.camera == MESH_CONFIG["camera"] and solid.material == MESH_CONFIG["material"]
    assert solid.lights == MESH_CONFIG["lights"]
    # torch writes "{}" when no config is given, tensorboardX writes "null"
    assert meshes["cloud"].config == ({} if writer == "torch" else None) and meshes["cloud"].camera is None


@pytest.mark.parametrize("writer", WRITERS)
def test_card_picks_the_nearest_step(mesh_logdir, writer):
    lg = tbnb.load(mesh_logdir.root / writer)
    written = mesh_logdir.data[writer]
    got = mesh_view.card(lg, "solid", ["."], {".": 2})["."]
    assert got.steps.tolist() == [0, 3] and got.step.step == 3 and got.problems == []
    np.testing.assert_array_equal(got.step.faces, written[("solid", 3)][1])
    assert mesh_view.card(lg, "solid", ["."])["."].step.step == 3
    assert mesh_view.card(lg, "solid", ["."], {".": 1})["."].step.step == 0
    assert mesh_view.card(lg, "nothing", ["."]) == {}


@needs_tensorboard
def test_bad_parts_are_dropped_and_reported(mesh_logdir):
    lg = tbnb.load(mesh_logdir.root / "tb")
    meshes, problems = mesh_view.read_meshes(lg, "bad")
    broken = meshes["broken"]
    assert broken.config is None and broken.display_name == "broken"
    (step,) = broken.steps
    assert step.step == 5 and step.faces is None and step.colors is None and step.is_point_cloud
    np.testing.assert_array_equal(step.vertices, mesh_logdir.data["bad"])
    messages = {p.tag: p.message for p in problems}
    assert set(messages) == {"broken_VERTEX", "broken_FACE", "broken_COLOR"}
    assert "not JSON" in messages["broken_VERTEX"]
    assert "outside 0..3" in messages["broken_FACE"] and "drawn without faces" in messages["broken_FACE"]
    assert "colours have shape [1, 3, 3]" in messages["broken_COLOR"]
    card = mesh_view.card(lg, "broken", ["bad"])["bad"]
    assert card.step.step == 5 and len(card.problems) == 3
