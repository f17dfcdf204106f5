"""Graphs written by the real writers (torch ``add_graph``, tensorboardX ``add_graph``) and in
TensorFlow's form (built with TensorBoard's own protobuf classes), each with TensorBoard's parse
of the same bytes as the oracle."""

from __future__ import annotations

from pathlib import Path

import pytest

import tbnb


def _torch_models():
    torch = pytest.importorskip("torch")
    nn = torch.nn

    class Net(nn.Module):
        """A small CNN."""

        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(3, 8, 3)
            self.bn = nn.BatchNorm2d(8)
            self.fc = nn.Linear(8 * 6 * 6, 10)

        def forward(self, x):
            x = torch.relu(self.bn(self.conv1(x)))
            return self.fc(torch.flatten(x, 1))

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(4, 4, 3, padding=1)
            self.conv2 = nn.Conv2d(4, 4, 3, padding=1)

        def forward(self, x):
            return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))

    class Deep(nn.Module):
        """Repeated blocks: the scopes ``Deep/Sequential[layers]/Block[0..5]`` are alike."""

        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.Sequential(*[Block() for _ in range(6)])
            self.head = nn.Linear(4 * 5 * 5, 2)

        def forward(self, x):
            return self.head(torch.flatten(self.layers(x), 1))

    return torch, {"cnn": (Net(), torch.zeros(2, 3, 8, 8)), "deep": (Deep(), torch.zeros(1, 4, 5, 5))}


def _graph_bytes(logdir: Path) -> bytes:
    graph = tbnb.load(logdir).graph(".")
    assert graph is not None and graph.graph_def is not None
    return graph.graph_def


@pytest.fixture(scope="session")
def torch_graphs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """GraphDef bytes written by ``torch.utils.tensorboard`` for each model, read back by tbnb."""
    _, models = _torch_models()
    from torch.utils.tensorboard import SummaryWriter

    out = {}
    for name, (model, example) in models.items():
        logdir = tmp_path_factory.mktemp(f"torch-{name}")
        with SummaryWriter(str(logdir)) as w:
            w.add_graph(model, example)
        out[name] = _graph_bytes(logdir)
    return out


@pytest.fixture(scope="session")
def tbx_graph(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """GraphDef bytes written by tensorboardX's ``add_graph`` (it traces with torch too)."""
    _, models = _torch_models()
    tbx = pytest.importorskip("tensorboardX")
    logdir = tmp_path_factory.mktemp("tbx")
    model, example = models["deep"]
    with tbx.SummaryWriter(str(logdir)) as w:
        w.add_graph(model, example)
    return _graph_bytes(logdir)


@pytest.fixture(scope="session")
def tf_graph() -> bytes:
    """A GraphDef as TensorFlow writes one, with every kind of attribute, built with
    TensorBoard's classes (TensorFlow is not installed)."""
    graph_pb2 = pytest.importorskip("tensorboard.compat.proto.graph_pb2")
    from tensorboard.compat.proto import attr_value_pb2, tensor_pb2, tensor_shape_pb2

    g = graph_pb2.GraphDef()
    g.versions.producer = 1205

    def shape(*dims: int) -> tensor_shape_pb2.TensorShapeProto:
        return tensor_shape_pb2.TensorShapeProto(dim=[tensor_shape_pb2.TensorShapeProto.Dim(size=d) for d in dims])

    def node(name, op, inputs=(), device="/job:localhost/replica:0/task:0/device:CPU:0", shapes=None, **attrs):
        n = g.node.add(name=name, op=op, input=list(inputs), device=device)
        if shapes is not None:
            n.attr["_output_shapes"].list.shape.extend(
                [tensor_shape_pb2.TensorShapeProto(unknown_rank=True) if s is None else shape(*s) for s in shapes])
        for k, v in attrs.items():
            n.attr[k].CopyFrom(v)
        return n

    A = attr_value_pb2.AttrValue
    node("x", "Placeholder", shapes=[(-1, 4)], dtype=A(type=1), shape=A(shape=shape(-1, 4)))
    w_value = tensor_pb2.TensorProto(dtype=1, tensor_shape=shape(4, 3), float_val=[0.5] * 12)
    node("dense/kernel", "Const", shapes=[(4, 3)], dtype=A(type=1), value=A(tensor=w_value))
    node("dense/MatMul", "MatMul", ["x", "dense/kernel"], shapes=[(-1, 3)], T=A(type=1),
         transpose_a=A(b=False), transpose_b=A(b=True))
    node("dense/BiasAdd", "BiasAdd", ["dense/MatMul:0", "dense/bias/read"], shapes=[(-1, 3)],
         data_format=A(s=b"NHWC"), T=A(type=1))
    node("dense/bias", "VariableV2", shapes=[(3,)], shape=A(shape=shape(3)), container=A(s=b""))
    node("dense/bias/read", "Identity", ["dense/bias"], shapes=[(3,)])
    node("split", "Split", ["dense/BiasAdd", "x"], shapes=[(-1, 1), (-1, 2)], num_split=A(i=2),
         ratio=A(f=0.25), Tlist=A(list=A.ListValue(type=[1, 3])), sizes=A(list=A.ListValue(i=[1, 2])))
    node("call", "PartitionedCall", ["split:1", "^init"], f=A(func=attr_value_pb2.NameAttrList(name="fn")))
    node("loss_summary", "ScalarSummary", ["split:0"], shapes=[()], device="")
    node("init", "NoOp", ["^dense/bias"], device="")
    node("weird name <b>&\"'</b> é/ü", "Identity", ["x"], shapes=[None])
    return g.SerializeToString()
