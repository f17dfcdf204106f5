"""GraphDefs from every writer read into the same nodes, edges and attributes that TensorBoard's
own protobuf parse of the same bytes holds; bad bytes give GraphError, never a DecodeError."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from tbnb.reader.plugins.graph import GraphError, graph_from_graph_def, graph_from_meta_graph_def
from tbnb.reader.plugins.graph.attrs import elements

tb_graph_pb2 = pytest.importorskip("tensorboard.compat.proto.graph_pb2")


def oracle_edges(tb: object) -> tuple[list[tuple[str, str, int, bool]], int]:
    """TensorBoard's reading of the inputs: (src, dst, output, control) and inputs naming no node."""
    names = {n.name for n in tb.node}
    edges, dangling = [], 0
    for n in tb.node:
        for text in n.input:
            control = text.startswith("^")
            name, port = (text[1:], 0) if control else (text, 0)
            if not control and ":" in text and text.rsplit(":", 1)[1].isdigit():
                name, port = text.rsplit(":", 1)[0], int(text.rsplit(":", 1)[1])
            if name in names:
                edges.append((name, n.name, port, control))
            else:
                dangling += 1
    return edges, dangling


def check_against_tensorboard(data: bytes) -> None:
    tb = tb_graph_pb2.GraphDef.FromString(data)
    g = graph_from_graph_def(data)
    assert g.names == [n.name for n in tb.node]
    assert g.ops == [n.op for n in tb.node]
    assert g.devices == [n.device for n in tb.node]
    assert [list(x) for x in g.inputs] == [list(n.input) for n in tb.node]
    edges, dangling = oracle_edges(tb)
    ours = [(g.names[s], g.names[d], int(k), bool(c)) for s, d, k, c in
            zip(g.edge_src, g.edge_dst, g.edge_output, g.edge_control)]
    assert sorted(ours) == sorted(edges)
    assert len(g.edge_src) + dangling == sum(len(n.input) for n in tb.node)
    for i, n in enumerate(tb.node):
        if "_output_shapes" in n.attr:
            expected = [None if s.unknown_rank else tuple(d.size for d in s.dim)
                        for s in n.attr["_output_shapes"].list.shape]
            assert g.output_shapes[i] == expected
            assert g.attrs(i)["_output_shapes"] == expected
    assert g.graph_def == data
    for e, (s, k, c) in enumerate(zip(g.edge_src, g.edge_output, g.edge_control)):
        shapes = g.output_shapes[s]
        expected = 0.0 if c else (elements(shapes[k]) if k < len(shapes) else float("nan"))
        assert g.edge_elements[e] == expected or (np.isnan(expected) and np.isnan(g.edge_elements[e]))


def test_torch_cnn_matches_tensorboard(torch_graphs: dict[str, bytes]) -> None:
    check_against_tensorboard(torch_graphs["cnn"])


def test_torch_repeated_blocks_match_tensorboard(torch_graphs: dict[str, bytes]) -> None:
    check_against_tensorboard(torch_graphs["deep"])


def test_tensorboardx_graph_matches_tensorboard(tbx_graph: bytes) -> None:
    check_against_tensorboard(tbx_graph)


def test_tensorflow_graph_matches_tensorboard(tf_graph: bytes) -> None:
    check_against_tensorboard(tf_graph)


def test_torch_attr_strings_read_as_the_model_user_wrote_them(torch_graphs: dict[str, bytes]) -> None:
    data = torch_graphs["cnn"]
    tb = tb_graph_pb2.GraphDef.FromString(data)
    g = graph_from_graph_def(data)
    checked = 0
    for i, n in enumerate(tb.node):
        raw = n.attr["attr"].s.decode()
        attrs = g.attrs(i)
        assert "attr" not in attrs or raw not in ("", "{}")
        body = raw.strip()[1:-1].strip()
        if " : " in body and "," not in body:
            key, value = (part.strip() for part in body.split(" : ", 1))
            try:
                expected = ast.literal_eval(value)
            except (ValueError, SyntaxError):
                expected = value
            assert attrs[key] == expected
            checked += 1
    assert checked >= 10
    kinds = {g.ops[i]: g.attrs(i) for i in range(len(g.names))}
    assert kinds["prim::GetAttr"]["name"] in ("weight", "bias")
    assert {"IO Node", "prim::Constant", "aten::_convolution", "aten::linear"} <= set(g.ops)
    assert any(n.startswith("Net/Conv2d[conv1]/") for n in g.names)


