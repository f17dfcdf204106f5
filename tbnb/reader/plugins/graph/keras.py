"""Keras model JSON (``model.to_json()``, plugin ``graph_keras_model``) to a conceptual Graph.

Each layer is a node ``model[/inner]/layer`` whose op is the layer's class and whose attributes
are ``keras_class``, ``dtype`` (also read from a DTypePolicy) and the rest of the layer's config.
Edges come from each layer's ``inbound_nodes``, in either format:

- Keras 3: ``[{"args": [<keras tensor>, ...], "kwargs": {...}}]`` where a keras tensor is
  ``{"class_name": "__keras_tensor__", "config": {"shape", "dtype", "keras_history": [layer,
  node, index]}}``, possibly nested in lists (a Concatenate's one argument is a list);
- Keras 2: ``[[["layer", node, index, {kwargs}], ...], ...]``, which TensorBoard does not read.

A Sequential model chains its layers in order. A reference to a nested model stands for that
model's output layer; a nested model's input layers are fed by what feeds the model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .attrs import Shape
from .model import Graph, GraphError


@dataclass
class _Layers:
    names: list[str] = field(default_factory=list)
    ops: list[str] = field(default_factory=list)
    attrs: list[dict[str, Any]] = field(default_factory=list)
    inputs: list[list[tuple[str, int]]] = field(default_factory=list)
    shapes: dict[tuple[str, int], Shape] = field(default_factory=dict)

    def add(self, name: str, op: str, attrs: dict[str, Any], inputs: list[tuple[str, int]]) -> None:
        self.names.append(name)
        self.ops.append(op)
        self.attrs.append(attrs)
        self.inputs.append(inputs)


def _dtype(config: dict[str, Any]) -> Any:
    dtype = config.get("dtype")
    if isinstance(dtype, dict):
        inner = dtype.get("config")
        return inner.get("name") if isinstance(inner, dict) else None
    return dtype


def _shape(value: Any) -> Shape:
    if not isinstance(value, (list, tuple)):
        return None
    return tuple(-1 if not isinstance(d, int) else d for d in value)


def _keras3_refs(value: Any, out: list[tuple[str, int, Shape]]) -> None:
    """Collect (layer, tensor index, shape) of every keras tensor inside args or kwargs."""
    if isinstance(value, dict):
        config = value.get("config")
        history = config.get("keras_history") if isinstance(config, dict) else None
        if value.get("class_name") == "__keras_tensor__" and isinstance(history, list) and len(history) >= 3:
            out.append((str(history[0]), int(history[2]), _shape(config.get("shape"))))
            return
        for v in value.values():
            _keras3_refs(v, out)
    elif isinstance(value, list):
        for v in value:
            _keras3_refs(v, out)


def inbound_refs(layer: dict[str, Any]) -> list[tuple[str, int, Shape]]:
    """(source layer, tensor index, shape or None) of a layer's inputs, Keras 3 or Keras 2."""
    refs: list[tuple[str, int, Shape]] = []
    for node in layer.get("inbound_nodes") or []:
        if isinstance(node, dict):  # Keras 3
            _keras3_refs(node.get("args", []), refs)
            _keras3_refs(node.get("kwargs", {}), refs)
        elif isinstance(node, list):  # Keras 2: a list of [name, node_index, tensor_index, kwargs]
            for entry in node:
                if isinstance(entry, list) and len(entry) >= 3 and isinstance(entry[0], str):
                    refs.append((entry[0], int(entry[2]), None))
    return refs


def _layer_names(spec: Any) -> list[str]:
    """``input_layers``/``output_layers``: ``[name, node, index]`` or a list of them."""
    if not isinstance(spec, list) or not spec:
        return []
    if isinstance(spec[0], str):
        return [spec[0]]
    return [s[0] for s in spec if isinstance(s, list) and s and isinstance(s[0], str)]


def _add_model(model: dict[str, Any], scope: str, feed: list[tuple[str, int]], out: _Layers) -> list[str]:
    """Add a model's layers under ``scope``; ``feed`` is what feeds its inputs. Returns the names
    of its output layers."""
    config = model.get("config") or {}
    prefix = f"{scope}{config.get('name', 'model')}/"
    input_names = [prefix + n for n in _layer_names(config.get("input_layers"))]
    feeds = dict(zip(input_names, ([f] for f in feed)))
    outputs: dict[str, list[str]] = {}
    prev: list[tuple[str, int]] = list(feed)
    last: list[str] = []
    for k, layer in enumerate(config.get("layers") or []):
        if not isinstance(layer, dict):
            raise GraphError(f"layer {k} of model {prefix[:-1]!r} is not a JSON object")
        lconfig = layer.get("config") or {}
        name = prefix + str(lconfig.get("name", layer.get("name", f"layer_{k}")))
        refs = inbound_refs(layer)
        sources = []
        for src, index, shape in refs:
            targets = outputs.get(prefix + src, [prefix + src])  # a nested model: its output layer
            source = (targets[min(index, len(targets) - 1)], 0 if prefix + src in outputs else index)
            sources.append(source)
            if shape is not None:
                out.shapes[source] = shape
        if not refs and not input_names:
            sources = prev if k > 0 or feed else []
        sources += feeds.get(name, [])
        if isinstance(lconfig.get("layers"), list):
            last = outputs[name] = _add_model(layer, prefix, sources, out)
        else:
            attrs = {"keras_class": layer.get("class_name"), "dtype": _dtype(lconfig)}
            attrs.update((key, v) for key, v in lconfig.items() if key not in ("name", "dtype"))
            out.add(name, str(layer.get("class_name", "")), attrs, sources)
            last = [name]
        prev = [(last[0], 0)]
    named = [prefix + n for n in _layer_names(config.get("output_layers"))]
    return [outputs.get(n, [n])[0] for n in named] or last


def graph_from_keras_json(text: str | bytes) -> Graph:
    """The conceptual graph of a Keras model's JSON; GraphError if it is not a model's JSON."""
    try:
        model = json.loads(text)
    except (ValueError, UnicodeDecodeError) as err:
        raise GraphError(f"not Keras model JSON: {err}") from None
    if not isinstance(model, dict) or not isinstance((model.get("config") or {}).get("layers"), list):
        raise GraphError("not Keras model JSON: no config.layers")
    out = _Layers()
    _add_model(model, "", [], out)
    index = {n: i for i, n in enumerate(out.names)}
    src, dst, port, problems = [], [], [], []
    for i, inputs in enumerate(out.inputs):
        for name, k in inputs:
            if name in index:
                src.append(index[name])
                dst.append(i)
                port.append(k)
            else:
                problems.append(f"layer {out.names[i]!r} names input {name!r}, which is no layer")
    per_layer: dict[str, dict[int, Shape]] = {}
    for (name, k), shape in out.shapes.items():
        per_layer.setdefault(name, {})[k] = shape
    shapes: list[list[Shape]] = []
    for name in out.names:
        known = per_layer.get(name, {})
        shapes.append([known.get(k) for k in range(max(known) + 1)] if known else [])
    attrs = out.attrs
    return Graph(kind="keras", names=out.names, ops=out.ops, devices=[""] * len(out.names),
                 inputs=[[n if k == 0 else f"{n}:{k}" for n, k in inp] for inp in out.inputs],
                 output_shapes=shapes, edge_src=np.array(src, np.int32), edge_dst=np.array(dst, np.int32),
                 edge_output=np.array(port, np.int32), edge_control=np.zeros(len(src), bool),
                 attrs_of=lambda i: dict(attrs[i]), problems=problems)
