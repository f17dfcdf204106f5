"""Every embedding of a run, as the projector shows them: ``embeddings(logdir, run)``.

Sources, as in TensorBoard: the run's projector configs (its directory and its
``plugins/org_tensorflow_tensorboard_projector/``), tensors from files or from a TF checkpoint
(the config's ``model_checkpoint_path``, else the run's ``checkpoint`` state file), where every
2-D float variable not already named becomes an embedding (an unnamed first entry lends it its
metadata and bookmarks).

Reading is lazy: listing a run parses configs and checkpoint indexes only; ``tensor``,
``metadata``, ``sprite`` and ``bookmarks`` read their file on first use and keep it. A problem
costs only what it touches: a malformed config or unreadable checkpoint is listed in
``Embeddings.problems`` and the other sources still count; a path escaping the config's directory
or a metadata file with the wrong row count raises ``EmbeddingError`` from that one attribute,
while the rest of the embedding reads.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from tbnb.format.proto import projector_config_pb2

from .checkpoint import Bundle, CheckpointError, latest_checkpoint, read_bundle
from .embedding_files import Sprite, parse_bookmarks, parse_metadata, parse_sprite, parse_tensor
from .projector import find_configs, parse_config, resolve_asset

if TYPE_CHECKING:
    import pandas as pd


class EmbeddingError(ValueError):
    """One part of one embedding (tensor, metadata, sprite, bookmarks) cannot be read."""


class HasRunDirectory(Protocol):
    """What ``embeddings`` needs of a ``Logdir``: where a run's files are."""

    def run_directory(self, run: str) -> Path: ...


class Embedding:
    """One embedding: ``tensor`` (float32 [N, D]), ``metadata`` (DataFrame or None), ``sprite``
    (``Sprite`` or None), ``bookmarks`` (list of TensorBoard states)."""

    def __init__(self, name: str, run: str, source: str, load: Callable[[], np.ndarray],
                 paths: dict[str, Path | str | None], sprite_dim: tuple[int, ...] = ()) -> None:
        self.name = name
        self.run = run
        #: Where the tensor comes from: a file path or ``"checkpoint <prefix>"``.
        self.source = source
        self._load = load
        #: "metadata", "sprite", "bookmarks" -> resolved path, None, or the error text for a refused path.
        self.paths = paths
        self.sprite_dim = sprite_dim

    def __repr__(self) -> str:
        return f"Embedding({self.name!r}, run={self.run!r}, source={self.source!r})"

    def _path(self, kind: str) -> Path | None:
        value = self.paths.get(kind)
        if isinstance(value, str):
            raise EmbeddingError(value)
        return value

    def _read(self, kind: str) -> bytes | None:
        path = self._path(kind)
        if path is None:
            return None
        try:
            return path.read_bytes()
        except OSError as err:
            raise EmbeddingError(f"{path}: cannot read {kind}: {err.strerror or err}") from None

    @cached_property
    def tensor(self) -> np.ndarray:
        try:
            values = self._load()
        except (OSError, ValueError) as err:
            raise EmbeddingError(f"embedding {self.name!r}: {getattr(err, 'strerror', None) or err}") from None
        if values.ndim != 2:
            raise EmbeddingError(f"embedding {self.name!r}: shape {values.shape} is not 2-D")
        return values

    @property
    def shape(self) -> tuple[int, int]:
        return self.tensor.shape  # type: ignore[return-value]

    @cached_property
    def metadata(self) -> pd.DataFrame | None:
        raw = self._read("metadata")
        if raw is None:
            return None
        try:
            return parse_metadata(raw.decode("utf-8", errors="replace"), len(self.tensor), str(self.paths["metadata"]))
        except ValueError as err:
            raise EmbeddingError(str(err)) from None

    @cached_property
    def sprite(self) -> Sprite | None:
        raw = self._read("sprite")
        if raw is None:
            return None
        try:
            return parse_sprite(raw, self.sprite_dim, str(self.paths["sprite"]))
        except ValueError as err:
            raise EmbeddingError(str(err)) from None

    @cached_property
    def bookmarks(self) -> list[dict[str, Any]]:
        raw = self._read("bookmarks")
        if raw is None:
            return []
        try:
            return parse_bookmarks(raw.decode("utf-8", errors="replace"), str(self.paths["bookmarks"]))
        except ValueError as err:
            raise EmbeddingError(str(err)) from None


