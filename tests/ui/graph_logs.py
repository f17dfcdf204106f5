"""Logdirs for the graph explorer's browser tests: a torch model traced with ``add_graph`` (a
stem, six alike blocks, a head) and a GraphDef whose node names, op names and attribute strings
are markup (any writer may write them)."""

from __future__ import annotations

from pathlib import Path

#: The hostile names: a scope, an op type and an attribute value.
HOSTILE_SCOPE = "<img src=x onerror=window.__pwned=21>"
HOSTILE_OP = "<script>window.__pwned=22</script>"
HOSTILE_ATTR = "<b onmouseover=window.__pwned=23>bold?</b>"
HOSTILE_NODE = f"{HOSTILE_SCOPE}/<svg onload=window.__pwned=24>"


def write_torch_graph(logdir: Path) -> None:
    """Run ``cnn``: torch's trace of a CNN with repeated blocks (scopes ``Net/Sequential[layers]/Block[k]``)."""
    from torch.utils.tensorboard import SummaryWriter

    from tests.graph_models import cnn_with_blocks

    model, x = cnn_with_blocks()
    with SummaryWriter(str(logdir / "cnn")) as w:
        w.add_graph(model, x)
        w.add_scalar("loss", 1.0, 0)


def hostile_graph_def() -> bytes:
    """A GraphDef in TensorFlow's form whose names are markup."""
    from tensorboard.compat.proto import attr_value_pb2, graph_pb2

    g = graph_pb2.GraphDef()
    a = g.node.add(name=f"{HOSTILE_SCOPE}/input", op="Placeholder")
    a.attr["note"].CopyFrom(attr_value_pb2.AttrValue(s=HOSTILE_ATTR.encode()))
    b = g.node.add(name=HOSTILE_NODE, op=HOSTILE_OP, input=[f"{HOSTILE_SCOPE}/input"])
    b.attr["note"].CopyFrom(attr_value_pb2.AttrValue(s=HOSTILE_ATTR.encode()))
    g.node.add(name="output", op="Identity", input=[HOSTILE_NODE])
    return g.SerializeToString()