def test_tensorflow_attrs_decode_to_python_values(tf_graph: bytes) -> None:
    g = graph_from_graph_def(tf_graph)
    attrs = {name: g.attrs(i) for i, name in enumerate(g.names)}
    assert attrs["x"]["dtype"] == "DT_FLOAT" and attrs["x"]["shape"] == (-1, 4)
    kernel = attrs["dense/kernel"]["value"]
    assert isinstance(kernel, np.ndarray) and kernel.shape == (4, 3) and (kernel == 0.5).all()
    assert attrs["dense/MatMul"]["transpose_b"] is True and attrs["dense/MatMul"]["T"] == "DT_FLOAT"
    assert attrs["dense/BiasAdd"]["data_format"] == "NHWC"
    assert attrs["split"]["num_split"] == 2 and attrs["split"]["ratio"] == pytest.approx(0.25)
    assert attrs["split"]["Tlist"] == ["DT_FLOAT", "DT_INT32"] and attrs["split"]["sizes"] == [1, 2]
    assert attrs["call"]["f"] == {"name": "fn", "attr": {}}
    assert attrs["dense/bias"]["container"] == ""
    edges = g.edges
    split = edges[(edges.src == "split") & (edges.dst == "call")]
    assert split.src_output.tolist() == [1] and split["shape"].tolist() == [(-1, 2)]
    assert split.elements.tolist() == [2.0]  # unknown sizes count as one
    control = edges[edges.control]
    assert sorted(zip(control.src, control.dst)) == [("dense/bias", "init"), ("init", "call")]
    assert (control.elements == 0).all()
    weird = edges[edges.dst == "weird name <b>&\"'</b> é/ü"]
    assert weird.src.tolist() == ["x"] and weird.elements.tolist() == [4.0]
    assert g.output_shapes[g.index("weird name <b>&\"'</b> é/ü")] == [None]


def test_tables_and_scopes(tf_graph: bytes) -> None:
    g = graph_from_graph_def(tf_graph)
    nodes = g.nodes
    assert list(nodes.columns) == ["name", "op", "device", "inputs", "output_shapes", "attrs",
                                   "compute_time", "memory"]
    assert len(nodes) == len(g.names) and nodes.compute_time.isna().all()
    top = g.scopes()
    assert dict(zip(top.name, top.kind)) == {
        "call": "op", "dense": "scope", "init": "op", "loss_summary": "op", "split": "op", "x": "op",
        "weird name <b>&\"'<": "scope"}  # the name's first "/" is in its "</b>"
    dense = g.scopes("dense")
    assert dict(zip(dense.name, dense.ops)) == {"dense/BiasAdd": 1, "dense/MatMul": 1, "dense/bias": 2,
                                                "dense/kernel": 1}
    with pytest.raises(KeyError):
        g.scopes("nowhere")


def test_meta_graph_def_gives_its_graph(tf_graph: bytes) -> None:
    from tensorboard.compat.proto import meta_graph_pb2

    meta = meta_graph_pb2.MetaGraphDef()
    meta.graph_def.ParseFromString(tf_graph)
    meta.meta_info_def.tags.append("serve")
    g = graph_from_meta_graph_def(meta.SerializeToString())
    assert g.names == graph_from_graph_def(tf_graph).names
    with pytest.raises(GraphError, match="no graph_def"):
        graph_from_meta_graph_def(meta_graph_pb2.MetaGraphDef().SerializeToString())


@pytest.mark.parametrize("data", [b"\xff\xff\xff", b"\x0a\x05abc", b"\x0a\x03\x0a\x09a", b"\x0a\x02\x0a\x80"])
def test_damaged_bytes_give_graph_error(data: bytes) -> None:
    with pytest.raises(GraphError):
        graph_from_graph_def(data)


def test_a_graph_def_is_not_a_meta_graph_def(tf_graph: bytes) -> None:
    with pytest.raises(GraphError):
        graph_from_meta_graph_def(tf_graph)
    with pytest.raises(GraphError):
        graph_from_meta_graph_def(b"\x12\x07garbage")


def test_truncated_graph_never_raises_decode_error(tf_graph: bytes) -> None:
    for cut in range(1, len(tf_graph), 7):
        try:
            g = graph_from_graph_def(tf_graph[:cut])
        except GraphError:
            continue
        assert len(g.names) <= 11


def test_many_nodes_read_column_wise_agree_with_tensorboard() -> None:
    from tests.bench.graph_data import synthetic_graph_def

    check_against_tensorboard(synthetic_graph_def(3000))


def test_duplicate_names_and_missing_inputs_are_problems_not_failures() -> None:
    g = tb_graph_pb2.GraphDef()
    g.node.add(name="a", op="Const")
    g.node.add(name="a", op="Identity")
    g.node.add(name="b", op="Identity", input=["a", "ghost", "^ghost2", "a:3"])
    ours = graph_from_graph_def(g.SerializeToString())
    assert len(ours.names) == 3 and ours.edge_src.tolist() == [0, 0] and ours.edge_output.tolist() == [0, 3]
    assert any("2 inputs name no node" in p for p in ours.problems)
    assert any("appear more than once" in p for p in ours.problems)


