"""Logdirs for the plugin views, written by the real writers, with what was written beside them.

torch's and tensorboardX's ``SummaryWriter`` write PR curves, hparams trials, custom-scalar layouts
and meshes; TensorBoard's own summary code (no TensorFlow needed for these parts) writes the
TensorBoard-API forms and the malformed data, through its own event file writer. Tests compare
what the plugin views return with values recomputed here from the writers' inputs.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ..conftest import HAVE_TENSORBOARD, available_writers, make_writer

needs_tensorboard = pytest.mark.skipif(not HAVE_TENSORBOARD, reason="tensorboard is not installed")


@dataclass
class Written:
    """A logdir root and what was written into it (keys chosen by each fixture)."""

    root: Path
    data: dict[str, Any] = field(default_factory=dict)


def tb_writer(logdir: Path):
    """TensorBoard's own event file writer (no TensorFlow needed)."""
    from tensorboard.summary.writer.event_file_writer import EventFileWriter

    return EventFileWriter(str(logdir))


def tb_event(writer, value, step: int, wall_time: float | None = None) -> None:
    """Write one TensorBoard ``Summary.Value`` as an event at ``step``."""
    from tensorboard.compat.proto import event_pb2, summary_pb2

    event = event_pb2.Event(wall_time=time.time() if wall_time is None else wall_time, step=step,
                            summary=summary_pb2.Summary(value=[value]))
    writer.add_event(event)


def tb_tensor_value(tag: str, array: np.ndarray, plugin: str, content: bytes, display_name: str = ""):
    from tensorboard.compat.proto import summary_pb2
    from tensorboard.util import tensor_util

    value = summary_pb2.Summary.Value(tag=tag, tensor=tensor_util.make_tensor_proto(array))
    value.metadata.plugin_data.plugin_name = plugin
    value.metadata.plugin_data.content = content
    if display_name:
        value.metadata.display_name = display_name
    return value


# -- PR curves --------------------------------------------------------------------------------------


def _labels_predictions(rng: np.random.Generator, n: int, skill: float) -> tuple[np.ndarray, np.ndarray]:
    labels = rng.integers(0, 2, size=n)
    # Predictions stay below 0.8: the top thresholds see no prediction, so the curve's tail is cut.
    predictions = np.clip(labels * skill + rng.uniform(0, 0.8 - skill, size=n), 0, 0.79)
    return labels, predictions


def summary_api_pr_tensor(labels, predictions, num_thresholds: int, weights) -> np.ndarray:
    """TensorBoard's ``pr_curve.summary.pb`` formula: predictions bucketed by
    ``floor(p * (T - 1))``, reverse cumulative sums of the weighted positive/negative counts."""
    bucket = np.int32(np.floor(predictions * (num_thresholds - 1)))
    lab = labels.astype(float)
    tp_b, _ = np.histogram(bucket, bins=num_thresholds, range=(0, num_thresholds - 1), weights=lab * weights)
    fp_b, _ = np.histogram(bucket, bins=num_thresholds, range=(0, num_thresholds - 1), weights=(1 - lab) * weights)
    tp, fp = np.cumsum(tp_b[::-1])[::-1], np.cumsum(fp_b[::-1])[::-1]
    tn, fn = fp[0] - fp, tp[0] - tp
    precision = tp / np.maximum(1e-7, tp + fp)
    recall = tp / np.maximum(1e-7, tp + fn)
    return np.float32(np.stack([tp, fp, tn, fn, precision, recall]))


