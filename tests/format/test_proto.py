"""Our schemas are wire-compatible with TensorBoard's: every field we declare has TensorBoard's
number, type and cardinality (checked against TensorBoard's own generated descriptors)."""

from __future__ import annotations

import importlib

import pytest
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from tbnb.format.proto import (
    event_pb2,
    graph_pb2,
    hparams_pb2,
    layout_pb2,
    plugin_data_pb2,
    projector_config_pb2,
    summary_pb2,
    tensor_pb2,
)

PAIRS = [
    (event_pb2.Event, "tensorboard.compat.proto.event_pb2", "Event"),
    (event_pb2.SessionLog, "tensorboard.compat.proto.event_pb2", "SessionLog"),
    (event_pb2.TaggedRunMetadata, "tensorboard.compat.proto.event_pb2", "TaggedRunMetadata"),
    (event_pb2.LogMessage, "tensorboard.compat.proto.event_pb2", "LogMessage"),
    (summary_pb2.Summary, "tensorboard.compat.proto.summary_pb2", "Summary"),
    (summary_pb2.SummaryMetadata, "tensorboard.compat.proto.summary_pb2", "SummaryMetadata"),
    (summary_pb2.HistogramProto, "tensorboard.compat.proto.histogram_pb2", "HistogramProto"),
    (tensor_pb2.TensorProto, "tensorboard.compat.proto.tensor_pb2", "TensorProto"),
    (tensor_pb2.TensorShapeProto, "tensorboard.compat.proto.tensor_shape_pb2", "TensorShapeProto"),
    (tensor_pb2.ResourceHandleProto, "tensorboard.compat.proto.resource_handle_pb2", "ResourceHandleProto"),
    (graph_pb2.GraphDef, "tensorboard.compat.proto.graph_pb2", "GraphDef"),
    (graph_pb2.NodeDef, "tensorboard.compat.proto.node_def_pb2", "NodeDef"),
    (graph_pb2.AttrValue, "tensorboard.compat.proto.attr_value_pb2", "AttrValue"),
    (graph_pb2.VersionDef, "tensorboard.compat.proto.versions_pb2", "VersionDef"),
    (graph_pb2.MetaGraphDef, "tensorboard.compat.proto.meta_graph_pb2", "MetaGraphDef"),
    (plugin_data_pb2.ScalarPluginData, "tensorboard.plugins.scalar.plugin_data_pb2", "ScalarPluginData"),
    (plugin_data_pb2.HistogramPluginData, "tensorboard.plugins.histogram.plugin_data_pb2", "HistogramPluginData"),
    (plugin_data_pb2.ImagePluginData, "tensorboard.plugins.image.plugin_data_pb2", "ImagePluginData"),
    (plugin_data_pb2.AudioPluginData, "tensorboard.plugins.audio.plugin_data_pb2", "AudioPluginData"),
    (plugin_data_pb2.TextPluginData, "tensorboard.plugins.text.plugin_data_pb2", "TextPluginData"),
    (plugin_data_pb2.PrCurvePluginData, "tensorboard.plugins.pr_curve.plugin_data_pb2", "PrCurvePluginData"),
    (plugin_data_pb2.MeshPluginData, "tensorboard.plugins.mesh.plugin_data_pb2", "MeshPluginData"),
    (hparams_pb2.HParamsPluginData, "tensorboard.plugins.hparams.plugin_data_pb2", "HParamsPluginData"),
    (hparams_pb2.SessionStartInfo, "tensorboard.plugins.hparams.plugin_data_pb2", "SessionStartInfo"),
    (hparams_pb2.SessionEndInfo, "tensorboard.plugins.hparams.plugin_data_pb2", "SessionEndInfo"),
    (hparams_pb2.Experiment, "tensorboard.plugins.hparams.api_pb2", "Experiment"),
    (hparams_pb2.HParamInfo, "tensorboard.plugins.hparams.api_pb2", "HParamInfo"),
    (hparams_pb2.MetricInfo, "tensorboard.plugins.hparams.api_pb2", "MetricInfo"),
    (layout_pb2.Layout, "tensorboard.plugins.custom_scalar.layout_pb2", "Layout"),
    (layout_pb2.Chart, "tensorboard.plugins.custom_scalar.layout_pb2", "Chart"),
    (layout_pb2.MarginChartContent, "tensorboard.plugins.custom_scalar.layout_pb2", "MarginChartContent"),
    (projector_config_pb2.ProjectorConfig, "tensorboard.plugins.projector.projector_config_pb2", "ProjectorConfig"),
    (projector_config_pb2.EmbeddingInfo, "tensorboard.plugins.projector.projector_config_pb2", "EmbeddingInfo"),
]


def field_signature(f: FieldDescriptor) -> tuple[object, ...]:
    kind = f.message_type.name if f.message_type else (f.enum_type.name if f.enum_type else f.type)
    oneof = f.containing_oneof.name if f.containing_oneof else None
    repeated = f.is_repeated if hasattr(f, "is_repeated") else f.label == FieldDescriptor.LABEL_REPEATED
    return (f.number, kind, repeated, oneof)


def compare(ours: Descriptor, theirs: Descriptor, path: str) -> list[str]:
    errors = []
    for f in ours.fields:
        other = theirs.fields_by_name.get(f.name)
        if other is None:
            errors.append(f"{path}.{f.name}: not in TensorBoard's schema")
        elif field_signature(f) != field_signature(other):
            errors.append(f"{path}.{f.name}: {field_signature(f)} != {field_signature(other)}")
    for nested in ours.nested_types:
        other_nested = theirs.nested_types_by_name.get(nested.name)
        if other_nested is None:
            errors.append(f"{path}.{nested.name}: no such nested message")
        else:
            errors.extend(compare(nested, other_nested, f"{path}.{nested.name}"))
    for enum in ours.enum_types:
        theirs_enum = theirs.enum_types_by_name[enum.name]
        for v in enum.values:
            if theirs_enum.values_by_name[v.name].number != v.number:
                errors.append(f"{path}.{enum.name}.{v.name}: different number")
    return errors


@pytest.mark.parametrize("ours,module,name", PAIRS, ids=[p[2] for p in PAIRS])
def test_fields_match_tensorboard(ours: type, module: str, name: str) -> None:
    theirs = getattr(importlib.import_module(module), name)
    assert compare(ours.DESCRIPTOR, theirs.DESCRIPTOR, name) == []
    assert len(ours.DESCRIPTOR.fields) > 0


def test_data_type_enum_matches() -> None:
    from tensorboard.compat.proto import types_pb2 as tb_types

    from tbnb.format.proto import types_pb2

    for value in types_pb2.DataType.DESCRIPTOR.values:
        assert tb_types.DataType.Value(value.name) == value.number


def test_bytes_written_by_tensorboard_classes_parse_identically() -> None:
    from tensorboard.compat.proto import event_pb2 as tb_event_pb2

    tb = tb_event_pb2.Event(wall_time=1.5, step=7)
    v = tb.summary.value.add(tag="loss", simple_value=0.25)
    v.metadata.plugin_data.plugin_name = "scalars"
    ours = event_pb2.Event.FromString(tb.SerializeToString())
    assert ours.step == 7 and ours.summary.value[0].tag == "loss"
    assert ours.summary.value[0].metadata.plugin_data.plugin_name == "scalars"
    assert ours.SerializeToString() == tb.SerializeToString()
