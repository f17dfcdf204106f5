"""Meshes: vertices, faces and colours per step, grouped per mesh name, with the scene config.

The mesh plugin writes one tag per component of a mesh, each with a ``MeshPluginData`` naming the
mesh (``name``), the component (``content_type``: VERTEX, FACE, COLOR), the ``[B, N, 3]`` shape,
a bitmask of the mesh's components and a ``json_config`` (three.js camera, lights and material).
Tag names differ between writers (torch: ``<name>_VERTEX``; tensorboardX: ``<name>_1``), so
components are grouped by the metadata's ``name``, never by the tag.

Writers store every component as float32; as TensorBoard's mesh plugin does, faces are handed out
as int32 vertex indices and colours as uint8 RGB. ``B`` is a batch of samples per step (TensorBoard
shows one sample at a time). A mesh without faces is a point cloud.

Bad data is a ``PluginProblem`` and loses only the part that is bad: faces that are not whole
numbers or index past the vertices, or colours of another shape than the vertices, are dropped for
that step (the vertices still show); a step without readable vertices is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from tbnb.format.proto import plugin_data_pb2

from .source import LogdirLike, PluginProblem, pick_step, plugin_content, tags_of_plugin

PLUGIN_NAME = "mesh"
MeshPluginData = plugin_data_pb2.MeshPluginData
#: Component names by content type.
COMPONENTS = {MeshPluginData.VERTEX: "vertices", MeshPluginData.FACE: "faces", MeshPluginData.COLOR: "colors"}


@dataclass(frozen=True)
class MeshStep:
    """One step of a mesh: float32 ``vertices [B, N, 3]``, int32 ``faces [B, F, 3]`` or None,
    uint8 ``colors [B, N, 3]`` or None."""

    step: int
    wall_time: float
    vertices: np.ndarray = field(repr=False)
    faces: np.ndarray | None = field(default=None, repr=False)
    colors: np.ndarray | None = field(default=None, repr=False)

    @property
    def samples(self) -> int:
        """The batch size B."""
        return int(self.vertices.shape[0])

    @property
    def is_point_cloud(self) -> bool:
        return self.faces is None

    def sample(self, i: int = 0) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``(vertices [N, 3], faces [F, 3] | None, colors [N, 3] | None)`` of sample ``i``."""
        if not 0 <= i < self.samples:
            raise IndexError(f"sample {i} out of range: the step has {self.samples}")
        return (self.vertices[i], None if self.faces is None else self.faces[i],
                None if self.colors is None else self.colors[i])


@dataclass(frozen=True)
class Mesh:
    """A named mesh of one run: its component tags, scene config and readable steps, in step order."""

    run: str
    name: str
    tags: dict[str, str]
    config: dict[str, Any] | None
    steps: list[MeshStep] = field(repr=False)
    display_name: str = ""
    description: str = ""

    def _config(self, key: str) -> Any:
        return self.config.get(key) if isinstance(self.config, dict) else None

    @property
    def camera(self) -> dict[str, Any] | None:
        """The config's ``camera`` (three.js class and settings), if given."""
        return self._config("camera")

    @property
    def material(self) -> dict[str, Any] | None:
        """The config's ``material``, if given."""
        return self._config("material")

    @property
    def lights(self) -> list[dict[str, Any]] | None:
        """The config's ``lights``, if given."""
        return self._config("lights")


def _plugin_data(source: LogdirLike, run: str, tag: str, problems: list[PluginProblem]) -> Any:
    content = plugin_content(source, run, tag)
    try:
        data = MeshPluginData.FromString(content or b"")
    except DecodeError as err:
        problems.append(PluginProblem(run, tag, None, f"mesh plugin data does not decode: {err}"))
        return None
    if data.content_type not in COMPONENTS:
        message = f"mesh tag with unknown content type {data.content_type}"
        problems.append(PluginProblem(run, tag, None, message))
        return None
    return data


def _config(run: str, tag: str, text: str, problems: list[PluginProblem]) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        config = json.loads(text)
    except ValueError as err:
        problems.append(PluginProblem(run, tag, None, f"mesh json_config is not JSON: {err}"))
        return None
    if config is None or isinstance(config, dict):
        return config
    problems.append(PluginProblem(run, tag, None, "mesh json_config is not a JSON object"))
    return None


def _triples(data: np.ndarray, what: str) -> np.ndarray:
    arr = np.asarray(data)
    if arr.dtype.kind not in "iuf" or arr.ndim != 3 or arr.shape[2] != 3:
        raise ValueError(f"{what} tensor has shape {list(arr.shape)} and dtype {arr.dtype}; "
                         "expected numbers of shape [B, N, 3]")
    return arr