@pytest.fixture(scope="module")
def pr_logdir(tmp_path_factory) -> Written:
    """Runs ``<writer>/a`` and ``<writer>/b`` from each writer, ``summary_api`` (TensorBoard's
    form, weighted), ``bad`` (malformed tensors). ``data[(run, tag)] = {step: (labels,
    predictions, num_thresholds, weights)}``."""
    root = tmp_path_factory.mktemp("pr")
    out = Written(root)
    rng = np.random.default_rng(7)
    for kind in available_writers():
        for run, steps, num_thresholds, weighted in (("a", (0, 1, 2), 51, False), ("b", (0, 5), 127, True)):
            w = make_writer(kind, root / kind / run)
            written = {}
            for step in steps:
                labels, predictions = _labels_predictions(rng, 300, 0.1 * (step + 1))
                weights = rng.uniform(0.5, 2.0, size=labels.size) if weighted and kind == "torch" else None
                w.add_pr_curve("pr", labels, predictions, step, num_thresholds=num_thresholds, weights=weights)
                written[step] = (labels, predictions, num_thresholds, 1.0 if weights is None else weights)
            w.close()
            out.data[(f"{kind}/{run}", "pr")] = written
    if HAVE_TENSORBOARD:
        from tensorboard.plugins.pr_curve import metadata as pr_metadata

        w = tb_writer(root / "summary_api")
        written = {}
        for step in (0, 1):
            labels, predictions = _labels_predictions(rng, 200, 0.3)
            weights = rng.uniform(0.1, 3.0, size=labels.size)
            tensor = summary_api_pr_tensor(labels.astype(bool), predictions.astype(np.float32), 33, weights)
            md = pr_metadata.create_summary_metadata("pr", "", 33)
            tb_event(w, tb_tensor_value("pr/pr_curves", tensor, "pr_curves", md.plugin_data.content, "pr"), step)
            written[step] = (labels, predictions.astype(np.float32), 33, weights)
        w.close()
        out.data[("summary_api", "pr/pr_curves")] = written

        w = tb_writer(root / "bad")
        content = pr_metadata.create_summary_metadata("pr", "", 11).plugin_data.content
        labels, predictions = _labels_predictions(rng, 50, 0.3)
        good = summary_api_pr_tensor(labels, predictions, 11, 1.0)
        tb_event(w, tb_tensor_value("pr", good[:5], "pr_curves", content), 0)  # five rows
        tb_event(w, tb_tensor_value("pr", good, "pr_curves", content), 1)
        tb_event(w, tb_tensor_value("pr", np.array([b"not", b"numbers"], dtype=object), "pr_curves", content), 2)
        # metadata says 13 thresholds, the tensor has 11
        tb_event(w, tb_tensor_value("mismatch", good, "pr_curves",
                                    pr_metadata.create_summary_metadata("m", "", 13).plugin_data.content), 0)
        w.close()
        out.data[("bad", "pr")] = {1: (labels, predictions, 11, 1.0)}
    return out


# -- HParams -----------------------------------------------------------------------------------------

#: Trials of a sweep: hparams, the metrics passed to add_hparams, the final training loss.
TRIALS = [
    ({"lr": 0.1, "optimizer": "sgd", "batch_norm": True}, {"hparam/accuracy": 0.71, "hparam/loss": 0.9}),
    ({"lr": 0.01, "optimizer": "adam", "batch_norm": False}, {"hparam/accuracy": 0.84, "hparam/loss": 0.45}),
    ({"lr": 0.001, "optimizer": "adam", "batch_norm": True, "dropout": 0.25},
     {"hparam/accuracy": 0.79, "hparam/loss": 0.5, "hparam/extra": 3.0}),
]
OPTIMIZERS = ["sgd", "adam", "rmsprop"]


def training_curve(trial: int) -> tuple[np.ndarray, np.ndarray]:
    steps = np.arange(0, 40, 10)
    return steps, 2.0 / (steps + 1.0) + 0.1 * trial


