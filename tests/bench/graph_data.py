"""Synthetic GraphDefs in TensorFlow's form, of any size, for the graph explorer's benchmark and tests.

The shape of a real training graph, scaled: a model of stages of repeated residual blocks (deep
scopes, every block alike), each conv with its variables, reads, constants and shapes; a long
preprocessing chain (``pre/add_1 … add_k``: one huge series); gradients that mirror the forward
scopes and read the forward ops (edges across the whole tree); summaries reading some ops; one
``global_step`` read everywhere and an ``init`` NoOp depending on every variable (both
auxiliary-node material). Deterministic: the same size gives the same bytes.
"""

from __future__ import annotations

from tbnb.format.proto import graph_pb2

#: nodes per residual block, with its gradients, summaries and updates
BLOCK_OPS = 40


class _Writer:
    def __init__(self) -> None:
        self.graph = graph_pb2.GraphDef()
        self.graph.versions.producer = 27
        self.count = 0

    def op(self, name: str, op: str, inputs: list[str] = (), shape: tuple[int, ...] | None = (8, 32),
           device: str = "/device:CPU:0", **attrs: graph_pb2.AttrValue) -> str:
        node = self.graph.node.add(name=name, op=op, input=list(inputs), device=device)
        if shape is not None:
            s = node.attr["_output_shapes"].list.shape.add()
            for d in shape:
                s.dim.add(size=d)
        node.attr["T"].type = 1
        for key, value in attrs.items():
            node.attr[key].CopyFrom(value)
        self.count += 1
        return name


def _conv(w: _Writer, scope: str, x: str, variables: list[str], step: str) -> str:
    weights = w.op(f"{scope}/weights", "VariableV2", shape=(3, 3, 32, 32))
    variables.append(weights)
    read = w.op(f"{scope}/weights/read", "Identity", [weights], shape=(3, 3, 32, 32))
    bias = w.op(f"{scope}/bias", "VariableV2", shape=(32,))
    variables.append(bias)
    bread = w.op(f"{scope}/bias/read", "Identity", [bias], shape=(32,))
    strides = graph_pb2.AttrValue(list=graph_pb2.AttrValue.ListValue(i=[1, 1, 1, 1]))
    conv = w.op(f"{scope}/Conv2D", "Conv2D", [x, read], strides=strides,
                padding=graph_pb2.AttrValue(s=b"SAME"))
    out = w.op(f"{scope}/BiasAdd", "BiasAdd", [conv, bread])
    scale = w.op(f"{scope}/scale/Const", "Const", shape=())
    return w.op(f"{scope}/scale/mul", "Mul", [out, scale, "^" + step])


def _block(w: _Writer, scope: str, x: str, variables: list[str], forward: list[str], step: str) -> str:
    """One residual block: two convs with batch norm and relu, and the skip connection."""
    h = x
    for k in (1, 2):
        h = _conv(w, f"{scope}/conv{k}", h, variables, step)
        mean = w.op(f"{scope}/bn{k}/moments/mean", "Mean", [h], shape=(32,))
        var = w.op(f"{scope}/bn{k}/moments/variance", "Mean", [h, mean], shape=(32,))
        eps = w.op(f"{scope}/bn{k}/batchnorm/add/y", "Const", shape=())
        add = w.op(f"{scope}/bn{k}/batchnorm/add", "AddV2", [var, eps], shape=(32,))
        rsqrt = w.op(f"{scope}/bn{k}/batchnorm/Rsqrt", "Rsqrt", [add], shape=(32,))
        sub = w.op(f"{scope}/bn{k}/batchnorm/sub", "Sub", [h, mean])
        h = w.op(f"{scope}/bn{k}/batchnorm/mul", "Mul", [sub, rsqrt])
        h = w.op(f"{scope}/relu{k}", "Relu", [h])
        forward.append(h)
    return w.op(f"{scope}/add", "AddV2", [x, h])


def synthetic_graph_def(target_nodes: int) -> bytes:
    """A serialized GraphDef of about ``target_nodes`` nodes (within one block's worth)."""
    w = _Writer()
    variables: list[str] = []
    forward: list[str] = []
    step = w.op("global_step", "VariableV2", shape=(), device="/device:CPU:0")
    x = w.op("input/x", "Placeholder")
    chain = max(target_nodes // 10, 1)
    for i in range(1, chain + 1):
        x = w.op(f"pre/add_{i}", "AddV2", [x, step] if i % 100 == 0 else [x])
    blocks = max((target_nodes - chain) // BLOCK_OPS, 1)
    per_stage = max(blocks // 4, 1)
    for b in range(blocks):
        scope = f"model/stage_{b // per_stage}/block_{b % per_stage}"
        x = _block(w, scope, x, variables, forward, step)
    logits = w.op("model/logits/MatMul", "MatMul", [x])
    loss = w.op("loss/Mean", "Mean", [logits], shape=())
    w.op("summaries/loss", "ScalarSummary", [loss], shape=())
    grad = w.op("gradients/Fill", "Fill", [loss])
    for k, h in enumerate(reversed(forward)):
        scope = "gradients/" + h.rpartition("/")[0]
        grad = w.op(f"{scope}/{h.rpartition('/')[2]}_grad/ReluGrad", "ReluGrad", [grad, h])
        if k % 4 == 0:
            w.op(f"summaries/{scope}/grad_norm", "HistogramSummary", [grad], shape=())
    for v in variables:
        if w.count >= target_nodes - 1:
            break
        w.op(f"train/update_{v}/ApplyGradientDescent", "ApplyGradientDescent", [v, grad])
    w.op("init", "NoOp", ["^" + v for v in variables], shape=None)
    return w.graph.SerializeToString()
