"""Projector configs: ``projector_config.pbtxt`` per run and the files it names.

The projector reads files, not summaries. A config lives in a run's directory, or under
``<run>/plugins/org_tensorflow_tensorboard_projector/``; the logdir root is tried as run ``"."``
even when it holds no event file. Tensors named by ``tensor_path`` are TSV floats (raw float32 as
a fallback). ``ProjectorInfo`` is the config as written; embeddings.py builds the full view
(checkpoint tensors, metadata tables, sprites) on the helpers here.

Asset paths follow TensorBoard: relative to the config's directory, and refused
(``resolve_asset``) when they resolve outside it, so that a config cannot make the reader open
arbitrary files.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from google.protobuf import text_format

from tbnb.format.proto import projector_config_pb2

CONFIG_NAME = "projector_config.pbtxt"
PLUGIN_DIR = Path("plugins") / "org_tensorflow_tensorboard_projector"


@dataclass(frozen=True)
class Embedding:
    """One embedding of a projector config as written, with its paths joined to the run directory."""

    name: str
    tensor_path: Path | None
    metadata_path: Path | None
    sprite_path: Path | None
    sprite_single_image_dim: tuple[int, ...]
    tensor_shape: tuple[int, ...]
    bookmarks_path: Path | None

    def tensor(self) -> np.ndarray:
        """The embedding as a 2-D float32 array (TSV, or raw float32 shaped by ``tensor_shape``)."""
        if self.tensor_path is None:
            raise ValueError(f"embedding {self.name!r} names no tensor_path (checkpoint tensors are not read)")
        raw = self.tensor_path.read_bytes()
        try:
            rows = [line.split("\t") for line in raw.decode("utf-8").splitlines() if line.strip()]
            return np.array(rows, dtype=np.float32).reshape(len(rows), -1)
        except (UnicodeDecodeError, ValueError):
            arr = np.frombuffer(raw[: len(raw) // 4 * 4], dtype="<f4")
            dims = self.tensor_shape[-1] if self.tensor_shape else 1
            if arr.size % dims:
                raise ValueError(f"{self.tensor_path}: neither TSV nor float32 of width {dims}") from None
            return arr.reshape(-1, dims).copy()

    def metadata(self) -> tuple[list[str], list[list[str]]]:
        """(column names, rows). One column has no header; a tab in the first line makes it one."""
        if self.metadata_path is None:
            return [], []
        lines = self.metadata_path.read_text(encoding="utf-8", errors="replace").splitlines()
        if not lines:
            return [], []
        if "\t" in lines[0]:
            return lines[0].split("\t"), [line.split("\t") for line in lines[1:]]
        return ["label"], [[line] for line in lines]


@dataclass(frozen=True)
class ProjectorInfo:
    """A run's projector config."""

    run: str
    config_path: Path
    model_checkpoint_path: str
    embeddings: tuple[Embedding, ...]


def _resolve(base: Path, rel: str) -> Path | None:
    if not rel:
        return None
    path = Path(rel).expanduser()
    return path if path.is_absolute() else base / path


def find_configs(run_dir: Path) -> list[Path]:
    """Every projector config of a run directory: its own, then its plugin directory's."""
    return [c for c in (run_dir / CONFIG_NAME, run_dir / PLUGIN_DIR / CONFIG_NAME) if c.is_file()]


def find_config(run_dir: Path) -> Path | None:
    """The first projector config of a run directory, if it has one."""
    configs = find_configs(run_dir)
    return configs[0] if configs else None


def parse_config(path: Path) -> projector_config_pb2.ProjectorConfig:
    """A config file parsed; a malformed one (bad text format or encoding) raises ValueError."""
    config = projector_config_pb2.ProjectorConfig()
    try:
        text_format.Parse(path.read_text(encoding="utf-8"), config)
    except (text_format.ParseError, UnicodeDecodeError) as err:
        raise ValueError(f"{path}: not a projector config: {err}") from None
    return config


def resolve_asset(config_path: Path, rel: str) -> Path:
    """A path named in a config, joined to the config's directory; ValueError if it resolves
    outside that directory (``..``, an absolute path elsewhere, or a symlink leading out)."""
    base = config_path.parent.resolve()
    target = (base / Path(rel).expanduser()).resolve()
    if target != base and base not in target.parents:
        raise ValueError(f"{config_path}: path {rel!r} resolves outside the config's directory")
    return target


def read_projector(run: str, run_dir: Path) -> ProjectorInfo | None:
    """Parse a run's projector config; None if it has none. A malformed file raises ValueError."""
    path = find_config(run_dir)
    if path is None:
        return None
    config = parse_config(path)
    embeddings = tuple(
        Embedding(
            name=e.tensor_name,
            tensor_path=_resolve(run_dir, e.tensor_path),
            metadata_path=_resolve(run_dir, e.metadata_path),
            sprite_path=_resolve(run_dir, e.sprite.image_path),
            sprite_single_image_dim=tuple(e.sprite.single_image_dim),
            tensor_shape=tuple(e.tensor_shape),
            bookmarks_path=_resolve(run_dir, e.bookmarks_path),
        )
        for e in config.embeddings
    )
    return ProjectorInfo(run, path, config.model_checkpoint_path, embeddings)
