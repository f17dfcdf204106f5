"""The benchmark's logdirs: written once with ``tbnb.testing``, cached, regenerated when changed.

Each dataset lives in ``<cache>/<name>/`` next to a marker file recording its parameters; a
dataset whose marker is missing or differs (its definition changed, or writing was interrupted)
is written again. Writing goes to a temporary sibling directory that is renamed into place only
when complete, so a half-written logdir is never measured.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: Bump when the way a dataset is written changes without its parameters changing.
GENERATOR_VERSION = 1
MARKER = "bench-dataset.json"


def scalar_tag(t: int) -> str:
    """Tag ``t`` of a ``tbnb.testing.write_scalar_logdir`` run (the incremental step appends to them)."""
    return f"group_{t // 4}/metric_{t}"


@dataclass(frozen=True)
class Dataset:
    """One cached logdir: its key in the report, directory name, parameters and writer."""

    key: str
    name: str
    description: str
    params: dict[str, Any]
    events: int
    write: Callable[[Path, dict[str, Any]], None] = field(repr=False, compare=False)
    #: Scalar points tbnb should hold after loading (None: not checked).
    scalar_points: int | None = None

    def marker(self) -> dict[str, Any]:
        """What the marker file records; any change regenerates the dataset."""
        return {"name": self.name, "params": self.params, "generator_version": GENERATOR_VERSION}


def _write_scalars(path: Path, params: dict[str, Any]) -> None:
    from tbnb.testing import write_scalar_logdir

    write_scalar_logdir(path, **params)


def _synthetic_images(rng: np.random.Generator, count: int, size: int) -> list[np.ndarray]:
    """Smooth colour gradients with a moving blob and some noise: PNGs of a realistic size."""
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float64) / size
    images = []
    for i in range(count):
        cy, cx = rng.random(2)
        blob = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 0.02)
        rgb = np.stack([xx, yy, blob], axis=-1) * 200.0 + rng.normal(0.0, 12.0, (size, size, 3))
        images.append(np.clip(rgb + 8 * i, 0, 255).astype(np.uint8))
    return images


def _write_media(path: Path, params: dict[str, Any]) -> None:
    """Histograms at every step and images every ``image_every`` steps, per run, in step order.

    Odd runs are TF2-style (plugin tensors), even runs TF1-style (``histo``/``image`` values), so
    both decoding paths are timed. Values come from a small pool of precomputed arrays.
    """
    from tbnb.testing import EventWriter

    rng = np.random.default_rng(params["seed"])
    pool = [rng.normal(0.0, 1.0, params["histogram_values"]) for _ in range(16)]
    images = _synthetic_images(rng, 8, params["image_size"])
    image_every = params["histogram_steps"] // params["image_steps"]
    for run in range(params["runs"]):
        tf2 = run % 2 == 1
        start = 1_600_000_000.0 + 3600.0 * run
        with EventWriter(path / f"run_{run:02d}", start_time=start) as writer:
            for step in range(params["histogram_steps"]):
                wall = start + 1.0 + 0.05 * step
                for t in range(params["histogram_tags"]):
                    values = pool[(7 * step + t) % len(pool)] * (1.0 + 0.1 * t) + 1e-3 * step
                    writer.add_histogram(f"weights/layer_{t}", values, step, bins=params["buckets"],
                                         wall_time=wall, tf2=tf2)
                if step % image_every == 0 and step // image_every < params["image_steps"]:
                    for t in range(params["image_tags"]):
                        image = images[(step // image_every + 3 * t) % len(images)]
                        writer.add_image(f"samples/image_{t}", image, step, wall_time=wall, tf2=tf2)


def _scalar_dataset(key: str, name: str, description: str, **params: Any) -> Dataset:
    full = {"runs": 8, "tags": 16, "steps": 20000, "tf2": False, "seed": 0, **params}
    n = full["runs"] * full["tags"] * full["steps"]
    return Dataset(key, name, description, full, n, _write_scalars, scalar_points=n)


SCALARS_TF1 = _scalar_dataset("a", "scalars-tf1", "TF1 scalars, 8 runs x 16 tags x 20,000 steps")
SCALARS_TF2 = _scalar_dataset("b", "scalars-tf2", "TF2 scalars, 8 runs x 16 tags x 20,000 steps", tf2=True)
SCALARS_TENTH = _scalar_dataset("a10", "scalars-tf1-tenth", "TF1 scalars, 8 x 16 x 2,000 (a tenth of a)",
                                steps=2000)
_MEDIA = {"runs": 8, "histogram_tags": 4, "histogram_steps": 2000, "buckets": 30, "histogram_values": 1000,
          "image_tags": 2, "image_steps": 200, "image_size": 64, "seed": 0}
MEDIA = Dataset(
    "c", "media-mix", "8 runs x (4 histogram tags x 2,000 steps + 2 image tags x 200 steps 64x64 PNG)",
    _MEDIA, _MEDIA["runs"] * (_MEDIA["histogram_tags"] * _MEDIA["histogram_steps"]
                              + _MEDIA["image_tags"] * _MEDIA["image_steps"]),
    _write_media,
)

#: The datasets of the main table, in order.
TABLE = (SCALARS_TF1, SCALARS_TF2, MEDIA)


def _read_marker(path: Path) -> dict[str, Any] | None:
    try:
        return json.loads((path / MARKER).read_text())
    except (OSError, ValueError):
        return None


def ensure(dataset: Dataset, cache: Path, log: Callable[[str], None]) -> Path:
    """The dataset's directory under ``cache``, written first if missing or out of date."""
    path = cache / dataset.name
    if _read_marker(path) == dataset.marker():
        return path
    log(f"writing dataset ({dataset.key}) {dataset.name}: {dataset.description} ...")
    began = time.perf_counter()
    tmp = cache / f".{dataset.name}.writing"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        dataset.write(tmp, dataset.params)
        (tmp / MARKER).write_text(json.dumps(dataset.marker(), indent=2) + "\n")
        shutil.rmtree(path, ignore_errors=True)
        tmp.rename(path)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    log(f"  done in {time.perf_counter() - began:.1f} s, {event_bytes(path) / 1e6:.0f} MB")
    return path


def event_files(path: Path) -> list[Path]:
    """Every event file under ``path`` (TensorBoard's rule: the name contains ``tfevents``)."""
    return sorted(p for p in path.rglob("*") if "tfevents" in p.name and p.is_file())


def event_bytes(path: Path) -> int:
    """Total size of the event files under ``path``."""
    return sum(p.stat().st_size for p in event_files(path))


def warm_page_cache(path: Path) -> None:
    """Read every event file once so that every loader meets a warm file-system cache."""
    for p in event_files(path):
        with open(p, "rb") as fh:
            while fh.read(1 << 24):
                pass