def test_function_library_is_shown_under_its_own_scope() -> None:
    from tensorboard.compat.proto import function_pb2, node_def_pb2, op_def_pb2

    g = tb_graph_pb2.GraphDef()
    g.node.add(name="x", op="Placeholder")
    call = g.node.add(name="StatefulPartitionedCall", op="StatefulPartitionedCall", input=["x"])
    call.attr["f"].func.name = "train_step"
    fn = g.library.function.add()
    fn.signature.CopyFrom(op_def_pb2.OpDef(
        name="train_step", input_arg=[op_def_pb2.OpDef.ArgDef(name="x", type=1)],
        output_arg=[op_def_pb2.OpDef.ArgDef(name="identity", type=1)]))
    fn.node_def.extend([
        node_def_pb2.NodeDef(name="kernel", op="Const"),
        node_def_pb2.NodeDef(name="mm", op="MatMul", input=["x", "kernel:output:0"]),
        node_def_pb2.NodeDef(name="split", op="Split", input=["mm:product:0"]),
        node_def_pb2.NodeDef(name="Identity", op="Identity", input=["split:output:1", "^kernel"]),
    ])
    fn.ret["identity"] = "Identity:output:0"
    assert isinstance(fn, function_pb2.FunctionDef)
    ours = graph_from_graph_def(g.SerializeToString())
    p = "__function_library__/train_step/"
    assert ours.names == ["x", "StatefulPartitionedCall", p + "x", p + "kernel", p + "mm", p + "split",
                          p + "Identity", p + "identity"]
    assert ours.ops[2] == "_Arg" and ours.ops[-1] == "_Retval"
    edges = sorted(zip(ours.edges.src, ours.edges.dst, ours.edges.src_output, ours.edges.control))
    assert edges == sorted([("x", "StatefulPartitionedCall", 0, False), (p + "x", p + "mm", 0, False),
                            (p + "kernel", p + "mm", 0, False), (p + "mm", p + "split", 0, False),
                            (p + "split", p + "Identity", 1, False), (p + "kernel", p + "Identity", 0, True),
                            (p + "Identity", p + "identity", 0, False)])
    assert ours.attrs(1)["f"] == {"name": "train_step", "attr": {}} and ours.attrs(2)["T"] == "DT_FLOAT"
    assert ours.scopes("__function_library__").name.tolist() == ["__function_library__/train_step"]


def test_damaged_bytes_anywhere_give_graph_error_or_a_graph(tf_graph: bytes) -> None:
    from tbnb.reader.plugins.graph.hierarchy import build_hierarchy
    from tbnb.reader.plugins.graph.view import answer

    rng = np.random.default_rng(0)
    outcomes = set()
    for _ in range(300):
        data = bytearray(tf_graph)
        for pos in rng.integers(0, len(data), size=rng.integers(1, 4)):
            data[pos] = int(rng.integers(0, 256))
        try:
            g = graph_from_graph_def(bytes(data))
        except GraphError:
            outcomes.add("error")
            continue
        outcomes.add("graph")
        answer(build_hierarchy(g), {"what": "levels", "expanded": list(g.names)})
        for i in range(len(g.names)):
            g.attrs(i) if i % 3 else None
    assert outcomes == {"error", "graph"}


def test_tables_without_pandas_say_how_to_get_it(tf_graph: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    g = graph_from_graph_def(tf_graph)
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"pip install 'tbnb\[pandas\]'"):
        _ = g.nodes
    assert len(g.names) == 11  # the graph itself needs no pandas


def _many(names: list[str], devices: list[str] | None = None) -> bytes:
    """A GraphDef of Identity nodes named ``names`` (enough for the column-wise scan), each fed by
    the one before it, with its own output shape."""
    g = tb_graph_pb2.GraphDef()
    for i, name in enumerate(names):
        n = g.node.add(name=name, op="Identity" if i % 3 else "Const", device=(devices or [""] * len(names))[i])
        if i:
            n.input.append(names[i - 1] + (":1" if i % 7 == 0 else ""))
        shapes = n.attr["_output_shapes"].list.shape
        for dims in ([i % 5 + 1, 3], [-1]) if i % 4 else ([2, 2],):
            shape = shapes.add()
            for d in dims:
                shape.dim.add(size=d)
    return g.SerializeToString()


@pytest.mark.parametrize("odd", ["nul\x00inside", "", "ünï/cødé", "a\nb"])
def test_strings_read_in_one_pass_hand_over_what_they_cannot_split(odd: str) -> None:
    """Names are decoded in one pass over all nodes; a name holding the separator (NUL), empty
    names and devices, and non-ASCII text must read exactly as protobuf reads them."""
    names = [f"scope_{i % 9}/node_{i}" for i in range(200)]
    names[57] = odd
    devices = ["" if i % 2 else f"/device:CPU:{i % 3}" for i in range(200)]
    check_against_tensorboard(_many(names, devices))


def test_a_name_that_is_not_utf8_is_a_graph_error_in_a_big_graph() -> None:
    data = _many([f"n{i}" for i in range(100)])
    bad = data.replace(b"n42", b"n\xff2", 1)
    with pytest.raises(GraphError, match="not UTF-8"):
        graph_from_graph_def(bad)


def test_an_empty_node_among_many_reads_as_protobuf_reads_it() -> None:
    """A NodeDef with no field set is zero bytes inside the GraphDef: the column-wise scan must not
    read the next node's bytes as its fields."""
    data = _many([f"s/n{i}" for i in range(40)])
    empty = b"\x0a\x00"  # GraphDef field 1 (node), zero bytes long
    data = empty + data + empty
    assert [n.name for n in tb_graph_pb2.GraphDef.FromString(data).node][:2] == ["", "s/n0"]
    check_against_tensorboard(data)
