"""Logdirs written by the real writers (torch.utils.tensorboard and tensorboardX), once per module.

Each fixture writes its logdir with fixed random data and returns what was written next to the
path, so that tests compare what tbnb reads back against the writer's input, not against tbnb.
"""

from __future__ import annotations

import importlib.util
import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HAVE_TORCH = importlib.util.find_spec("torch") is not None
HAVE_TBX = importlib.util.find_spec("tensorboardX") is not None
HAVE_TENSORBOARD = importlib.util.find_spec("tensorboard") is not None

needs_torch = pytest.mark.skipif(not HAVE_TORCH, reason="torch (CPU) is not installed")
needs_tbx = pytest.mark.skipif(not HAVE_TBX, reason="tensorboardX is not installed")

#: The writers, as pytest params: torch's writer needs torch; tensorboardX writes without it.
WRITERS = [
    pytest.param("torch", marks=[pytest.mark.torch, needs_torch], id="torch"),
    pytest.param("tbx", marks=[needs_tbx], id="tbx"),
]


def make_writer(kind: str, logdir: Path | str, **kwargs: Any):
    """A SummaryWriter of the given kind ("torch" or "tbx") writing into ``logdir``."""
    if kind == "torch":
        from torch.utils.tensorboard import SummaryWriter

        return SummaryWriter(log_dir=str(logdir), **kwargs)
    if kind == "tbx":
        from tensorboardX import SummaryWriter

        return SummaryWriter(logdir=str(logdir), **kwargs)
    raise ValueError(kind)


def wait_for_next_second() -> None:
    """Event file names carry the creation time in whole seconds; a writer created after this
    sorts after every file created before it (as a real restart would)."""
    time.sleep(1.02 - (time.time() % 1.0))


def available_writers() -> list[str]:
    return [k for k, ok in (("torch", HAVE_TORCH), ("tbx", HAVE_TBX)) if ok]


# --------------------------------------------------------------------------------------------
# Every kind of summary, from both writers
# --------------------------------------------------------------------------------------------

WALL0 = 1_700_000_000.0

#: Scalars that must survive exactly as float32 (NaN and the infinities included).
SPECIAL_VALUES = [float("nan"), float("inf"), float("-inf"), 0.0, -0.0, 1e-40, 3.4e38, 1 / 3, -2.5e-7, 123456789.0]
BIG_STEPS = [0, 7, 2**31 + 5, 2**40, 2**53]

TEXTS = ["plain text", "héllo **wörld** ✓ — ünïcode", "| a | b |\n|---|---|\n| 1 | 2 |"]

LAYOUT = {
    "Losses": {"both losses": ["Multiline", ["scalar/plain", r"group.*"]]},
    "Bands": {"band": ["Margin", ["m/value", "m/lower", "m/upper"]],
              "other": ["Multiline", ["scalar/special"]]},
}

HPARAMS = {"lr": 0.01, "optimizer": "adam", "use_bn": True, "layers": 3}
HP_METRICS = {"hparam/accuracy": 0.9375}


@dataclass
class Written:
    """A logdir and what was written into it, per writer."""

    root: Path
    data: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0


