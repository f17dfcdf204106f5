"""HParams: the experiment and its sessions, from the hparams plugin's summaries.

The hparams plugin carries everything in ``SummaryMetadata.plugin_data.content`` (a serialized
``HParamsPluginData``); the tensors are empty. A run holds at most one of each kind, told apart by
the ``data`` oneof (the tags are ``_hparams_/experiment``, ``_hparams_/session_start_info`` and
``_hparams_/session_end_info``, but the content decides):

* ``experiment``: hparam definitions (type, domain) and metric definitions;
* ``session_start_info``: one session (a trial): its hparam values and start time. The session is
  the run that holds it, as in TensorBoard;
* ``session_end_info``: the session's status and end time.

torch's and tensorboardX's ``add_hparams`` write all three into a new sub-run per trial, with an
experiment that lists that trial's hparams only. TensorBoard picks one run's experiment at random;
here the experiments of all runs are merged (hparams by name, metrics by group and tag, first
definition wins, discrete domains united), so that every trial's hparams are defined. With no
experiment written, the hparam definitions are inferred from the sessions' values.

Metric values are ordinary scalars; joining them to sessions is ``hparams_table``'s job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Union

from google.protobuf import json_format, struct_pb2
from google.protobuf.message import DecodeError

from tbnb.format.proto import hparams_pb2

from .source import LogdirLike, PluginProblem, plugin_content, tags_of_plugin

PLUGIN_NAME = "hparams"
EXPERIMENT_TAG = "_hparams_/experiment"
SESSION_START_TAG = "_hparams_/session_start_info"
SESSION_END_TAG = "_hparams_/session_end_info"

#: A session's value for one hparam, as written (numbers as float, as protobuf's Value holds them).
HParamValue = Union[float, str, bool, None]

_TYPES = {hparams_pb2.DATA_TYPE_UNSET: "", hparams_pb2.DATA_TYPE_STRING: "string",
          hparams_pb2.DATA_TYPE_BOOL: "bool", hparams_pb2.DATA_TYPE_FLOAT64: "float64"}
_DATASETS = {hparams_pb2.DATASET_UNKNOWN: "", hparams_pb2.DATASET_TRAINING: "training",
             hparams_pb2.DATASET_VALIDATION: "validation"}
_STATUSES = {hparams_pb2.STATUS_UNKNOWN: "unknown", hparams_pb2.STATUS_SUCCESS: "success",
             hparams_pb2.STATUS_FAILURE: "failure", hparams_pb2.STATUS_RUNNING: "running"}


@dataclass(frozen=True)
class HParamDef:
    """An hparam's definition: ``type`` is "string", "bool", "float64" or "" (unset); the domain is
    a tuple of allowed values, or an interval ``(min, max)``, or neither."""

    name: str
    display_name: str = ""
    description: str = ""
    type: str = ""
    domain_values: tuple[HParamValue, ...] | None = None
    domain_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class MetricDef:
    """A metric: the scalar ``tag`` in the run ``group`` (relative to the session's run; "" is the
    session's run itself). ``dataset_type`` is "training", "validation" or ""."""

    tag: str
    group: str = ""
    display_name: str = ""
    description: str = ""
    dataset_type: str = ""


@dataclass(frozen=True)
class Experiment:
    """The merged experiment; ``runs`` are the runs that wrote one (empty: inferred)."""

    name: str = ""
    description: str = ""
    user: str = ""
    time_created: float | None = None
    hparams: tuple[HParamDef, ...] = ()
    metrics: tuple[MetricDef, ...] = ()
    runs: tuple[str, ...] = ()


@dataclass(frozen=True)
class Session:
    """One trial: the run that holds its session start, its hparam values and how it ended.

    ``status`` is "success", "failure", "running" or "unknown" (also when no end was written).
    """

    run: str
    hparams: dict[str, HParamValue]
    #: Seconds since the epoch: as written, else the wall time of the session's summary.
    start_time: float | None = None
    end_time: float | None = None
    status: str = "unknown"
    group_name: str = ""
    model_uri: str = ""
    monitor_url: str = ""


@dataclass(frozen=True)
class HParamsData:
    """Everything the hparams summaries of a logdir say."""

    experiment: Experiment
    sessions: list[Session]
    problems: list[PluginProblem] = field(default_factory=list)


def value_of(value: struct_pb2.Value) -> HParamValue:
    """A ``google.protobuf.Value`` as Python: number, string, bool, None; a list or struct (which
    no hparams writer produces) as its JSON text, so that it still shows."""
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return float(value.number_value)
    if kind == "string_value":
        return str(value.string_value)
    if kind == "bool_value":
        return bool(value.bool_value)
    if kind in ("list_value", "struct_value"):
        return json.dumps(json_format.MessageToDict(value), sort_keys=True)
    return None


def _hparam_def(info: hparams_pb2.HParamInfo) -> HParamDef:
    domain = info.WhichOneof("domain")
    values = tuple(value_of(v) for v in info.domain_discrete.values) if domain == "domain_discrete" else None
    interval = ((float(info.domain_interval.min_value), float(info.domain_interval.max_value))
                if domain == "domain_interval" else None)
    return HParamDef(info.name, info.display_name, info.description, _TYPES.get(info.type, ""),
                     values, interval)


def _metric_def(info: hparams_pb2.MetricInfo) -> MetricDef:
    return MetricDef(info.name.tag, info.name.group, info.display_name, info.description,
                     _DATASETS.get(info.dataset_type, ""))


def _merge_hparam(old: HParamDef, new: HParamDef) -> HParamDef:
    """Keep the first definition; unite two discrete domains (first-seen order)."""
    if old.domain_values is None or new.domain_values is None:
        return old
    extra = tuple(v for v in new.domain_values if v not in old.domain_values)
    return HParamDef(old.name, old.display_name, old.description, old.type, old.domain_values + extra, None)


def _type_of(values: list[HParamValue]) -> str:
    present = [v for v in values if v is not None]
    if present and all(isinstance(v, bool) for v in present):
        return "bool"
    if present and all(isinstance(v, float) and not isinstance(v, bool) for v in present):
        return "float64"
    return "string" if present else ""


def infer_hparam_defs(sessions: list[Session], known: tuple[str, ...] = ()) -> list[HParamDef]:
    """Definitions for the hparams the sessions use that are not in ``known``, sorted by name,
    with the type their values share and their distinct values as the domain."""
    names = sorted({name for s in sessions for name in s.hparams} - set(known))
    defs = []
    for name in names:
        values = [s.hparams.get(name) for s in sessions]
        distinct = tuple(dict.fromkeys(v for v in values if v is not None))
        defs.append(HParamDef(name, type=_type_of(values), domain_values=distinct))
    return defs


def _decode(source: LogdirLike, run: str, tag: str,
            problems: list[PluginProblem]) -> hparams_pb2.HParamsPluginData | None:
    content = plugin_content(source, run, tag)
    if content is None:
        problems.append(PluginProblem(run, tag, None, "hparams summary without plugin content"))
        return None
    try:
        return hparams_pb2.HParamsPluginData.FromString(content)
    except DecodeError as err:
        problems.append(PluginProblem(run, tag, None, f"hparams plugin data does not decode: {err}"))
        return None


def _first_wall_time(source: LogdirLike, run: str, tag: str) -> float | None:
    """When the summary was written: the stand-in for a start or end time left unset (torch and
    tensorboardX set neither)."""
    try:
        wall = source.tensors(run, tag).wall_time
    except KeyError:
        return None
    return float(wall[0]) if len(wall) else None


def read_hparams(source: LogdirLike) -> HParamsData:
    """The merged experiment and every session of the logdir, runs in sorted order."""
    problems: list[PluginProblem] = []
    experiments: list[tuple[str, hparams_pb2.Experiment]] = []
    starts: dict[str, tuple[hparams_pb2.SessionStartInfo, float | None]] = {}
    ends: dict[str, tuple[hparams_pb2.SessionEndInfo, float | None]] = {}
    for run in source.runs():
        for tag in tags_of_plugin(source, run, PLUGIN_NAME):
            data = _decode(source, run, tag, problems)
            kind = data.WhichOneof("data") if data is not None else None
            if kind == "experiment":
                experiments.append((run, data.experiment))
            elif kind == "session_start_info":
                starts[run] = (data.session_start_info, _first_wall_time(source, run, tag))
            elif kind == "session_end_info":
                ends[run] = (data.session_end_info, _first_wall_time(source, run, tag))
            elif data is not None:
                message = "hparams plugin data holds no experiment or session"
                problems.append(PluginProblem(run, tag, None, message))
    sessions = []
    for run, (start, start_wall) in starts.items():
        end, end_wall = ends.get(run, (None, None))
        sessions.append(Session(
            run, {name: value_of(v) for name, v in sorted(start.hparams.items())},
            float(start.start_time_secs) if start.start_time_secs else start_wall,
            (float(end.end_time_secs) if end.end_time_secs else end_wall) if end is not None else None,
            _STATUSES.get(end.status, "unknown") if end is not None else "unknown",
            start.group_name, start.model_uri, start.monitor_url))
    return HParamsData(merge_experiments(experiments, sessions), sessions, problems)


def merge_experiments(experiments: list[tuple[str, hparams_pb2.Experiment]],
                      sessions: list[Session]) -> Experiment:
    """One experiment from those written (see the module doc), completed with inferred
    definitions for hparams that sessions use but no experiment defines."""
    hparams: dict[str, HParamDef] = {}
    metrics: dict[tuple[str, str], MetricDef] = {}
    for _, exp in experiments:
        for info in exp.hparam_infos:
            new = _hparam_def(info)
            hparams[new.name] = _merge_hparam(hparams[new.name], new) if new.name in hparams else new
        for minfo in exp.metric_infos:
            metric = _metric_def(minfo)
            metrics.setdefault((metric.group, metric.tag), metric)
    defs = list(hparams.values()) + infer_hparam_defs(sessions, tuple(hparams))
    first = experiments[0][1] if experiments else hparams_pb2.Experiment()
    return Experiment(first.name, first.description, first.user,
                      float(first.time_created_secs) if first.time_created_secs else None,
                      tuple(defs), tuple(metrics.values()), tuple(run for run, _ in experiments))