@pytest.fixture(scope="module")
def hparams_logdir(tmp_path_factory) -> Written:
    """``<writer>/trial<i>``: training scalars in the trial's run (``train/loss`` and a curve of
    ``hparam/accuracy``, whose name the final metric shares), then ``add_hparams`` (a timestamped
    sub-run). ``data[writer][i] = (time before add_hparams, time after)``.

    ``tfapi``: TensorBoard's summary API: the experiment in the root run (domains, a metric in
    group ``validation``), sessions ``s0`` (ended: success) and ``s1`` (no end, no validation
    run), and a run whose hparams content does not decode.
    """
    root = tmp_path_factory.mktemp("hparams")
    out = Written(root)
    for kind in available_writers():
        times = []
        for i, (hparams, metrics) in enumerate(TRIALS):
            w = make_writer(kind, root / kind / f"trial{i}")
            steps, loss = training_curve(i)
            for s, v in zip(steps, loss):
                w.add_scalar("train/loss", float(v), int(s))
                w.add_scalar("hparam/accuracy", float(metrics["hparam/accuracy"]) - 0.01 * (4 - s // 10), int(s))
            before = time.time()
            if kind == "torch":
                w.add_hparams(dict(hparams), dict(metrics), hparam_domain_discrete={"optimizer": OPTIMIZERS})
            else:
                w.add_hparams(dict(hparams), dict(metrics))
            times.append((before, time.time()))
            w.close()
        out.data[kind] = times
    if HAVE_TENSORBOARD:
        _write_tfapi(root / "tfapi")
    return out


def _write_tfapi(root: Path) -> None:
    from tensorboard.compat.proto import summary_pb2
    from tensorboard.plugins.hparams import api_pb2, plugin_data_pb2
    from tensorboard.plugins.hparams import summary_v2 as hp

    lr = hp.HParam("lr", hp.RealInterval(1e-4, 1e-1), display_name="Learning rate")
    units = hp.HParam("units", hp.Discrete([16, 32]))
    opt = hp.HParam("optimizer", hp.Discrete(["adam", "sgd"]))
    w = tb_writer(root)
    for value in hp.hparams_config_pb(hparams=[lr, units, opt], metrics=[
            hp.Metric("loss", group="validation", display_name="Val loss", dataset_type=hp.Metric.VALIDATION),
            hp.Metric("acc")]).value:
        tb_event(w, value, 0)
    w.close()
    sessions = {"s0": ({lr: 0.01, units: 16, opt: "adam"}, 1000.5), "s1": ({lr: 0.05, units: 32, opt: "sgd"}, 2000.25)}
    for name, (values, start) in sessions.items():
        w = tb_writer(root / name)
        for value in hp.hparams_pb(values, trial_id=name, start_time_secs=start).value:
            tb_event(w, value, 0)
        for s in range(3):
            tb_event(w, summary_pb2.Summary.Value(tag="acc", simple_value=0.5 + 0.1 * s + (name == "s1")), s)
        if name == "s0":
            end = plugin_data_pb2.HParamsPluginData(version=0, session_end_info=plugin_data_pb2.SessionEndInfo(
                status=api_pb2.STATUS_SUCCESS, end_time_secs=1100.0))
            tb_event(w, tb_tensor_value("_hparams_/session_end_info", np.zeros(0, np.float32), "hparams",
                                        end.SerializeToString()), 0)
        w.close()
    w = tb_writer(root / "s0" / "validation")
    for s in range(3):
        tb_event(w, summary_pb2.Summary.Value(tag="loss", simple_value=1.0 / (s + 1)), s)
    w.close()
    w = tb_writer(root / "broken")
    tb_event(w, tb_tensor_value("_hparams_/session_start_info", np.zeros(0, np.float32), "hparams",
                                b"\x1a\x10ab"), 0)  # field 3, 16 bytes announced, 2 present
    w.close()


# -- Custom scalars ------------------------------------------------------------------------------------

#: Run ``a``'s layout: a multiline chart with one invalid regex, one anchored at the tag's start,
#: and a margin chart.
LAYOUT_A = {
    "Losses": {"losses": ["Multiline", [r"loss/.*", r"acc("]], "anchored": ["Multiline", [r"loss"]]},
    "Bands": {"band": ["Margin", ["m/value", "m/lower", "m/upper"]]},
}
#: Run ``b``'s: the same "losses" chart again (skipped when merged), a new chart in "Losses", a
#: new category.
LAYOUT_B = {
    "Losses": {"losses": ["Multiline", [r"loss/.*", r"acc("]], "accuracy": ["Multiline", [r"acc$", r"val/.*"]]},
    "Extra": {"empty regex": ["Multiline", [""]]},
}
SCALARS_A = ("loss/train", "loss/val", "val/loss", "acc", "m/value", "m/lower", "m/upper")
SCALARS_B = ("loss/train", "acc", "accuracy", "m/value")


@pytest.fixture(scope="module")
def custom_scalars_logdir(tmp_path_factory) -> Written:
    """``<writer>/a`` and ``<writer>/b`` with the layouts and scalars above; tensorboardX's run
    ``<writer>/c`` adds charts one by one with its helper methods. ``tb/bad``: a layout that
    does not decode."""
    root = tmp_path_factory.mktemp("custom_scalars")
    out = Written(root)
    for kind in available_writers():
        for run, layout, tags in (("a", LAYOUT_A, SCALARS_A), ("b", LAYOUT_B, SCALARS_B)):
            w = make_writer(kind, root / kind / run)
            w.add_custom_scalars(layout)
            for step in range(3):
                for k, tag in enumerate(tags):
                    w.add_scalar(tag, float(step * 10 + k), step)
            w.close()
        if kind == "tbx":
            w = make_writer(kind, root / kind / "c")
            w.add_custom_scalars_multilinechart(["acc"], category="Helpers", title="acc only")
            w.add_custom_scalars_marginchart(["m/value", "m/lower", "m/upper"], category="Helpers", title="margin")
            w.close()
    if HAVE_TENSORBOARD:
        w = tb_writer(root / "tb" / "bad")
        tb_event(w, tb_tensor_value("custom_scalars__config__", np.array(b"\x0a\xff", dtype=object),
                                    "custom_scalars", b""), 0)
        w.close()
    return out


# -- Meshes ---------------------------------------------------------------------------------------------

MESH_CONFIG = {
    "camera": {"cls": "PerspectiveCamera", "fov": 75},
    "lights": [{"cls": "AmbientLight", "color": "#ffffff", "intensity": 0.75}],
    "material": {"cls": "MeshStandardMaterial", "roughness": 1, "metalness": 0},
}


@pytest.fixture(scope="module")
def mesh_logdir(tmp_path_factory) -> Written:
    """Per writer, run ``<writer>``: mesh ``solid`` (vertices, faces, colours, config; steps 0 and
    3, two samples each), ``cloud`` (vertices only, step 1), ``painted`` (vertices and colours, step
    2). ``data[writer][(name, step)] = (vertices, faces, colors)`` as written (None when absent).
    ``tb/bad`` (TensorBoard's metadata): faces past the vertices, colours of the wrong size, a
    config that is not JSON."""
    root = tmp_path_factory.mktemp("mesh")
    out = Written(root)
    rng = np.random.default_rng(11)
    for kind in available_writers():
        written: dict[tuple[str, int], tuple] = {}
        w = make_writer(kind, root / kind)
        for name, step, with_faces, with_colors in (("solid", 0, True, True), ("solid", 3, True, True),
                                                    ("cloud", 1, False, False), ("painted", 2, False, True)):
            vertices = rng.normal(size=(2, 8, 3)).astype(np.float32)
            faces = rng.integers(0, 8, size=(2, 5, 3)).astype(np.int32) if with_faces else None
            colors = rng.integers(0, 256, size=(2, 8, 3)).astype(np.uint8) if with_colors else None
            config = MESH_CONFIG if name == "solid" else None
            if kind == "torch":
                import torch

                def t(a):
                    return None if a is None else torch.from_numpy(a)

                w.add_mesh(name, t(vertices), colors=t(colors), faces=t(faces), config_dict=config, global_step=step)
            else:
                w.add_mesh(name, vertices, colors=colors, faces=faces, config_dict=config, global_step=step)
            written[(name, step)] = (vertices, faces, colors)
        w.close()
        out.data[kind] = written
    if HAVE_TENSORBOARD:
        from tensorboard.plugins.mesh import metadata as mesh_metadata
        from tensorboard.plugins.mesh.plugin_data_pb2 import MeshPluginData

        w = tb_writer(root / "tb" / "bad")
        vertices = rng.normal(size=(1, 4, 3)).astype(np.float32)
        parts = {MeshPluginData.VERTEX: vertices,
                 MeshPluginData.FACE: np.array([[[0, 1, 2], [1, 2, 4]]], dtype=np.float32),  # 4 is past the end
                 MeshPluginData.COLOR: np.zeros((1, 3, 3), dtype=np.float32)}  # 3 colours for 4 vertices
        components = mesh_metadata.get_components_bitmask(list(parts))
        for content_type, array in parts.items():
            md = mesh_metadata.create_summary_metadata("broken", "broken", content_type, components,
                                                       list(array.shape), json_config="{camera")
            tb_event(w, tb_tensor_value(mesh_metadata.get_instance_name("broken", content_type), array,
                                        "mesh", md.plugin_data.content, md.display_name), 5)
        w.close()
        out.data["bad"] = vertices
    return out
