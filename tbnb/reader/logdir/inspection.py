"""``tbnb inspect``: a text digest of event files, laid out like ``tensorboard --inspect``.

People reach for ``tensorboard --inspect`` when a dashboard looks wrong ("why is my curve cut
off?", "which tags did this run log?"), so the digest keeps TensorBoard's layout: anyone who
knows that output can read ours, and the two can be diffed. It reads raw events (no data
migration), exactly as TensorBoard's inspector does.

Deliberate differences from TensorBoard:

* TF2 summaries (a ``tensor`` value whose tag carries ``SummaryMetadata``) are counted under
  their plugin name (``scalars``, ``histograms``, ``text``, ...) taken from the first metadata
  seen for the tag, instead of all landing under ``tensor``. A TF2 scalar is a scalar to the
  person debugging; only tensors with no plugin stay under ``tensor``.
* Damaged records are skipped and listed in a final ``Problems:`` section instead of silently
  ending the read of that file.
* Event files of a directory are read in name (= creation) order, and directories in walk order
  with sorted names, so the output is reproducible (TensorBoard uses directory listing order).
* A missing logdir, a logdir that is not a directory, or one with no event files is an error
  (``InspectError``) rather than a line on stdout.

This module is pure: collecting returns data, formatting returns a string; printing and exit
codes belong to ``tbnb.cli``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from tbnb.format.proto import event_pb2

from ..events.events import read_event_file
from ..files.discovery import find_runs, is_event_file
from ..files.problems import Problem

#: TensorBoard's separator line (70 ``=``).
SEPARATOR = "=" * 70

#: TF1 value kinds (``Summary.Value`` oneof names) and the field TensorBoard shows them under.
TF1_VALUE_FIELDS = {
    "simple_value": "scalars",
    "histo": "histograms",
    "image": "images",
    "audio": "audio",
}
#: A ``tensor`` value with no plugin name is shown under this field.
TENSOR_FIELD = "tensor"
#: Fields listed in the "These tags are in" section even when empty (TensorBoard's TAG_FIELDS).
TAG_FIELDS = (*TF1_VALUE_FIELDS.values(), TENSOR_FIELD)
#: Event-level fields: not tied to a tag, so they are skipped when inspecting one tag.
GRAPH_FIELD = "graph"
CHECKPOINT_FIELD = "sessionlog:checkpoint"
START_FIELD = "sessionlog:start"
STOP_FIELD = "sessionlog:stop"
#: Fields whose every step is printed, because each occurrence matters (restarts, stops).
LONG_FIELDS = (START_FIELD, STOP_FIELD)
#: Fields shown in "Event statistics" even when empty (TensorBoard's TRACKED_FIELDS).
STANDARD_FIELDS = (GRAPH_FIELD, CHECKPOINT_FIELD, *TAG_FIELDS, *LONG_FIELDS)

_SESSION_LOG_FIELDS = {
    event_pb2.SessionLog.START: START_FIELD,
    event_pb2.SessionLog.STOP: STOP_FIELD,
    event_pb2.SessionLog.CHECKPOINT: CHECKPOINT_FIELD,
}
#: Names a plugin cannot take as a field: they would be confused with event-level fields.
_RESERVED_FIELDS = frozenset({GRAPH_FIELD, CHECKPOINT_FIELD, *LONG_FIELDS})


class InspectError(Exception):
    """A request that cannot be inspected at all (missing path, no event files): one-line message."""


@dataclass(frozen=True)
class Observation:
    """One thing seen in an event file, before its field is decided.

    ``kind`` is a field name, or ``"tensor"`` for a tensor value whose field depends on its tag's
    plugin, which may only be known once the whole unit is read.
    """

    kind: str
    tag: str
    step: int


@dataclass
class Unit:
    """What one directory (or one event file) holds: TensorBoard's "inspection unit".

    ``fields`` maps a field name to the ``(step, tag)`` pairs seen, in file order; order matters
    because out-of-order steps are what the digest is for.
    """

    name: str
    fields: dict[str, list[tuple[int, str]]] = field(default_factory=dict)

    def steps(self, name: str) -> list[int]:
        """Steps of one field in file order (empty if the field was never seen)."""
        return [step for step, _ in self.fields.get(name, ())]

    def tags(self, name: str) -> list[str]:
        """Sorted distinct tags of one field."""
        return sorted({tag for _, tag in self.fields.get(name, ())})


@dataclass
class Report:
    """Everything ``format_report`` needs: the units, how they were found, and what was damaged."""

    units: list[Unit]
    tag: str = ""
    from_logdir: bool = True
    problems: list[Problem] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Reading


def observe(event: event_pb2.Event, tag: str, plugins: dict[str, str]) -> Iterator[Observation]:
    """Yield what ``event`` contributes, recording each tag's first plugin name in ``plugins``.

    With ``tag`` set, only values of that tag count, and event-level fields (graph, session log)
    are skipped, as in TensorBoard: they have no tag to match.
    """
    what = event.WhichOneof("what")
    if what == "graph_def" and not tag:
        yield Observation(GRAPH_FIELD, "", event.step)
    elif what == "session_log" and not tag:
        kind = _SESSION_LOG_FIELDS.get(event.session_log.status)
        if kind:
            yield Observation(kind, "", event.step)
    elif what == "summary":
        for value in event.summary.value:
            if tag and value.tag != tag:
                continue
            if value.tag not in plugins and value.HasField("metadata"):
                plugins[value.tag] = value.metadata.plugin_data.plugin_name
            kind = value.WhichOneof("value")
            if kind == "tensor":
                yield Observation(TENSOR_FIELD, value.tag, event.step)
            elif kind in TF1_VALUE_FIELDS:
                yield Observation(TF1_VALUE_FIELDS[kind], value.tag, event.step)


def tensor_field(plugin: str) -> str:
    """The field a tensor value of ``plugin`` is shown under: the plugin's name, else ``tensor``."""
    if not plugin or plugin in _RESERVED_FIELDS:
        return TENSOR_FIELD
    return plugin