def _step(run: str, tags: Mapping[str, str], step: int, wall: float, parts: Mapping[str, np.ndarray],
          problems: list[PluginProblem]) -> MeshStep | None:
    """One step from its decoded components, dropping (and reporting) the parts that do not fit."""
    try:
        vertices = _triples(parts["vertices"], "vertex").astype(np.float32)
    except (KeyError, ValueError) as err:
        message = str(err) if isinstance(err, ValueError) else "no vertices at this step"
        problems.append(PluginProblem(run, tags.get("vertices") or next(iter(tags.values())), step, message))
        return None
    b, n = vertices.shape[:2]
    faces = colors = None
    if "faces" in parts:
        try:
            raw = _triples(parts["faces"], "face").astype(np.float64)
            if raw.shape[0] != b:
                raise ValueError(f"faces have {raw.shape[0]} samples, vertices {b}")
            if raw.size and (not np.all(np.isfinite(raw)) or np.any(raw != np.round(raw))):
                raise ValueError("faces hold values that are not whole vertex indices")
            if raw.size and (raw.min() < 0 or raw.max() >= n):
                raise ValueError(f"faces index vertices outside 0..{n - 1}")
            faces = raw.astype(np.int32)
        except ValueError as err:
            problems.append(PluginProblem(run, tags["faces"], step, f"{err}; drawn without faces"))
    if "colors" in parts:
        try:
            raw = _triples(parts["colors"], "colour").astype(np.float64)
            if raw.shape[:2] != (b, n):
                raise ValueError(f"colours have shape {list(raw.shape)}, vertices {list(vertices.shape)}")
            colors = np.clip(np.rint(np.nan_to_num(raw)), 0, 255).astype(np.uint8)
        except ValueError as err:
            problems.append(PluginProblem(run, tags["colors"], step, f"{err}; drawn without colours"))
    return MeshStep(step, wall, vertices, faces, colors)


def mesh_names(source: LogdirLike, run: str) -> list[str]:
    """The names of the run's meshes, sorted (unreadable metadata is skipped)."""
    names = {data.name or tag for tag in tags_of_plugin(source, run, PLUGIN_NAME)
             if (data := _plugin_data(source, run, tag, [])) is not None}
    return sorted(names)


def read_meshes(source: LogdirLike, run: str) -> tuple[dict[str, Mesh], list[PluginProblem]]:
    """Every mesh of the run by name, with the problems met reading them."""
    problems: list[PluginProblem] = []
    groups: dict[str, dict[str, tuple[str, Any]]] = {}
    for tag in tags_of_plugin(source, run, PLUGIN_NAME):
        data = _plugin_data(source, run, tag, problems)
        if data is not None:
            groups.setdefault(data.name or tag, {})[COMPONENTS[data.content_type]] = (tag, data)
    meshes = {}
    for name, parts in sorted(groups.items()):
        tags = {part: tag for part, (tag, _) in parts.items()}
        first_tag, first = parts.get("vertices", next(iter(parts.values())))
        config = _config(run, first_tag, first.json_config, problems)
        by_step: dict[int, dict[str, np.ndarray]] = {}
        walls: dict[int, float] = {}
        for part, tag in tags.items():
            series = source.tensors(run, tag)
            for i, (step, wall) in enumerate(zip(series.step.tolist(), series.wall_time.tolist())):
                try:
                    by_step.setdefault(step, {})[part] = series.values[i]
                except ValueError as err:  # a tensor that does not decode
                    problems.append(PluginProblem(run, tag, step, str(err)))
                if part == "vertices" or step not in walls:
                    walls[step] = wall
        steps = [s for s in (_step(run, tags, step, walls[step], by_step[step], problems)
                             for step in sorted(by_step)) if s is not None]
        md = source.metadata(run, first_tag)
        display, description = (md.display_name, md.summary_description) if md is not None else ("", "")
        meshes[name] = Mesh(run, name, tags, config, steps, display, description)
    return meshes, problems


@dataclass(frozen=True)
class RunMesh:
    """What one run contributes to a mesh card: its steps (for the slider) and the chosen one."""

    run: str
    steps: np.ndarray
    mesh: Mesh | None
    step: MeshStep | None
    problems: list[PluginProblem] = field(default_factory=list)


def card(source: LogdirLike, name: str, runs: Sequence[str],
         steps: Mapping[str, int] | None = None) -> dict[str, RunMesh]:
    """A mesh card's data: for each run that has mesh ``name``, its steps and the chosen step
    (``steps[run]``, nearest if absent from the run; the last step when not given)."""
    out: dict[str, RunMesh] = {}
    for run in runs:
        meshes, problems = read_meshes(source, run)
        mesh = meshes.get(name)
        if mesh is None:
            continue
        have, step = pick_step(mesh.steps, (steps or {}).get(run))
        out[run] = RunMesh(run, have, mesh, step, [p for p in problems if p.tag in mesh.tags.values()])
    return out