class Embeddings(dict):
    """tensor name -> Embedding, plus ``problems``: what could not be listed, and why."""

    def __init__(self) -> None:
        super().__init__()
        self.problems: list[str] = []


def _asset(config_path: Path, rel: str) -> Path | str | None:
    """A config path resolved, or the refusal's text (kept for the attribute that needs it)."""
    if not rel:
        return None
    try:
        return resolve_asset(config_path, rel)
    except ValueError as err:
        return str(err)


def _file_loader(path: Path, shape: tuple[int, ...]) -> Callable[[], np.ndarray]:
    return lambda: parse_tensor(path.read_bytes(), shape, str(path))


def _checkpoint_of(config_path: Path | None, config: projector_config_pb2.ProjectorConfig,
                   run_dir: Path) -> Path | None:
    """The checkpoint prefix a config (or, without one, the run directory) points to."""
    if config_path is not None and config.model_checkpoint_path:
        prefix = resolve_asset(config_path, config.model_checkpoint_path)
        if not Path(f"{prefix}.index").is_file():
            raise CheckpointError(f"{config_path}: model_checkpoint_path {config.model_checkpoint_path!r} has no .index file")
        return prefix
    if config_path is not None and config.model_checkpoint_dir:
        return latest_checkpoint(resolve_asset(config_path, config.model_checkpoint_dir))
    return latest_checkpoint(run_dir)


def _add(found: Embeddings, emb: Embedding, where: str) -> None:
    if emb.name in found:
        found.problems.append(f"{where}: embedding {emb.name!r} is named twice; the first is kept")
    else:
        found[emb.name] = emb


def _from_config(found: Embeddings, run: str, run_dir: Path, config_path: Path | None,
                 config: projector_config_pb2.ProjectorConfig) -> None:
    entries = list(config.embeddings)
    template = entries.pop(0) if entries and not entries[0].tensor_name else None
    bundle: Bundle | None = None
    try:
        prefix = _checkpoint_of(config_path, config, run_dir)
        bundle = read_bundle(prefix) if prefix is not None else None
    except (CheckpointError, ValueError) as err:
        found.problems.append(str(err))
    where = str(config_path or run_dir)
    for info in entries:
        name = info.tensor_name[:-2] if info.tensor_name.endswith(":0") else info.tensor_name
        assert config_path is not None  # entries exist only in a config
        paths = {k: _asset(config_path, rel) for k, rel in
                 (("metadata", info.metadata_path), ("sprite", info.sprite.image_path), ("bookmarks", info.bookmarks_path))}
        shape = tuple(info.tensor_shape)
        if info.tensor_path:
            target = _asset(config_path, info.tensor_path)
            if isinstance(target, str):
                found.problems.append(target)
                continue
            _add(found, Embedding(name, run, str(target), _file_loader(target, shape), paths, tuple(info.sprite.single_image_dim)), where)
        elif bundle is not None and name in bundle.tensors:
            _add(found, Embedding(name, run, f"checkpoint {bundle.prefix}", lambda b=bundle, n=name: b.read(n),
                                  paths, tuple(info.sprite.single_image_dim)), where)
        else:
            found.problems.append(f"{where}: embedding {name!r} has no tensor_path and no checkpoint holds it")
    if bundle is None:
        return
    shared: dict[str, Path | str | None] = {"metadata": None, "sprite": None, "bookmarks": None}
    if template is not None and config_path is not None:
        shared.update(metadata=_asset(config_path, template.metadata_path),
                      bookmarks=_asset(config_path, template.bookmarks_path))
    for name in bundle.float_matrices():
        if name not in found:
            found[name] = Embedding(name, run, f"checkpoint {bundle.prefix}",
                                    lambda b=bundle, n=name: b.read(n), dict(shared))


def embeddings(logdir: HasRunDirectory, run: str) -> Embeddings:
    """Every embedding of ``run`` (``"."`` is the logdir itself), by tensor name."""
    run_dir = logdir.run_directory(run)
    found = Embeddings()
    configs = find_configs(run_dir)
    for config_path in configs:
        try:
            config = parse_config(config_path)
        except (OSError, ValueError) as err:
            found.problems.append(str(err))
            continue
        _from_config(found, run, run_dir, config_path, config)
    if not configs:
        _from_config(found, run, run_dir, None, projector_config_pb2.ProjectorConfig())
    return found