def collect_unit(name: str, paths: Sequence[Path], tag: str = "") -> tuple[Unit, list[Problem]]:
    """Read ``paths`` in order as one unit and group what they hold by field.

    Tensor values are resolved only after every file is read, so that all values of a tag land in
    one field even if the tag's metadata is not on its first event.
    """
    plugins: dict[str, str] = {}
    observations: list[Observation] = []
    problems: list[Problem] = []
    for path in paths:
        events, file_problems = read_event_file(path)
        problems.extend(file_problems)
        for event in events:
            observations.extend(observe(event, tag, plugins))
    unit = Unit(name)
    for obs in observations:
        kind = tensor_field(plugins.get(obs.tag, "")) if obs.kind == TENSOR_FIELD else obs.kind
        unit.fields.setdefault(kind, []).append((obs.step, obs.tag))
    return unit, problems


# ---------------------------------------------------------------------------------------------
# Finding what to read


def unit_name(logdir: str, run: str) -> str:
    """The directory name TensorBoard prints for ``run``: the logdir as given, joined with the run."""
    return logdir if run == "." else os.path.join(logdir, *run.split("/"))


def _walk_order(run: str) -> tuple[int, list[str]]:
    """Sort key giving a top-down walk with sorted names: the root first, parents before children."""
    return (0, []) if run == "." else (1, run.split("/"))


def check_logdir(logdir: str) -> Path:
    """Reject a logdir that cannot hold runs, with a message that says what to do instead."""
    path = Path(logdir).expanduser()
    if not path.exists():
        raise InspectError(f"logdir does not exist: {logdir}")
    if not path.is_dir():
        hint = " (it looks like an event file: use --event_file)" if is_event_file(path.name) else ""
        raise InspectError(f"logdir is not a directory: {logdir}{hint}")
    return path


def inspect_logdir(logdir: str, tag: str = "") -> Report:
    """Collect one unit per run directory of ``logdir``. Raises ``InspectError`` if there is none."""
    root = check_logdir(logdir)
    runs, problems = find_runs(root)
    if not runs:
        raise InspectError(f"no event files found within logdir {logdir}")
    shown = os.path.expanduser(logdir)
    units = []
    for run in sorted(runs, key=_walk_order):
        unit, unit_problems = collect_unit(unit_name(shown, run), runs[run], tag)
        units.append(unit)
        problems.extend(unit_problems)
    return Report(units, tag, from_logdir=True, problems=problems)