def _tiny_net():
    import torch

    class TinyNet(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = torch.nn.Linear(3, 5)
            self.act = torch.nn.ReLU()
            self.head = torch.nn.Linear(5, 2)

        def forward(self, x):
            return self.head(self.act(self.encoder(x)))

    torch.manual_seed(0)
    return TinyNet()


def _write_all_kinds(kind: str, logdir: Path, rng: np.random.Generator) -> dict[str, Any]:
    exp: dict[str, Any] = {}
    w = make_writer(kind, logdir)
    try:
        # -- scalars ----------------------------------------------------------------------------
        steps = np.arange(0, 150, 3)
        values = rng.normal(scale=100.0, size=len(steps))
        walls = WALL0 + steps * 0.25 + 0.123456
        for s, v, t in zip(steps, values, walls):
            w.add_scalar("scalar/plain", float(v), int(s), walltime=float(t))
        exp["plain"] = (steps, walls, values)
        for i, v in enumerate(SPECIAL_VALUES):
            w.add_scalar("scalar/special", v, i)
        for i, s in enumerate(BIG_STEPS):
            w.add_scalar("scalar/bigstep", float(i), s)
        if kind == "torch":  # tensor-style scalars, float32 and float64
            for i in range(5):
                w.add_scalar("scalar/new_style", 1 / (i + 3), i, new_style=True)
                w.add_scalar("scalar/double", 1 / (i + 3), i, new_style=True, double_precision=True)
        else:  # tensorboardX: display name and description in the metadata
            from tensorboardX.summary import scalar

            w._get_file_writer().add_summary(
                scalar("scalar/described", 2.5, display_name="Nice name", summary_description="what it is"), 4)
        group_steps = np.arange(10)
        group = {"train": rng.normal(size=10), "val": rng.normal(size=10)}
        for i in group_steps:
            w.add_scalars("group", {k: float(v[i]) for k, v in group.items()}, int(i))
        exp["group"] = (group_steps, group)

        # -- histograms ---------------------------------------------------------------------------
        hists = {
            "hist/normal": [rng.normal(loc=i, scale=1 + i, size=1000) for i in range(4)],
            "hist/auto": [rng.uniform(-3, 7, size=257).astype(np.float32) for _ in range(2)],
            "hist/const": [np.full(64, 2.5)],
            "hist/ints": [rng.integers(-50, 50, size=300)],
        }
        for tag, arrays in hists.items():
            for i, arr in enumerate(arrays):
                w.add_histogram(tag, arr, 10 * i, bins="auto" if tag == "hist/auto" else "tensorflow")
        exp["hists"] = hists

        # -- images -------------------------------------------------------------------------------
        rgb = [rng.integers(0, 256, size=(3, 6, 8), dtype=np.uint8) for _ in range(2)]
        for i, img in enumerate(rgb):
            w.add_image("img/rgb_u8", img, i)
        float_hwc = rng.uniform(0, 1, size=(5, 7, 3)).astype(np.float32)
        w.add_image("img/float_hwc", float_hwc, 0, dataformats="HWC")
        gray = rng.integers(0, 256, size=(1, 4, 9), dtype=np.uint8)
        w.add_image("img/gray", gray, 0)
        batch = rng.integers(0, 256, size=(5, 3, 4, 6), dtype=np.uint8)
        w.add_images("img/batch", batch, 3)
        exp["images"] = {
            "img/rgb_u8": [im.transpose(1, 2, 0) for im in rgb],
            "img/float_hwc": [(float_hwc * np.float32(255)).clip(0, 255).astype(np.uint8)],
            "img/gray": [np.repeat(gray.transpose(1, 2, 0), 3, axis=2)],
        }
        exp["batch"] = batch

        # -- audio --------------------------------------------------------------------------------
        rate = 16000
        t = np.arange(2000) / rate
        sound = (0.8 * np.sin(2 * np.pi * 440 * t) * np.linspace(0, 1, t.size)).astype(np.float32)
        w.add_audio("audio/sine", sound if kind == "tbx" else sound[None, :], 5, sample_rate=rate)
        exp["audio"] = (sound, rate)
        if kind == "tbx":  # stereo: (frames, channels)
            stereo = rng.uniform(-0.9, 0.9, size=(700, 2)).astype(np.float32)
            w.add_audio("audio/stereo", stereo, 0, sample_rate=8000)
            exp["stereo"] = stereo

        # -- text ---------------------------------------------------------------------------------
        for i, text in enumerate(TEXTS):
            w.add_text("note", text, 2 * i)

        # -- pr curves ----------------------------------------------------------------------------
        labels = rng.integers(0, 2, size=400)
        predictions = np.clip(labels * 0.3 + rng.uniform(0, 0.7, size=400), 0, 1)
        w.add_pr_curve("pr", labels, predictions, 1, num_thresholds=51)
        exp["pr"] = (labels, predictions, 51)

        # -- custom scalars layout ----------------------------------------------------------------
        w.add_custom_scalars(LAYOUT)

        # -- mesh ---------------------------------------------------------------------------------
        vertices = rng.normal(size=(1, 6, 3)).astype(np.float32)
        colors = rng.integers(0, 256, size=(1, 6, 3)).astype(np.uint8)
        faces = np.array([[[0, 1, 2], [0, 2, 3], [3, 4, 5], [1, 4, 5]]], dtype=np.int32)
        if kind == "torch":
            import torch

            w.add_mesh("cloud", vertices=torch.from_numpy(vertices), colors=torch.from_numpy(colors),
                       faces=torch.from_numpy(faces), global_step=2)
        else:
            w.add_mesh("cloud", vertices=vertices, colors=colors, faces=faces, global_step=2)
        exp["mesh"] = {1: vertices, 2: faces, 3: colors}

        # -- graph --------------------------------------------------------------------------------
        if HAVE_TORCH:
            import torch

            w.add_graph(_tiny_net(), torch.zeros(2, 3))
            exp["graph"] = True

        # -- embeddings (projector files) ---------------------------------------------------------
        mat = rng.normal(size=(9, 4)).astype(np.float32)
        labels9 = [f"pt{i}" for i in range(9)]
        sprite = rng.uniform(0, 1, size=(9, 3, 4, 4)).astype(np.float32)
        if kind == "torch":
            import torch

            w.add_embedding(torch.from_numpy(mat), metadata=labels9, label_img=torch.from_numpy(sprite))
        else:
            w.add_embedding(mat, metadata=labels9, label_img=sprite)
        mat2 = rng.normal(size=(3, 2)).astype(np.float32)
        meta2 = [["a", 1], ["b", 2], ["c", 3]]
        w.add_embedding(mat2, metadata=meta2, metadata_header=["name", "cls"], global_step=1, tag="second")
        exp["embeddings"] = {
            "default:00000": (mat, ["label"], [[s] for s in labels9], sprite),
            "second:00001": (mat2, ["name", "cls"], [[a, str(b)] for a, b in meta2], None),
        }

        # -- hparams (a sub-run named by a timestamp) ---------------------------------------------
        w.add_hparams(dict(HPARAMS), dict(HP_METRICS))
    finally:
        w.close()
    return exp


@pytest.fixture(scope="module")
def all_kinds(tmp_path_factory) -> Written:
    """``<root>/torch`` and ``<root>/tbx``: every kind each writer can write."""
    root = tmp_path_factory.mktemp("all_kinds")
    written = Written(root)
    start = time.perf_counter()
    for i, kind in enumerate(available_writers()):
        written.data[kind] = _write_all_kinds(kind, root / kind, np.random.default_rng(100 + i))
    written.seconds = time.perf_counter() - start
    return written


# --------------------------------------------------------------------------------------------
# Sampling: many steps of one histogram and one image series
# --------------------------------------------------------------------------------------------

N_HIST_STEPS = 600
N_IMAGE_STEPS = 12
N_TEXT_STEPS = 30


@pytest.fixture(scope="session")
def sampling_logdir(tmp_path_factory) -> Path:
    """Run ``sampled``: 600 histogram steps, 12 image steps and 30 text steps (tensorboardX)."""
    if not HAVE_TBX:
        pytest.skip("tensorboardX is not installed")
    root = tmp_path_factory.mktemp("sampling")
    rng = np.random.default_rng(7)
    w = make_writer("tbx", root / "sampled")
    try:
        for i in range(N_HIST_STEPS):
            w.add_histogram("h", rng.normal(size=20), i, bins=4)
        for i in range(N_IMAGE_STEPS):
            w.add_image("im", np.full((3, 2, 2), i, dtype=np.uint8), i)
        for i in range(N_TEXT_STEPS):
            w.add_text("t", f"step {i}", i)
    finally:
        w.close()
    return root


# --------------------------------------------------------------------------------------------
# The oracle logdir: several runs of scalars, histograms, images and text
# --------------------------------------------------------------------------------------------

ORACLE_SCALAR_STEPS = 300
ORACLE_HIST_STEPS = 60
ORACLE_IMAGE_STEPS = 15
ORACLE_TEXT_STEPS = 15


@pytest.fixture(scope="module")
def oracle_logdir(tmp_path_factory) -> Path:
    """Runs ``<writer>/run<k>`` (two per writer) and ``tbx/run0/eval``: a few hundred steps each."""
    root = tmp_path_factory.mktemp("oracle")
    rng = np.random.default_rng(11)
    runs = [(kind, f"{kind}/run{k}") for kind in available_writers() for k in range(2)]
    if HAVE_TBX:
        runs.append(("tbx", "tbx/run0/eval"))
    for kind, run in runs:
        w = make_writer(kind, root / run)
        try:
            for s in range(ORACLE_SCALAR_STEPS):
                w.add_scalar("loss", float(math.exp(-s / 50) + rng.normal(scale=0.01)), s)
                if s % 3 == 0:
                    w.add_scalar("metrics/acc", float(rng.uniform()), s)
            for i, v in enumerate([float("nan"), float("inf"), float("-inf"), -0.0, 1e-42]):
                w.add_scalar("special", v, i)
            for s in range(ORACLE_HIST_STEPS):
                w.add_histogram("weights", rng.normal(loc=s / 10, size=200), s)
                if s % 2 == 0:
                    w.add_histogram("bias", rng.uniform(-1, 1, size=50), s, bins=16)
            w.add_histogram("const", np.full(10, -1.5), 0)
            for s in range(ORACLE_IMAGE_STEPS):
                w.add_image("sample", rng.integers(0, 256, size=(3, 5, 4), dtype=np.uint8), s)
            for s in range(ORACLE_TEXT_STEPS):
                w.add_text("notes", f"step **{s}** of {run}: ✓", s)
        finally:
            w.close()
    return root