def inspect_event_file(event_file: str, tag: str = "") -> Report:
    """Collect a single unit from one event file. Raises ``InspectError`` if it is not a file."""
    shown = os.path.expanduser(event_file)
    path = Path(shown)
    if not path.exists():
        raise InspectError(f"event file does not exist: {event_file}")
    if not path.is_file():
        raise InspectError(f"event file is not a file: {event_file} (for a directory use --logdir)")
    unit, problems = collect_unit(shown, [path], tag)
    return Report([unit], tag, from_logdir=False, problems=problems)


# ---------------------------------------------------------------------------------------------
# Statistics and formatting


def out_of_order(steps: Sequence[int]) -> list[tuple[int, int]]:
    """Adjacent pairs ``(previous, current)`` where the step went down: what triggers purging."""
    return [(prev, cur) for prev, cur in zip(steps, steps[1:]) if cur < prev]


def short_stats(steps: Sequence[int]) -> dict[str, object]:
    """A digest of a field's steps, for fields with too many events to list."""
    return {
        "first_step": steps[0],
        "last_step": steps[-1],
        "max_step": max(steps),
        "min_step": min(steps),
        "num_steps": len(set(steps)),
        "outoforder_steps": out_of_order(steps),
    }


def long_stats(steps: Sequence[int]) -> dict[str, object]:
    """Every step of a rare field (session starts and stops), where each one is worth seeing."""
    return {"outoforder_steps": out_of_order(steps), "steps": list(steps)}


def field_stats(unit: Unit, name: str) -> dict[str, object] | None:
    """The statistics printed for one field, or None if the field was never seen."""
    steps = unit.steps(name)
    if not steps:
        return None
    return long_stats(steps) if name in LONG_FIELDS else short_stats(steps)


def _tag_fields(unit: Unit) -> list[str]:
    """Fields of the tag listing: TensorBoard's always, plugin fields only when present."""
    extra = set(unit.fields) - set(STANDARD_FIELDS)
    return sorted({*TAG_FIELDS, *extra})


def _stat_fields(unit: Unit) -> list[str]:
    """Fields of the statistics: TensorBoard's always, plugin fields only when present."""
    return sorted({*STANDARD_FIELDS, *unit.fields})


def format_tags(unit: Unit) -> list[str]:
    """The "These tags are in" body: each field, then its sorted tags indented, or ``field -``."""
    lines = []
    for name in _tag_fields(unit):
        tags = unit.tags(name)
        lines.append(name if tags else f"{name} -")
        lines.extend(f"   {tag}" for tag in tags)
    return lines


def format_stats(unit: Unit, show_missing: bool = True) -> list[str]:
    """The "Event statistics" body: each field with its statistics in aligned, sorted rows."""
    lines = []
    for name in _stat_fields(unit):
        stats = field_stats(unit, name)
        if stats is None:
            if show_missing:
                lines.append(f"{name} -")
            continue
        lines.append(name)
        lines.extend(f"   {key:<20} {value}" for key, value in sorted(stats.items()))
    return lines


def format_unit(unit: Unit, tag: str = "") -> list[str]:
    """One unit's block; with a tag only that tag's statistics, and only fields that have it."""
    if tag:
        lines = [f"Event statistics for tag {tag} in {unit.name}:"]
        lines += format_stats(unit, show_missing=False)
    else:
        lines = [f"These tags are in {unit.name}:", *format_tags(unit), SEPARATOR, ""]
        lines += [f"Event statistics for {unit.name}:", *format_stats(unit)]
    return [*lines, SEPARATOR, ""]


def format_problems(problems: Iterable[Problem]) -> list[str]:
    """The closing "Problems:" section; nothing at all when every record was readable."""
    problems = list(problems)
    if not problems:
        return []
    return ["Problems:", *(f"   {problem}" for problem in problems), SEPARATOR, ""]


def format_report(report: Report) -> str:
    """The full text of ``tbnb inspect``, ending with a newline."""
    lines = [SEPARATOR, "Processing event files... (this can take a few minutes)", SEPARATOR, ""]
    if report.from_logdir:
        lines += ["Found event files in:", *(unit.name for unit in report.units), ""]
    for unit in report.units:
        lines += format_unit(unit, report.tag)
    lines += format_problems(report.problems)
    return "\n".join(lines) + "\n"
